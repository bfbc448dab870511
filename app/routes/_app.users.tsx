import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { AGENT_STATE_CLASS, AGENT_STATE_TEXT } from "../components/breaks/agentState";
import { ListenButton, WhisperButton } from "../components/users/ListenButton";
import { ConfirmAction } from "../components/ui/ConfirmAction";
import { Pager, readPaging, useHydrated } from "../components/ui/Pager";
import { ServerMessage } from "../components/ui/Toasts";
import { formIntent, readFields, readFormBody, unknownIntent } from "../forms.server";
import { formatDateTime } from "../lib/format";
import { getRealtimeClient, type PresentUser } from "../lib/realtime";
import { idFields } from "../../common/validation";
import { forceLogout, isAppError, listUsersOnline } from "../managers.server";
import { redirectWithToast } from "../toast.server";
import { TableFrame } from "../components/ui/Table";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Юзеры онлайн" }];

/** SPEC §9: online page sizes 5, 10, 20. */
const PAGE_SIZES = [5, 10, 20] as const;
const DEFAULT_PAGE_SIZE = 10;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const me = await requireAdminUser(request, context);
  const online = await listUsersOnline(context.deps.db, actorOf(me), context.deps.config.realtime.presenceGraceSeconds);
  const url = new URL(request.url);
  const { size, page } = readPaging(url, PAGE_SIZES, DEFAULT_PAGE_SIZE, online.length);
  // «Завершить сессию» asks first (ConfirmAction): ?logout=<id> opens the question, a dialog with JavaScript and a
  // section without; only its button posts (issue 39: one click logged a manager out and cut his call).
  const logoutId = Number(url.searchParams.get("logout")) || null;
  const loggingOut = online.find((user) => user.id === logoutId && user.id !== me.id) ?? null;
  return { online, size, page, meId: me.id, loggingOut };
}

interface UsersActionData {
  error?: { code: string; message: string };
}

/** «менеджера Ольга», «администратора Иван»: whose session the question and the toast name. */
const whose = (user: { displayName: string; isAdmin: boolean }) => `${user.isAdmin ? "администратора" : "менеджера"} ${user.displayName}`;

export async function action({ request, context }: ActionFunctionArgs) {
  const me = await requireAdminUser(request, context);
  const form = await readFormBody(request);
  const { db, sessions, hub } = context.deps;
  try {
    if (formIntent(form) !== "forceLogout") throw unknownIntent();
    const { id } = readFields(form, idFields);
    const closed = await forceLogout(db, sessions, hub, actorOf(me), id);
    const url = new URL(request.url);
    url.searchParams.delete("logout");
    return redirectWithToast(`/users${url.search}`, { type: "success", message: `Сессия ${whose(closed)} закрыта` });
  } catch (error) {
    if (isAppError(error)) {
      return data<UsersActionData>({ error: { code: error.code, message: error.message } }, { status: error.status });
    }
    throw error;
  }
}

