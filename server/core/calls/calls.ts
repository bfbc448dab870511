import { and, count, desc, eq, gte, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { type Db, queryRows } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import {
  CALL_DIRECTIONS,
  CALL_OUTCOMES,
  calls,
  contacts,
  filters,
  users,
  type CallDirection,
  type CallOutcome,
  type RecordingState,
} from "../../../db/schema";
import { recordingNote, shownRecording } from "../recordings/recordings";
import { enqueueFrom } from "../webhooks/queue";
import { type Actor, requireAdmin, requireSelfOrAdmin } from "../actor";
import { phoneKey, phonesIn } from "../bases/phone";
import { badRequest, forbidden, notFound } from "../errors";
import { doNotCallKey, isListed } from "../dnc/dnc";
import { DO_NOT_CALL_REFUSAL, type ProxyRefusal } from "../../../common/sip-reasons";
import { callNumbersOfDay } from "../statistics/call-numbers";
import { bigIdSchema, contactIdSchema, idSchema, parseInput } from "../validation";
import { outcomeOfSipCode, sipReason } from "./sip-reasons";

/** The softphone says a call is still on every 30 s; one silent for this long ended unseen (tab closed, crash). */
export const CALL_SILENCE_SECONDS = 90;
export const KEEP_ALIVE_SECONDS = 30;
export const LOST_CALL_REASON = "Связь с браузером прервалась";
/**
 * A call the SIP proxy admitted is ended by the proxy's own report (decision 049), never by the browser's silence;
 * one still open after Kamailio's longest dialog (4 hours) lost that report (the app was down at its end).
 */
export const PROXY_CALL_MAX_SECONDS = 14_400 + 300;
export const NUMBER_NOT_CLIENTS = "Этот номер не принадлежит клиенту";
export const CALL_NOT_FOUND = "Звонок не найден";

const callIdSchema = bigIdSchema("Неверный идентификатор звонка");

export const startCallSchema = z.object({
  number: z
    .string({ error: "Укажите номер" })
    .trim()
    .min(1, { error: "Укажите номер" })
    .max(40, { error: "Неверный номер телефона" })
    .regex(/^[+\d\s().*#-]+$/, { error: "Неверный номер телефона" }),
  direction: z.enum(CALL_DIRECTIONS, { error: "Неверное направление звонка" }).default("out"),
  contactId: contactIdSchema.optional(),
  /** The SIP Call-ID, where the proxy's report of the same call meets this one (decision 049). */
  sipCallId: z.string().trim().min(1).max(255, { error: "Неверный Call-ID" }).optional(),
});

/**
 * How a call ended, as the softphone saw it: `sipCode` when the other side or the PBX refused it; otherwise the
 * cause: hung up here, ended by the other side, nobody answered in time, could not be dialled, connection lost.
 */
export const endCallSchema = z.object({
  sipCode: z.number({ error: "Неверный код SIP" }).int().min(300, { error: "Неверный код SIP" }).max(699, { error: "Неверный код SIP" }).optional(),
  cause: z.enum(["hangup", "remote", "timeout", "dial", "lost"], { error: "Неверная причина завершения" }).default("remote"),
  /** The reason phrase that came with sipCode: the telephony stack's own refusals are told apart by it. */
  phrase: z.string().trim().max(100, { error: "Неверная причина SIP" }).optional(),
});
export type CallEnd = z.infer<typeof endCallSchema>;

/** The outcome and reason of a call that ended; a call that was answered is answered whatever ended it. */
export function callOutcome(
  answered: boolean,
  direction: CallDirection,
  end: CallEnd,
  /** The reason phrase of the proxy's own refusal (PROXY_REFUSALS in common/sip-reasons.ts). */
  phrase?: string,
): { outcome: CallOutcome; reason: string | null } {
  if (answered) return { outcome: "answered", reason: null };
  if (end.sipCode !== undefined) return { outcome: outcomeOfSipCode(end.sipCode), reason: sipReason(end.sipCode, phrase) };
  switch (end.cause) {
    case "hangup":
      return { outcome: "cancelled", reason: direction === "in" ? "Вызов отклонён" : "Вызов отменён" };
    case "timeout":
      return { outcome: "no_answer", reason: "Абонент не отвечает" };
    case "dial":
      return { outcome: "failed", reason: "Ошибка набора" };
    case "lost":
      return { outcome: "failed", reason: "Связь с телефонией прервалась" };
    case "remote":
      return direction === "in" ? { outcome: "no_answer", reason: "Пропущенный вызов" } : { outcome: "failed", reason: "Вызов прерван" };
  }
}

/** A call's talk time in whole seconds, rounded, not cut (issue 41 §14: a 10.79 s call was logged as 10 s). */
const talkSecondsUntil = (end: SQL) =>
  sql`case when ${calls.answeredAt} is null then 0 else greatest(0, round(extract(epoch from (${end} - ${calls.answeredAt}))))::int end`;

/**
 * Queues `call.ended` for these calls (issue 44), in the caller's transaction: direction, talk time, outcome, for the
 * webhooks that want it (none: nothing is written).
 */
async function callsEnded(db: Db, ids: number[]): Promise<void> {
  if (ids.length === 0) return;
  await queryRows(
    db,
    sql`${enqueueFrom(sql`
      select 'call.ended' as kind, 'msg_call_ended_' || c.id as mid, c.contact_id as client, c.id as n,
        jsonb_build_object('callId', c.id, 'clientId', c.contact_id, 'user', case when u.id is null then null else
          jsonb_build_object('id', u.id, 'login', u.login) end, 'number', c.number, 'direction', c.direction,
          'startedAt', c.started_at, 'answeredAt', c.answered_at, 'endedAt', c.ended_at, 'talkSeconds', c.talk_seconds,
          'outcome', c.outcome, 'reason', c.reason, 'sipCode', c.sip_code, 'filterId', c.filter_id) as data
      from calls c left join users u on u.id = c.user_id
      where c.id = any(${`{${ids.join(",")}}`}::bigint[]) and exists (select 1 from webhooks where enabled)`)} returning id`,
  );
}

/** Closes open calls nobody closed: they ended when they were last heard of. */
async function closeUnseen(db: Db, where: SQL | undefined): Promise<number> {
  return db.transaction(async (tx) => {
    const closed = await closeUnseenRows(tx as unknown as Db, where);
    await callsEnded(tx as unknown as Db, closed);
    return closed.length;
  });
}

async function closeUnseenRows(db: Db, where: SQL | undefined): Promise<number[]> {
  const closed = await db
    .update(calls)
    .set({
      endedAt: sql`${calls.lastSeenAt}`,
      talkSeconds: talkSecondsUntil(sql`${calls.lastSeenAt}`),
      outcome: sql`case when ${calls.answeredAt} is null then 'failed' else 'answered' end`,
      reason: sql`case when ${calls.answeredAt} is null then ${LOST_CALL_REASON} else null end`,
    })
    .where(and(isNull(calls.endedAt), where))
    .returning({ id: calls.id });
  return closed.map((row) => Number(row.id));
}

/** The phone keys written in a contact's phone field. */
const phoneKeysOf = (phone: string, region: string) => phonesIn(phone).map((one) => phoneKey(one, region));

/** A call the telephony's policy refused (the proxy's check, or the log's own for a call it reports): closed now, never answered. */
export const refusedCall = (phrase: ProxyRefusal) => ({
  endedAt: sql`now()`,
  answeredAt: null,
  talkSeconds: 0,
  outcome: "failed" as const,
  sipCode: 403,
  reason: sipReason(403, phrase),
});

/**
 * A call is started: dialled from the softphone (with the lead's contact when dialled from the lead panel), or
 * ringing in. The contact must be one whose phone is the number dialled. With the SIP Call-ID, a row the proxy
 * already opened for the call is the one answered (the browser only adds the contact).
 */
export async function startCall(db: Db, actor: Actor, input: unknown, region: string): Promise<{ id: number }> {
  const { number, direction, contactId, sipCallId } = parseInput(startCallSchema, input);
  if (contactId !== undefined) {
    const [contact] = await db.select({ heldBy: contacts.heldBy, phone: contacts.phone }).from(contacts).where(eq(contacts.id, contactId));
    if (!contact) throw notFound("Клиент не найден");
    if (!actor.isAdmin && contact.heldBy !== actor.id) throw forbidden("Этот клиент сейчас не закреплён за вами");
    if (!phoneKeysOf(contact.phone, region).includes(phoneKey(number, region))) throw badRequest(NUMBER_NOT_CLIENTS, "number_not_clients");
  }
  // A call out to a number on the do-not-call list is logged as refused, as the proxy logs it (a softphone that
  // dialled past its page, or past no proxy at all), and the report is refused.
  const key = direction === "out" ? doNotCallKey(number, region) : null;
  const listed = key !== null && (await selectRows(db, { listed: sql<boolean>`${isListed(sql`${key}`)}` }, (list) => sql`select ${list}`))[0].listed;
  const refused = listed ? refusedCall("Do Not Call") : {};
  const started = await db.transaction(async (tx) => {
    // One line per manager: another call still open when this one starts has ended without word from its browser.
    const otherCall = sipCallId === undefined ? undefined : or(isNull(calls.sipCallId), ne(calls.sipCallId, sipCallId));
    await closeUnseen(tx, and(eq(calls.userId, actor.id), eq(calls.byProxy, false), otherCall));
    // The row of this manager's SIP call, when the proxy (or an earlier report) opened it: this report only adds the
    // contact. Looked for first: an insert that meets it ON CONFLICT has already drawn an id from the sequence, so
    // every call took two ids (issue 41 §14). The upsert stays for a proxy's row written in between.
    if (sipCallId !== undefined) {
      const [found] = await tx
        .update(calls)
        .set({ contactId: sql`coalesce(${calls.contactId}, ${contactId ?? null}::bigint)` })
        .where(and(eq(calls.userId, actor.id), eq(calls.sipCallId, sipCallId)))
        .returning({ id: calls.id });
      if (found) return { id: found.id };
    }
    const [row] = await tx
      .insert(calls)
      .values({
        userId: actor.id,
        number,
        direction,
        contactId: contactId ?? null,
        sipCallId: sipCallId ?? null,
        filterId: topicOf(actor.id),
        ...refused,
      })
      .onConflictDoUpdate({
        target: [calls.userId, calls.sipCallId],
        targetWhere: sql`sip_call_id is not null`,
        set: { contactId: sql`coalesce(${calls.contactId}, excluded.contact_id)` },
      })
      .returning({ id: calls.id });
    return { id: row.id };
  });
  if (listed) throw forbidden(DO_NOT_CALL_REFUSAL, "do_not_call");
  return started;
}

/** The manager's topic now (users.getting_filter, 0 for none), as the proxy writes it: the call counts in it. */
const topicOf = (userId: number) => sql`(select f.id from ${filters} f join ${users} u on u.getting_filter = f.id where u.id = ${userId})`;

/** The actor's own call (404 for anyone else's, so ids reveal nothing). */
async function ownCall(db: Db, actor: Actor, rawId: unknown) {
  const id = parseInput(callIdSchema, rawId);
  const [call] = await db
    .select()
    .from(calls)
    .where(and(eq(calls.id, id), eq(calls.userId, actor.id)));
  if (!call) throw notFound(CALL_NOT_FOUND);
  return call;
}

/** The browser's reports write only calls the proxy does not vouch for; the proxy's own reports write the rest. */
const browsersToWrite = (id: number) => and(eq(calls.id, id), isNull(calls.endedAt), eq(calls.byProxy, false));

/** The other side answered (or the manager answered an incoming call). Later reports of an ended call change nothing. */
export async function answerCall(db: Db, actor: Actor, id: unknown): Promise<void> {
  const call = await ownCall(db, actor, id);
  await db
    .update(calls)
    .set({ answeredAt: sql`coalesce(${calls.answeredAt}, now())`, lastSeenAt: sql`now()` })
    .where(browsersToWrite(call.id));
}

/** The softphone's "still on" every KEEP_ALIVE_SECONDS during a call. */
export async function keepCallAlive(db: Db, actor: Actor, id: unknown): Promise<void> {
  const call = await ownCall(db, actor, id);
  await db
    .update(calls)
    .set({ lastSeenAt: sql`now()` })
    .where(browsersToWrite(call.id));
}

/** The call ended: its outcome, reason and talk time. Ending it twice keeps the first ending. */
export async function endCall(db: Db, actor: Actor, id: unknown, input: unknown): Promise<PresentedCall> {
  const call = await ownCall(db, actor, id);
  const end = parseInput(endCallSchema, input ?? {});
  if (call.endedAt === null && !call.byProxy) await writeCallEnd(db, browsersToWrite(call.id), call, end);
  const [row] = await listCallRows(db, eq(calls.id, call.id), 1, 0);
  return row;
}

/**
 * Ends a call now, the one way every report does: its outcome and reason from what ended it, its talk time from
 * the answer. `where` says which row may still be written (open, and whose report this is).
 */
export async function writeCallEnd(
  db: Db,
  where: SQL | undefined,
  call: { answeredAt: Date | null; direction: CallDirection },
  end: CallEnd,
  /** When it ended (the proxy's time of the event); now by default. */
  endedAt: SQL = sql`now()`,
): Promise<void> {
  const { outcome, reason } = callOutcome(call.answeredAt !== null, call.direction, end, end.phrase);
  await db.transaction(async (tx) => {
    const ended = await tx
      .update(calls)
      .set({
        endedAt,
        lastSeenAt: sql`now()`,
        talkSeconds: talkSecondsUntil(endedAt),
        outcome,
        reason,
        sipCode: call.answeredAt === null ? (end.sipCode ?? null) : null,
      })
      .where(where)
      .returning({ id: calls.id });
    await callsEnded(
      tx as unknown as Db,
      ended.map((row) => Number(row.id)),
    );
  });
}

/**
 * The server's sweep: every open call only the browser reports, not heard from for CALL_SILENCE_SECONDS, is closed.
 * A call the proxy admitted is never judged by last_seen_at (nothing refreshes it during the call: issue 39): it is
 * closed only once it started longer ago than PROXY_CALL_MAX_SECONDS, when the proxy's end report was surely lost.
 */
export function closeSilentCalls(db: Db, silenceSeconds = CALL_SILENCE_SECONDS): Promise<number> {
  const olderThan = (column: typeof calls.lastSeenAt | typeof calls.startedAt, seconds: number) =>
    lt(column, sql`now() - make_interval(secs => ${seconds})`);
  return closeUnseen(
    db,
    or(
      and(eq(calls.byProxy, false), olderThan(calls.lastSeenAt, silenceSeconds)),
      and(eq(calls.byProxy, true), olderThan(calls.startedAt, PROXY_CALL_MAX_SECONDS)),
    ),
  );
}

export interface PresentedCall {
  id: number;
  userId: number | null;
  userLogin: string | null;
  contactId: number | null;
  number: string;
  direction: CallDirection;
  startedAt: string;
  answeredAt: string | null;
  endedAt: string | null;
  talkSeconds: number;
  outcome: CallOutcome | null;
  sipCode: number | null;
  reason: string | null;
  /** The recording: null (not recorded), pending, ready, failed, expired, disk_full; and what the row says of it. */
  recording: RecordingState | null;
  recordingNote: string | null;
}

async function listCallRows(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<PresentedCall[]> {
  const rows = await db
    .select({ call: calls, userLogin: users.login })
    .from(calls)
    .leftJoin(users, eq(users.id, calls.userId))
    .where(where)
    .orderBy(desc(calls.startedAt), desc(calls.id))
    .limit(limit)
    .offset(offset);
  return rows.map(({ call, userLogin }) => ({
    id: Number(call.id),
    userId: call.userId,
    userLogin,
    contactId: call.contactId === null ? null : Number(call.contactId),
    number: call.number,
    direction: call.direction,
    startedAt: call.startedAt.toISOString(),
    answeredAt: call.answeredAt?.toISOString() ?? null,
    endedAt: call.endedAt?.toISOString() ?? null,
    talkSeconds: call.talkSeconds,
    outcome: call.outcome,
    sipCode: call.sipCode,
    reason: call.reason,
    recording: shownRecording(call),
    recordingNote: recordingNote(call),
  }));
}

const isoInstant = (message: string) =>
  z
    .string({ error: message })
    .trim()
    .refine((text) => !Number.isNaN(Date.parse(text)), { error: message })
    .transform((text) => new Date(text));

export const listCallsSchema = z.object({
  userId: idSchema.optional(),
  contactId: contactIdSchema.optional(),
  outcome: z.enum(CALL_OUTCOMES, { error: "Неверный итог звонка" }).optional(),
  from: isoInstant("Неверная дата начала").optional(),
  to: isoInstant("Неверная дата конца").optional(),
  limit: z.coerce
    .number({ error: "Неверный размер страницы" })
    .int()
    .min(1, { error: "Неверный размер страницы" })
    .max(500, { error: "Неверный размер страницы (не более 500)" })
    .default(100),
  offset: z.coerce.number({ error: "Неверное смещение" }).int().min(0, { error: "Неверное смещение" }).max(10_000_000).default(0),
});

/** GET /api/v1/calls: an admin sees everyone's calls; a manager only his own. Newest first, with the total. */
export async function listCalls(db: Db, actor: Actor, input: unknown): Promise<{ total: number; calls: PresentedCall[] }> {
  const query = parseInput(listCallsSchema, input ?? {});
  if (query.userId !== undefined) requireSelfOrAdmin(actor, query.userId);
  const userId = actor.isAdmin ? query.userId : actor.id;
  const where = and(
    userId !== undefined ? eq(calls.userId, userId) : undefined,
    query.contactId !== undefined ? eq(calls.contactId, query.contactId) : undefined,
    query.outcome ? eq(calls.outcome, query.outcome) : undefined,
    query.from ? gte(calls.startedAt, query.from) : undefined,
    query.to ? lt(calls.startedAt, query.to) : undefined,
  );
  const [[{ total }], rows] = await Promise.all([
    db.select({ total: count() }).from(calls).where(where),
    listCallRows(db, where, query.limit, query.offset),
  ]);
  return { total: Number(total), calls: rows };
}

export interface ManagerCallDay {
  userId: number;
  login: string;
  /** The name the dashboard shows (the login when empty), as in its top managers and breaks. */
  displayName: string;
  attempts: number;
  answered: number;
  talkSeconds: number;
  /** Average talk time of the answered calls, in whole seconds. */
  averageSeconds: number;
}

/**
 * Today's calls out per manager (the Kyiv day, like every statistic) for GET /api/v1/calls/today: the managers'
 * rows of the dashboard's call numbers (decision 060), so both count alike. A deleted manager's calls are left out.
 */
export async function callStatsToday(db: Db, actor: Actor, now = new Date()): Promise<ManagerCallDay[]> {
  requireAdmin(actor);
  const { managers } = await callNumbersOfDay(db, now);
  return managers
    .filter((row): row is typeof row & { userId: number } => row.userId !== null)
    .map((row) => ({
      userId: row.userId,
      login: row.login,
      displayName: row.displayName,
      attempts: row.attempts,
      answered: row.answered,
      talkSeconds: row.talkSeconds,
      averageSeconds: row.answered > 0 ? Math.round(row.talkSeconds / row.answered) : 0,
    }));
}
