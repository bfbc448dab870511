import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, useActionData, useFetcher, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { AGENT_STATE_CLASS, AGENT_STATE_TEXT } from "../components/breaks/agentState";
import { ListenButton, WhisperButton } from "../components/users/ListenButton";
import { Pager, readPaging, useHydrated } from "../components/ui/Pager";
import { notify, ServerMessage } from "../components/ui/Toasts";
import { formIntent, readFields, readFormBody, sentWithJs, unknownIntent } from "../forms.server";
import { formatDateTime } from "../lib/format";
import { getRealtimeClient, type PresentUser } from "../lib/realtime";
import { idFields } from "../../common/validation";
import { forceLogout, isAppError, listUsersOnline } from "../managers.server";
import { redirectWithToast } from "../toast.server";
import { TableFrame } from "../components/ui/Table";

export const meta: MetaFunction = () => [{ title: "Юзеры онлайн" }];

/** SPEC §9: online page sizes 5, 10, 20. */
const PAGE_SIZES = [5, 10, 20] as const;
const DEFAULT_PAGE_SIZE = 10;
const FORCED = "Сессия пользователя закрыта";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const me = await requireAdminUser(request, context);
  const online = await listUsersOnline(context.deps.db, actorOf(me), context.deps.config.realtime.presenceGraceSeconds);
  const url = new URL(request.url);
  const { size, page } = readPaging(url, PAGE_SIZES, DEFAULT_PAGE_SIZE, online.length);
  return { online, size, page, meId: me.id };
}

type ForceFetcher = ReturnType<typeof useFetcher<UsersActionData>>;

interface UsersActionData {
  ok?: boolean;
  message?: string;
  error?: { code: string; message: string };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const me = await requireAdminUser(request, context);
  const form = await readFormBody(request);
  const js = sentWithJs(form);
  const { db, sessions, hub } = context.deps;
  try {
    if (formIntent(form) !== "forceLogout") throw unknownIntent();
    const { id } = readFields(form, idFields);
    const result = await forceLogout(db, sessions, hub, actorOf(me), id);
    if (js) return data<UsersActionData>({ ok: true, message: result.message });
    const url = new URL(request.url);
    return redirectWithToast(`/users${url.search}`, { type: "success", message: result.message });
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
  const { size, meId } = loaded;
  const hydrated = useHydrated();
  // One fetcher for the page: the row goes away with the answer, the toast must not go with it.
  const fetcher = useFetcher<UsersActionData>({ key: "force-logout" });
  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    if (fetcher.data.ok) notify("success", fetcher.data.message ?? FORCED);
    else if (fetcher.data.error) notify("error", fetcher.data.error.message);
  }, [fetcher.state, fetcher.data]);

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
  const href = (p: number, s: number) => {
    const params = new URLSearchParams();
    if (s !== DEFAULT_PAGE_SIZE) params.set("size", String(s));
    if (p > 1) params.set("page", String(p));
    const q = params.toString();
    return q ? `/users?${q}` : "/users";
  };

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
          <table className="stack-table min-w-full divide-y divide-slate-200 bg-white text-sm dark:divide-slate-700 dark:bg-slate-800" data-testid="users-online">
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
                  <td className="px-3 py-2" data-label="Логин">{user.login}</td>
                  <td className="px-3 py-2" data-label="Ник">{user.displayName}</td>
                  <td className="px-3 py-2" data-label="Последний визит">{formatDateTime(user.lastSeen)}</td>
                  <td className="px-3 py-2" data-label="Состояние" data-testid="agent-state">
                    {user.state ? (
                      <span className={`whitespace-nowrap rounded px-2 py-0.5 text-xs font-semibold ${AGENT_STATE_CLASS[user.state]}`}>
                        {AGENT_STATE_TEXT[user.state]}
                      </span>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className="px-3 py-2" data-label="С какого времени" data-testid="agent-state-since">
                    {user.state && user.stateSince ? formatDateTime(user.stateSince) : "—"}
                  </td>
                  <td className="px-3 py-2" data-label="Действия" data-empty={user.id === meId ? "" : undefined}>
                    {user.id === meId ? null : (
                      <div className="flex flex-wrap gap-2">
                        {/* Listening is WebRTC: with JavaScript only. */}
                        {hydrated && user.state === "call" ? (
                          <>
                            <ListenButton managerId={user.id} login={user.login} />
                            <WhisperButton managerId={user.id} />
                          </>
                        ) : null}
                        <ForceLogoutButton user={user} hydrated={hydrated} fetcher={fetcher} />
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
    </section>
  );
}

/** Ends the user's sessions everywhere: a plain form without JavaScript, the page's fetcher with it. */
function ForceLogoutButton({ user, hydrated, fetcher }: { user: PresentUser; hydrated: boolean; fetcher: ForceFetcher }) {
  const FormComponent = hydrated ? fetcher.Form : Form;
  return (
    <FormComponent method="post">
      <input type="hidden" name="intent" value="forceLogout" />
      <input type="hidden" name="id" value={user.id} />
      {hydrated ? <input type="hidden" name="_js" value="1" /> : null}
      <button type="submit" className="btn-danger py-1" disabled={fetcher.state !== "idle"} data-testid="force-logout">
        Завершить сессию
      </button>
    </FormComponent>
  );
}
