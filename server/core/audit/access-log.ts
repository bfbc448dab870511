import { TZDate } from "@date-fns/tz";
import { asc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { ACCESS_KIND_TEXT, ACCESS_KINDS, type AccessKind, accessWhoMissing } from "../../../common/access-log";
import { BUSINESS_TIME_ZONE, kyivDate, kyivInstant } from "../../../common/business-time";
import { callDirectionText } from "../../../common/call-direction";
import { type Db, queryRows } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { calls, filters, type CallDirection, type RecordingState, users } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { AppError } from "../errors";
import { CSV_BOM, csvLine } from "../exports/csv-writer";

/**
 * The access log (issue 39): who listened to or whispered into which call, who played or downloaded which
 * recording, when, and for how long the audio really played (heard.ts). Recordings are personal data (152-FZ; a
 * voice that identifies a person is biometric): this is the record of who touched them. Admins only. One list
 * of both tables (listen_sessions, recording_plays), newest first, filtered by who, whose call, topic, Kyiv dates
 * and kind; the page, the API and the CSV read it here.
 */

export { ACCESS_KIND_TEXT, ACCESS_KINDS, type AccessKind };

/** The filter each refusal is about: the page shows the message at that field. */
export const ACCESS_FILTER_FIELDS = ["userId", "managerId", "filterId", "from", "to", "kind"] as const;
export type AccessFilterField = (typeof ACCESS_FILTER_FIELDS)[number];

/** A refusal of one filter (400), with the field it names in its code: `filter_<field>`. */
const refuse = (field: AccessFilterField, message: string) => new AppError(400, `filter_${field}`, message);
export const filterFieldOf = (code: string): AccessFilterField | null => {
  const field = code.startsWith("filter_") ? code.slice(7) : "";
  return (ACCESS_FILTER_FIELDS as readonly string[]).includes(field) ? (field as AccessFilterField) : null;
};

const blankToUndefined = (value: unknown) => (value === "" || value === null ? undefined : value);
const idOf = (message: string) =>
  z.preprocess(
    blankToUndefined,
    z.coerce.number({ error: message }).int({ error: message }).positive({ error: message }).max(2147483647, { error: message }).optional(),
  );

/** A Kyiv calendar day "YYYY-MM-DD" that exists, as the instant it starts (`next`: the next day's start). */
function kyivDayStart(text: string, next: boolean): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const [y, mo, d] = [+m[1], +m[2], +m[3]];
  const check = new Date(Date.UTC(2000, mo - 1, d));
  check.setUTCFullYear(y);
  if (y < 2000 || y > 2999 || mo < 1 || mo > 12 || check.getUTCMonth() !== mo - 1 || check.getUTCDate() !== d) return null;
  return kyivInstant(y, mo, d + (next ? 1 : 0)); // TZDate rolls the 32nd over into the next month
}

const day = (label: string) =>
  z.preprocess(
    blankToUndefined,
    z
      .string({ error: `Неверная дата «${label}»: нужна дата вида 2026-11-29` })
      .max(40, { error: `Неверная дата «${label}»: нужна дата вида 2026-11-29` })
      .optional(),
  );

const querySchema = z.object({
  userId: idOf("Неверный пользователь: нужен id из списка"),
  managerId: idOf("Неверный менеджер: нужен id из списка"),
  filterId: idOf("Неверная тематика: нужен id из списка"),
  from: day("с"),
  to: day("по"),
  kind: z.preprocess(blankToUndefined, z.string().max(40).optional()),
  limit: z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: "Неверный размер страницы" })
      .int({ error: "Неверный размер страницы" })
      .min(1, { error: "Неверный размер страницы" })
      .max(500, { error: "Неверный размер страницы (не более 500)" })
      .default(100),
  ),
  offset: z.preprocess(
    blankToUndefined,
    z.coerce
      .number({ error: "Неверное смещение" })
      .int({ error: "Неверное смещение" })
      .min(0, { error: "Неверное смещение" })
      .max(10_000_000, { error: "Неверное смещение" })
      .default(0),
  ),
});