export default function UsersOnlinePage() {
  const loaded = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>() as UsersActionData | undefined;
  const [online, setOnline] = useState<PresentUser[]>(loaded.online);
  const { size, meId, loggingOut } = loaded;
  const hydrated = useHydrated();

  // A fresh list from the server (reload, revalidation) replaces the live one.
  useEffect(() => setOnline(loaded.online), [loaded.online]);

  // JavaScript on: the hub pushes the list whenever it changes.
  useEffect(() => {
    const client = getRealtimeClient();
    const ask = () => client.send("getUsersOnline");
    const offList = client.on("usersOnline", (list) => setOnline(list));
    const offOpen = client.on("open", ask);
    if (client.connected) ask();
    return () => {
      offList();
      offOpen();
    };
  }, []);

  const pages = Math.max(1, Math.ceil(online.length / size));
  const page = Math.min(loaded.page, pages);
  const rows = online.slice((page - 1) * size, page * size);
  const href = (p: number, s: number, extra: Record<string, string> = {}) => {
    const params = new URLSearchParams();
    if (s !== DEFAULT_PAGE_SIZE) params.set("size", String(s));
    if (p > 1) params.set("page", String(p));
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    const q = params.toString();
    return q ? `/users?${q}` : "/users";
  };
  const here = href(page, size);

  return (
    <section>
      <h1 className="page-title">Юзеры онлайн</h1>
      {actionData?.error ? <ServerMessage key={actionData.error.message} kind="error" message={actionData.error.message} /> : null}
      {rows.length === 0 ? (
        <p className="card text-sm text-slate-600 dark:text-slate-400" data-testid="users-online-empty">
          Сейчас никого нет онлайн
        </p>
      ) : (
        <TableFrame className="rounded-lg border border-slate-200 dark:border-slate-700">
          <table
            className="stack-table min-w-full divide-y divide-slate-200 bg-white text-sm dark:divide-slate-700 dark:bg-slate-800"
            data-testid="users-online"
          >
            <thead className="bg-slate-50 text-left text-xs font-semibold uppercase text-slate-600 dark:bg-slate-900 dark:text-slate-300">
              <tr>
                <th className="px-3 py-2">Логин</th>
                <th className="px-3 py-2">Ник</th>
                <th className="px-3 py-2">Последний визит</th>
                <th className="px-3 py-2">Состояние</th>
                <th className="px-3 py-2">С какого времени</th>
                <th className="px-3 py-2">Действия</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100 dark:divide-slate-700">
              {rows.map((user) => (
                <tr key={user.id} data-testid={`online-row-${user.login}`}>
                  <td className="px-3 py-2" data-label="Логин">
                    {user.login}
                  </td>
                  <td className="px-3 py-2" data-label="Ник">
                    {user.displayName}
                  </td>
                  <td className="px-3 py-2" data-label="Последний визит">
                    {formatDateTime(user.lastSeen)}
                  </td>
                  <td className="px-3 py-2" data-label="Состояние" data-testid="agent-state">
                    {user.state ? (
                      <span className={`whitespace-nowrap rounded px-2 py-0.5 text-xs font-semibold ${AGENT_STATE_CLASS[user.state]}`}>
                        {AGENT_STATE_TEXT[user.state]}
                      </span>
                    ) : (
                      "—"
                    )}
                    {user.ringing ? (
                      <span className="ml-2 whitespace-nowrap text-xs text-slate-600 dark:text-slate-300" data-testid="agent-ringing">
                        идёт вызов
                      </span>
                    ) : null}
                  </td>
                  <td className="px-3 py-2" data-label="С какого времени" data-testid="agent-state-since">
                    {user.state && user.stateSince ? formatDateTime(user.stateSince) : "—"}
                  </td>
                  <td className="px-3 py-2" data-label="Действия" data-empty={user.id === meId ? "" : undefined}>
                    {user.id === meId ? null : (
                      <div className="flex flex-wrap items-center gap-x-8 gap-y-3">
                        {user.state === "call" || (hydrated && user.ringing) ? (
                          <div className="flex flex-wrap items-center gap-2">
                            {/* Listening is WebRTC: with JavaScript only. Offered while the call rings too: it waits for the
                                answer and starts then, the same button staying mounted as the row turns to «Разговор». */}
                            {hydrated ? <ListenButton managerId={user.id} login={user.login} /> : null}
                            {hydrated && user.state === "call" ? <WhisperButton managerId={user.id} /> : null}
                            {/* Scoring the call while it is heard (issue 39): in a tab of its own, so the listening goes on here. */}
                            {user.callId !== null ? (
                              <a
                                href={`/quality/call/${user.callId}`}
                                target="_blank"
                                rel="noopener"
                                className="whitespace-nowrap text-sm text-blue-600 hover:underline dark:text-blue-400"
                                title="Оценка звонка откроется в новой вкладке, прослушивание здесь продолжится"
                                data-testid="score-live-call"
                              >
                                Оценить
                              </a>
                            ) : null}
                          </div>
                        ) : null}
                        {/* Apart from the listening buttons, not red, and it asks first (issue 39). */}
                        <Link
                          to={href(page, size, { logout: String(user.id) })}
                          className="btn-secondary ml-auto whitespace-nowrap py-1"
                          preventScrollReset
                          data-testid="force-logout"
                        >
                          Завершить сессию
                        </Link>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
      <Pager page={page} pages={pages} size={size} sizes={PAGE_SIZES} total={online.length} hrefFor={href} />
      <ConfirmAction
        open={loggingOut !== null}
        title={loggingOut ? `Завершить сессию ${whose(loggingOut)}?` : ""}
        closeHref={here}
        intent="forceLogout"
        fields={loggingOut ? { id: loggingOut.id } : {}}
        confirmLabel="Завершить сессию"
        testId="force-logout-confirm"
      >
        {loggingOut?.state === "call" ? "Его звонок прервётся." : "Его открытые страницы закроются; войти он сможет снова."}
      </ConfirmAction>
    </section>
  );
}
