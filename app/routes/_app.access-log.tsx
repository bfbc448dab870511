import { data, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData } from "@remix-run/react";
import { ACCESS_KIND_TEXT, ACCESS_KINDS, accessWhoMissing } from "../../common/access-log";
import { type AccessEntry, type AccessFilterField, accessLogChoices, filterFieldOf, listAccessLog } from "../audit.server";
import { actorOf, requireAdminUser } from "../auth.server";
import { formatTalkTime } from "../components/calls/ClientHistory";
import { ListFilter } from "../components/ui/ListFilter";
import { Pager, pageParams } from "../components/ui/Pager";
import { TableFrame } from "../components/ui/Table";
import { isAppError } from "../errors.server";
import { formatDateTime, formatRatio } from "../lib/format";
import { callDirectionText } from "../../common/call-direction";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Журнал доступа" }];

const PAGE = "/access-log";
const SIZES = [20, 50, 100] as const;
const FILTER_NAMES = ["userId", "managerId", "filterId", "from", "to", "kind"] as const;

/**
 * /access-log (issue 39): who listened to, whispered into, played or downloaded which call, and how long the audio
 * really played. A GET form: the address is the whole state, so filters, pages and the CSV work without
 * JavaScript. A wrong filter in the address (2026-13-40, a manager who does not exist) is said at its field, 400.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const params = new URL(request.url).searchParams;
  const sent = Object.fromEntries(FILTER_NAMES.map((name) => [name, params.get(name) ?? ""])) as Record<(typeof FILTER_NAMES)[number], string>;
  const { size, page: asked } = pageParams(params, SIZES, 50);
  const choices = await accessLogChoices(db, actor);
  try {
    let result = await listAccessLog(db, actor, { ...sent, limit: size, offset: (asked - 1) * size });
    const pages = Math.max(1, Math.ceil(result.total / size));
    // A page past the end (the log is shorter now, a hand-edited address) shows the last one.
    if (asked > pages) result = await listAccessLog(db, actor, { ...sent, limit: size, offset: (pages - 1) * size });
    return { sent, choices, size, page: Math.min(asked, pages), pages, total: result.total, entries: result.entries, error: null };
  } catch (error) {
    if (!isAppError(error) || error.status !== 400) throw error;
    const field = filterFieldOf(error.code);
    const refused = { field, message: error.message } as { field: AccessFilterField | null; message: string };
    return data({ sent, choices, size, page: 1, pages: 1, total: 0, entries: [] as AccessEntry[], error: refused }, { status: 400 });
  }
}

/** A length of audio: «0,5 с» (the audio that died after half a second), «41 с», «2:05». */
function audioLength(ms: number): string {
  if (ms < 10_000) return `${formatRatio(Math.round(ms / 100) / 10)} с`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} с`;
  return formatTalkTime(Math.round(ms / 1000));
}

/** How long the audio played, and of what it could have: «0,5 с из 41 с», or why there is no figure. */
function heardText(e: AccessEntry): { main: string; note: string | null } {
  const span = e.spanMs === null ? null : audioLength(e.spanMs);
  if (e.kind === "download" || e.kind === "link") return { main: span ? `файл целиком, ${span}` : "файл целиком", note: null };
  if (e.heardMs === null) {
    const why = e.kind === "play" ? "плеер не сообщил (без JavaScript или API)" : "страница не сообщила";
    return { main: "нет данных", note: span ? `${why}; ${e.kind === "play" ? "запись" : "сеанс"} ${span}` : why };
  }
  const heard = audioLength(e.heardMs);
  const open = (e.kind === "listen" || e.kind === "whisper") && e.endedAt === null;
  const of = span ? ` из ${span}${open ? " (идёт)" : ""}` : "";
  const note = e.kind === "whisper" ? "слышал менеджер" : e.kind === "play" ? "записи" : "сеанса";
  return { main: `${heard}${of}`, note: span ? note : null };
}

export default function AccessLogPage() {
  const page = useLoaderData<typeof loader>();
  const errorAt = (field: AccessFilterField) => (page.error?.field === field ? page.error.message : null);
  const query = (extra: Record<string, string>) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...page.sent, ...extra })) if (value) params.set(name, value);
    return params.toString();
  };
  const href = (p: number, size: number) => `${PAGE}?${query({ size: size === 50 ? "" : String(size), page: p > 1 ? String(p) : "" })}`;
  const filtered = FILTER_NAMES.some((name) => page.sent[name]);
  const people = page.choices.people;

  return (
    <section className="space-y-4">
      <h1 className="page-title">Журнал доступа</h1>
      <p className="max-w-3xl text-sm text-slate-700 dark:text-slate-300" data-testid="access-log-law">
        Записи разговоров — персональные данные клиентов (152-ФЗ): этот журнал — запись о том, кто и когда слушал звонки, подсказывал менеджерам,
        слушал и скачивал записи, и сколько на самом деле звучал звук.
      </p>
      <Form method="get" className="card flex flex-wrap items-end gap-3" data-testid="access-log-filters">
        <ListFilter id="by-who" name="userId" label="Кто" value={page.sent.userId} choices={people} error={errorAt("userId")} />
        <ListFilter id="by-manager" name="managerId" label="Чей звонок" value={page.sent.managerId} choices={people} error={errorAt("managerId")} />
        <ListFilter
          id="by-topic"
          name="filterId"
          label="Тематика"
          value={page.sent.filterId}
          choices={page.choices.topics}
          error={errorAt("filterId")}
        />
        <DateFilter id="from" label="С (Киев)" value={page.sent.from} error={errorAt("from")} />
        <DateFilter id="to" label="По (Киев)" value={page.sent.to} error={errorAt("to")} />
        <ListFilter
          id="by-kind"
          name="kind"
          label="Действие"
          value={page.sent.kind}
          choices={ACCESS_KINDS.map((kind) => ({ id: kind, name: ACCESS_KIND_TEXT[kind] }))}
          error={errorAt("kind")}
        />
        {page.size !== 50 ? <input type="hidden" name="size" value={page.size} /> : null}
        <button type="submit" className="btn-primary">
          Показать
        </button>
        {filtered ? (
          <Link to={PAGE} className="btn-secondary">
            Сбросить
          </Link>
        ) : null}
      </Form>
      {page.error && !page.error.field ? (
        <p role="alert" className="banner-error">
          {page.error.message}
        </p>
      ) : null}

      {page.error ? null : page.total === 0 ? (
        <p className="card text-sm" data-testid="access-log-empty">
          {filtered
            ? "С такими фильтрами ничего нет: никто не слушал звонки и записи под эти условия. Измените фильтры или нажмите «Сбросить»."
            : "Пока никто не слушал звонки, не подсказывал менеджерам и не открывал записи: здесь появится каждый такой случай."}
        </p>
      ) : (
        <>
          <div className="flex flex-wrap items-center gap-3 text-sm">
            <a href={`${PAGE}/csv${query({}) ? `?${query({})}` : ""}`} className="btn-secondary" download data-testid="access-log-csv">
              Скачать CSV
            </a>
            <span className="text-slate-600 dark:text-slate-400">CSV для Excel: все {page.total} записей с этими фильтрами.</span>
          </div>
          <TableFrame className="card p-0">
            <table className="stack-table min-w-full text-sm" data-testid="access-log-table">
              <thead>
                <tr className="text-left">
                  <th className="p-2">Когда (Киев)</th>
                  <th className="p-2">Кто</th>
                  <th className="p-2">Действие</th>
                  <th className="p-2">Звонок</th>
                  <th className="p-2">Звук</th>
                </tr>
              </thead>
              <tbody>
                {page.entries.map((e) => {
                  const heard = heardText(e);
                  return (
                    <tr
                      key={`${e.kind}-${e.id}`}
                      className="border-t border-slate-200 align-top dark:border-slate-700"
                      data-testid="access-row"
                      data-kind={e.kind}
                    >
                      <td data-label="Когда (Киев)" className="whitespace-nowrap p-2">
                        <time dateTime={e.at}>{formatDateTime(e.at)}</time>
                      </td>
                      <td data-label="Кто" className="p-2">
                        {e.user?.name ?? <span className="text-slate-600 dark:text-slate-400">{accessWhoMissing(e.kind)}</span>}
                      </td>
                      <td data-label="Действие" className="p-2">
                        {ACCESS_KIND_TEXT[e.kind]}
                      </td>
                      <td data-label="Звонок" className="p-2">
                        <CallCell e={e} />
                      </td>
                      <td data-label="Звук" className="p-2" data-testid="access-heard">
                        {/* One child: on a phone the cell is a labelled row, and a second child would wrap under the label. */}
                        <div>
                          <span className="font-medium tabular-nums">{heard.main}</span>
                          {heard.note ? <span className="block text-xs text-slate-600 dark:text-slate-400">{heard.note}</span> : null}
                        </div>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </TableFrame>
        </>
      )}
      {page.error || page.total === 0 ? null : (
        <Pager page={page.page} pages={page.pages} total={page.total} size={page.size} hrefFor={href} sizes={SIZES} keep={{ ...page.sent }} />
      )}
    </section>
  );
}

/** The call: whose, its topic, the client's number (a link to the client's history), and its recording. */
function CallCell({ e }: { e: AccessEntry }) {
  if (!e.call) return <span className="text-slate-600 dark:text-slate-400">звонок удалён</span>;
  return (
    <div className="space-y-0.5">
      <div>
        {e.manager?.name ?? "—"}
        {e.topic ? <span className="text-slate-600 dark:text-slate-400"> · {e.topic.name}</span> : null}
      </div>
      <div className="text-xs text-slate-600 dark:text-slate-400">
        №{e.call.id} от {formatDateTime(e.call.startedAt)} ·{" "}
        <Link to={`/searchlead?${new URLSearchParams({ term: e.call.number })}`} className="underline" title="История клиента в поиске">
          {e.call.number}
        </Link>
        {` · ${callDirectionText(e.call.direction)}`}
        {e.call.recording === "ready" ? (
          <>
            {" · "}
            <a href={`/recordings/${e.call.id}`} className="underline">
              запись
            </a>
          </>
        ) : null}
      </div>
    </div>
  );
}

/** A Kyiv day of the form (the browser's date picker sends YYYY-MM-DD; without one it is typed). */
function DateFilter({ id, label, value, error }: { id: "from" | "to"; label: string; value: string; error: string | null }) {
  return (
    <div>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        name={id}
        type="date"
        defaultValue={value}
        className="input"
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      />
      {error ? (
        <p id={`${id}-error`} className="mt-1 max-w-xs text-sm text-red-700 dark:text-red-400" data-field-error="">
          {error}
        </p>
      ) : null}
    </div>
  );
}