export interface AccessFilters {
  userId?: number;
  managerId?: number;
  filterId?: number;
  /** Kyiv days as sent ("2026-11-29"), and the instants they stand for: [from's start, to's end). */
  from?: string;
  to?: string;
  since?: Date;
  until?: Date;
  kind?: AccessKind;
  /** Nothing later than this (a CSV written in batches takes no entry that came meanwhile). */
  asOf?: Date;
}

/** The filters as sent (query string or form) checked one by one; the first wrong one is refused with its field. */
export async function readAccessFilters(db: Db, input: unknown): Promise<AccessFilters & { limit: number; offset: number }> {
  const raw = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const result = querySchema.safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0];
    const field = (ACCESS_FILTER_FIELDS as readonly string[]).includes(String(issue.path[0])) ? (String(issue.path[0]) as AccessFilterField) : null;
    if (field) throw refuse(field, issue.message);
    throw new AppError(400, "validation", issue.message);
  }
  const q = result.data;
  const out: AccessFilters & { limit: number; offset: number } = { limit: q.limit, offset: q.offset };
  if (q.kind !== undefined) {
    if (!(ACCESS_KINDS as readonly string[]).includes(q.kind))
      throw refuse("kind", "Неизвестный вид доступа: нужен listen, whisper, play, download или link");
    out.kind = q.kind as AccessKind;
  }
  if (q.from !== undefined) {
    const since = kyivDayStart(q.from, false);
    if (!since) throw refuse("from", `Неверная дата «с»: ${q.from} (нужна существующая дата вида 2026-11-29)`);
    Object.assign(out, { from: q.from.trim(), since });
  }
  if (q.to !== undefined) {
    const until = kyivDayStart(q.to, true);
    if (!until) throw refuse("to", `Неверная дата «по»: ${q.to} (нужна существующая дата вида 2026-11-29)`);
    Object.assign(out, { to: q.to.trim(), until });
  }
  if (out.since && out.until && out.since >= out.until) throw refuse("to", "Дата «по» раньше даты «с»");
  const [who, manager, topic] = await Promise.all([
    q.userId === undefined ? null : db.select({ id: users.id }).from(users).where(eq(users.id, q.userId)),
    q.managerId === undefined ? null : db.select({ id: users.id }).from(users).where(eq(users.id, q.managerId)),
    q.filterId === undefined ? null : db.select({ id: filters.id }).from(filters).where(eq(filters.id, q.filterId)),
  ]);
  if (who && who.length === 0) throw refuse("userId", `Нет пользователя с id ${q.userId}`);
  if (manager && manager.length === 0) throw refuse("managerId", `Нет менеджера с id ${q.managerId}`);
  if (topic && topic.length === 0) throw refuse("filterId", `Нет тематики с id ${q.filterId}`);
  Object.assign(out, { userId: q.userId, managerId: q.managerId, filterId: q.filterId });
  return out;
}

/**
 * The union of both tables with the filters applied to each; its columns: kind, id, at, …. Ordered by `at` alone
 * (and id), each branch is a backward walk of its `at` index that Postgres merges (Merge Append), so a page is read
 * without sorting the tables; a branch joins its calls only when a filter needs them (every play has its call).
 */
/** A branch's WHERE, or none: a constant `where true` keeps Postgres from merging the branches' index walks. */
const whereOf = (conditions: SQL[]) => (conditions.length ? sql`where ${sql.join(conditions, sql` and `)}` : sql``);

function entries(f: AccessFilters): SQL {
  const sessionKinds = f.kind === undefined ? ["listen", "whisper"] : f.kind === "listen" || f.kind === "whisper" ? [f.kind] : [];
  // recording_plays holds three kinds: a play, a download, a fetch by a webhook's signed link (a download too).
  const playCondition = { play: sql`not rp.download`, download: sql`rp.download and not rp.by_link`, link: sql`rp.by_link` };
  const playKind = f.kind === "play" || f.kind === "download" || f.kind === "link" ? f.kind : null;
  const parts: SQL[] = [];
  const ms = (column: SQL) => sql`(extract(epoch from ${column}) * 1000)::float8`;
  if (sessionKinds.length > 0) {
    const where: SQL[] = sessionKinds.length === 1 ? [sql`ls.kind = ${sessionKinds[0]}`] : [];
    if (f.userId !== undefined) where.push(sql`ls.admin_id = ${f.userId}`);
    if (f.managerId !== undefined) where.push(sql`ls.manager_id = ${f.managerId}`);
    if (f.filterId !== undefined) where.push(sql`c.filter_id = ${f.filterId}`);
    if (f.since) where.push(sql`ls.started_at >= ${f.since.toISOString()}::timestamptz`);
    if (f.until) where.push(sql`ls.started_at < ${f.until.toISOString()}::timestamptz`);
    if (f.asOf) where.push(sql`ls.started_at <= ${f.asOf.toISOString()}::timestamptz`);
    parts.push(sql`select ls.kind as kind, ls.id as id, ls.started_at as at, ${ms(sql`ls.ended_at`)} as ended_ms,
        ls.admin_id as user_id, ls.manager_id as manager_id, ls.call_id as call_id, ls.heard_ms as heard_ms,
        ${ms(sql`ls.first_heard_at`)} as first_heard_ms, ${ms(sql`ls.last_heard_at`)} as last_heard_ms
      from listen_sessions ls ${f.filterId === undefined ? sql`` : sql`join calls c on c.id = ls.call_id`}
      ${whereOf(where)}`);
  }
  if (f.kind === undefined || playKind) {
    const where: SQL[] = playKind ? [playCondition[playKind]] : [];
    if (f.userId !== undefined) where.push(sql`rp.user_id = ${f.userId}`);
    if (f.managerId !== undefined) where.push(sql`c.user_id = ${f.managerId}`);
    if (f.filterId !== undefined) where.push(sql`c.filter_id = ${f.filterId}`);
    if (f.since) where.push(sql`rp.at >= ${f.since.toISOString()}::timestamptz`);
    if (f.until) where.push(sql`rp.at < ${f.until.toISOString()}::timestamptz`);
    if (f.asOf) where.push(sql`rp.at <= ${f.asOf.toISOString()}::timestamptz`);
    parts.push(sql`select case when rp.by_link then 'link' when rp.download then 'download' else 'play' end as kind, rp.id as id, rp.at as at,
        null::float8 as ended_ms, rp.user_id as user_id, null::int as manager_id, rp.call_id as call_id,
        rp.played_ms as heard_ms, null::float8 as first_heard_ms, null::float8 as last_heard_ms
      from recording_plays rp ${f.filterId === undefined && f.managerId === undefined ? sql`` : sql`join calls c on c.id = rp.call_id`}
      ${whereOf(where)}`);
  }
  return parts.length === 0 ? sql`select null where false` : sql.join(parts, sql` union all `);
}

/** A raw row, checked at the boundary (the two drivers give numbers and bigints differently). */
const num = z.coerce.number();
const rawEntry = z.object({
  kind: z.enum(ACCESS_KINDS),
  id: num,
  at_ms: num,
  ended_ms: num.nullable(),
  user_id: num.nullable(),
  manager_id: num.nullable(),
  call_id: num.nullable(),
  heard_ms: num.nullable(),
  first_heard_ms: num.nullable(),
  last_heard_ms: num.nullable(),
});

export interface AccessEntry {
  kind: AccessKind;
  /** The session's or the play's own id (with the kind, unique). */
  id: number;
  /** When the listening began, or the recording was first asked for (ISO 8601). */
  at: string;
  /** When the listening ended; null while it goes on, and for recordings. */
  endedAt: string | null;
  user: { id: number; name: string } | null;
  manager: { id: number; name: string } | null;
  topic: { id: number; name: string } | null;
  call: {
    id: number;
    number: string;
    direction: CallDirection;
    startedAt: string;
    recording: RecordingState | null;
    recordingMs: number | null;
  } | null;
  /**
   * How long the audio really played, in ms: heard by the listening page (for a whisper, the manager's), or the
   * part of the recording its player played; a download is the whole file. Null: the page never said.
   */
  heardMs: number | null;
  /** What it could have been: the session's span (to now while it goes on), or the recording's length. */
  spanMs: number | null;
  firstHeardAt: string | null;
  lastHeardAt: string | null;
}

const iso = (msValue: number | null) => (msValue === null ? null : new Date(msValue).toISOString());
const nameOf = (row: { displayName: string; login: string }) => row.displayName.trim() || row.login;

async function rowsOf(db: Db, f: AccessFilters, page: { limit: number; offset: number }, now = Date.now()): Promise<AccessEntry[]> {
  const raw = await queryRows(
    db,
    sql`select kind, id, (extract(epoch from at) * 1000)::float8 as at_ms, ended_ms, user_id, manager_id, call_id, heard_ms, first_heard_ms, last_heard_ms
        from (${entries(f)}) e order by at desc, id desc limit ${page.limit} offset ${page.offset}`,
  );
  const rows = raw.map((row) => rawEntry.parse(row));
  // A play's manager is its call's, read here with the call; a session's is its own.
  const callIds = [...new Set(rows.map((r) => r.call_id).filter((id): id is number => id !== null))];
  const callRows = callIds.length
    ? await db
        .select({
          id: calls.id,
          userId: calls.userId,
          number: calls.number,
          direction: calls.direction,
          startedAt: calls.startedAt,
          recording: calls.recording,
          recordingMs: calls.recordingMs,
          topicId: filters.id,
          topicName: filters.name,
        })
        .from(calls)
        .leftJoin(filters, eq(filters.id, calls.filterId))
        .where(inArray(calls.id, callIds))
    : [];
  const callOf = new Map(callRows.map((c) => [c.id, c]));
  const managerOf = (r: (typeof rows)[number]) =>
    r.kind === "listen" || r.kind === "whisper" ? r.manager_id : (callOf.get(r.call_id ?? 0)?.userId ?? null);
  const userIds = [...new Set(rows.flatMap((r) => [r.user_id, managerOf(r)]).filter((id): id is number => id !== null))];
  const people = userIds.length
    ? await db.select({ id: users.id, login: users.login, displayName: users.displayName }).from(users).where(inArray(users.id, userIds))
    : [];
  const person = new Map(people.map((p) => [p.id, { id: p.id, name: nameOf(p) }]));
  return rows.map((r) => {
    const call = r.call_id === null ? undefined : callOf.get(r.call_id);
    const session = r.kind === "listen" || r.kind === "whisper";
    const managerId = managerOf(r);
    const spanMs = session ? Math.max(0, (r.ended_ms ?? now) - r.at_ms) : (call?.recordingMs ?? null);
    return {
      kind: r.kind,
      id: r.id,
      at: new Date(r.at_ms).toISOString(),
      endedAt: iso(r.ended_ms),
      user: r.user_id === null ? null : (person.get(r.user_id) ?? null),
      manager: managerId === null ? null : (person.get(managerId) ?? null),
      topic: call?.topicId ? { id: call.topicId, name: call.topicName ?? "" } : null,
      call: call
        ? {
            id: call.id,
            number: call.number,
            direction: call.direction,
            startedAt: call.startedAt.toISOString(),
            recording: call.recording,
            recordingMs: call.recordingMs,
          }
        : null,
      heardMs: r.kind === "download" || r.kind === "link" ? (call?.recordingMs ?? null) : r.heard_ms,
      spanMs: session ? Math.round(spanMs ?? 0) : spanMs,
      firstHeardAt: iso(r.first_heard_ms),
      lastHeardAt: iso(r.last_heard_ms),
    };
  });
}

/** GET /api/v1/access-log and the page: one page of the log, newest first, and how many entries match. */
export async function listAccessLog(
  db: Db,
  actor: Actor,
  input: unknown,
): Promise<{ total: number; entries: AccessEntry[]; filters: AccessFilters }> {
  requireAdmin(actor);
  const { limit, offset, ...f } = await readAccessFilters(db, input);
  const [[{ total }], rows] = await Promise.all([
    selectRows(db, { total: sql<string | number>`count(*)` }, (list) => sql`select ${list} from (${entries(f)}) e`),
    rowsOf(db, f, { limit, offset }),
  ]);
  return { total: Number(total), entries: rows, filters: f };
}

/** The people and topics the filters choose from. */
export async function accessLogChoices(db: Db, actor: Actor) {
  requireAdmin(actor);
  const [people, topics] = await Promise.all([
    db.select({ id: users.id, login: users.login, displayName: users.displayName, isAdmin: users.isAdmin }).from(users).orderBy(asc(users.login)),
    db.select({ id: filters.id, name: filters.name }).from(filters).orderBy(asc(filters.name)),
  ]);
  return {
    people: people.map((p) => ({
      id: p.id,
      name: p.displayName.trim() && p.displayName !== p.login ? `${p.displayName} (${p.login})` : p.login,
      isAdmin: p.isAdmin,
    })),
    topics,
  };
}

const pad = (n: number) => String(n).padStart(2, "0");
/** "29.11.2026 10:00:05" in Kyiv: Excel in Russian reads it as a date and time (with a comma it stays text). */
export function csvKyiv(at: string | null): string {
  if (!at) return "";
  const k = new TZDate(new Date(at).getTime(), BUSINESS_TIME_ZONE);
  return `${pad(k.getDate())}.${pad(k.getMonth() + 1)}.${k.getFullYear()} ${pad(k.getHours())}:${pad(k.getMinutes())}:${pad(k.getSeconds())}`;
}
const seconds = (msValue: number | null) => (msValue === null ? "" : String(Math.round(msValue / 1000)));

export const ACCESS_CSV_HEADER = [
  "Когда (Киев)",
  "Кто",
  "Действие",
  "Менеджер",
  "Тематика",
  "Звонок №",
  "Номер клиента",
  "Направление",
  "Звонок начат (Киев)",
  "Звук, с",
  "Из них возможно, с",
  "Звук начался (Киев)",
  "Звук кончился (Киев)",
] as const;

function csvCells(e: AccessEntry): string[] {
  return [
    csvKyiv(e.at),
    e.user?.name ?? accessWhoMissing(e.kind),
    ACCESS_KIND_TEXT[e.kind],
    e.manager?.name ?? "",
    e.topic?.name ?? "",
    e.call ? String(e.call.id) : "",
    e.call?.number ?? "",
    e.call ? callDirectionText(e.call.direction) : "",
    csvKyiv(e.call?.startedAt ?? null),
    seconds(e.heardMs),
    seconds(e.spanMs),
    csvKyiv(e.firstHeardAt),
    csvKyiv(e.lastHeardAt),
  ];
}

/** Rows a CSV reads from the database at a time. */
const CSV_BATCH = 5_000;

/**
 * The whole filtered log as CSV, the way the project's exports write it (decision 030: UTF-8 with a BOM, `;`,
 * CRLF, formulas guarded): the header, then every entry, newest first, read a batch at a time.
 */
export async function* accessLogCsv(db: Db, actor: Actor, input: unknown): AsyncGenerator<string> {
  requireAdmin(actor);
  const { limit: _limit, offset: _offset, ...filters } = await readAccessFilters(db, input);
  const f = { ...filters, asOf: new Date() };
  yield CSV_BOM + csvLine(ACCESS_CSV_HEADER);
  for (let offset = 0; ; offset += CSV_BATCH) {
    const rows = await rowsOf(db, f, { limit: CSV_BATCH, offset });
    if (rows.length > 0) yield rows.map((row) => csvLine(csvCells(row))).join("");
    if (rows.length < CSV_BATCH) return;
  }
}

/** The file's name: the days it covers, else today's date. */
export function accessLogCsvName(f: AccessFilters, now = new Date()): string {
  const span = f.from || f.to ? `${f.from ?? "start"}_${f.to ?? kyivDate(now)}` : kyivDate(now);
  return `access-log-${span}.csv`;
}
