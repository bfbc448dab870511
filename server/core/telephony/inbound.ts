import { eq, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";
import { calls, users } from "../../../db/schema";
import type { Actor } from "../actor";
import type { ProxyRefusal } from "../../../common/sip-reasons";
import { formatKyiv } from "../../../common/business-time";
import { onBreak } from "../breaks/breaks";
import { CALL_SILENCE_SECONDS, PROXY_CALL_MAX_SECONDS } from "../calls/calls";
import { sipReason } from "../calls/sip-reasons";
import { doNotCallKey } from "../dnc/dnc";
import { holdOutOfTurn, lockUser } from "../leads/allocation";
import { sessionIsLive } from "../auth/live-session";
import { parseInput } from "../validation";
import { requireTelephonySecret, type TelephonySecrets } from "./shared-secret";
import { ADVISORY_LOCK } from "../../../db/locks";

/**
 * Who takes a client's call in (issue 42). For an INVITE from the carrier to one of the trunk's numbers, Kamailio
 * asks the app (route[FROM_TRUNK], the same secret and bounded wait as the call check of decision 049); the app
 * answers with the manager to ring, by these rules, the first that finds a free manager (a carrier that dials a
 * manager's own extension rings him first):
 *   1. the manager who last called this number;
 *   2. else a manager of the client's topic (a topic with the client's base, chosen as his), the one idle longest;
 *   3. else a manager of the topic whose trunk number was dialled (filters.inbound_number), idle longest;
 *   4. else nobody: 486 when managers are on the line but all busy, 480 when none is; the call is a missed call.
 * Free: signed in, «Принимать входящие» on, not on a break, no call of his open (a call ringing him counts: one
 * ringing at a time), and not already rung for this call (`tried`: Kamailio's list, also of the managers whose
 * softphone was not registered, which only Kamailio knows). A call rings at most `inbound_max_managers` managers.
 * Each ringing opens a row in the call log for that manager, written by the proxy's events from then on.
 */

export const routeInboundSchema = z.object({
  /** The caller's number as the carrier sent it (From's user part). */
  number: z.string({ error: "Укажите номер" }).trim().min(1, { error: "Укажите номер" }).max(64, { error: "Неверный номер телефона" }),
  /** The trunk's number the client dialled (the INVITE's request URI), digits. */
  did: z.string().trim().max(64, { error: "Неверный номер линии" }).default(""),
  sipCallId: z.string({ error: "Укажите Call-ID" }).trim().min(1, { error: "Укажите Call-ID" }).max(255, { error: "Неверный Call-ID" }),
  /** The SIP logins already rung (or found unregistered) for this call, comma-separated. */
  tried: z.string().trim().max(2000, { error: "Слишком длинный список" }).default(""),
});

/** The proxy's phrases for a call in that rings nobody (PROXY_REFUSALS in common/sip-reasons.ts says them in Russian). */
export type InboundRefusal = Extract<ProxyRefusal, "Managers Busy" | "No Managers" | "Nobody Answered">;

export type InboundRoute =
  | { ring: true; callId: number; login: string; userId: number; rule: 0 | 1 | 2 | 3; record: boolean; ringSeconds: number }
  | { ring: false; callId: number; sipCode: 480 | 486; phrase: InboundRefusal };

/** A call that rang a manager and was never answered stops counting as his after this long (a lost end report). */
const RINGING_MAX_SECONDS = 300;

/**
 * SQL: the user `userId` has a call open now (talking, dialling or being rung), other than the call of Call-ID
 * `except`. The proxy's rows by its facts (a row not answered counts for RINGING_MAX_SECONDS: its end report may
 * have been lost), the browser's by its keep-alives.
 */
function inACall(userId: SQL, except: string): SQL {
  return sql`exists (select 1 from calls oc where oc.user_id = ${userId} and oc.ended_at is null
    and oc.sip_call_id is distinct from ${except} and case when oc.by_proxy
    then oc.started_at > now() - make_interval(secs => case when oc.answered_at is null then ${RINGING_MAX_SECONDS}::int else ${PROXY_CALL_MAX_SECONDS}::int end)
    else oc.last_seen_at > now() - make_interval(secs => ${CALL_SILENCE_SECONDS}::int) end)`;
}

/** SQL: the manager who last called the number `key` (E.164 digits) from the lead panel (the call log), or null. */
const lastCallerOf = (key: string) =>
  sql`(select cl.user_id from calls cl
    where cl.direction = 'out' and cl.user_id is not null
      and cl.contact_id in (select k.id from contacts k where k.phone_key = ${key} and ${key} <> '')
    order by cl.started_at desc limit 1)`;

/**
 * Which candidates a look considers: the dialled extension and the manager who last called the client (rules 0
 * and 1, at most two managers: the common call back, answered by the first look), or every rule.
 */
type CandidateRules = "own" | "all";

/** The call as the routing reads it: the client's number key, the dialled extension and trunk number, the logins tried. */
interface CallAsked {
  key: string;
  did: string;
  trunkKey: string;
  tried: string;
  sipCallId: string;
}

/**
 * SQL: the CTEs `client` (his most recently worked contact with this number), `facts` (the call's facts: the
 * client, the manager who last called him, by the call log, else the contact's last manager, the trunk number's
 * topic, the settings) and `cand` (every candidate of rules 0-3, each manager once with his best rule).
 */
function callFacts(call: CallAsked, rules: CandidateRules): SQL {
  const { key, did, trunkKey } = call;
  // Rules 2 and 3 are every manager of a topic, each with his idle time to read: left out of the first look.
  const topicRules =
    rules === "all"
      ? sql`
        union all
        select u.id, 2 from users u
        where u.getting_filter in (select fd.filter_id from filter_databases fd join filters tf on tf.id = fd.filter_id and tf.is_active
          where fd.database_id = (select database_id from facts))
        union all
        select u.id, 3 from users u where u.getting_filter = (select trunk_topic from facts)`
      : sql``;
  return sql`client as (
      select c.id, c.database_id, c.last_user_id from contacts c where c.phone_key = ${key} and ${key} <> ''
      order by c.status_at desc nulls last, c.id desc limit 1),
    facts as (
      select (select id from client) as contact_id, (select database_id from client) as database_id,
        coalesce(${lastCallerOf(key)}, (select last_user_id from client)) as caller_id,
        (select f.id from filters f where f.inbound_number = ${trunkKey} and ${trunkKey} <> '' and f.is_active order by f.id limit 1) as trunk_topic,
        coalesce(st.inbound_ring_seconds, 20) as ring_seconds, coalesce(st.inbound_max_managers, 3) as max_managers
      from (select 1) one left join settings st on st.id = 1),
    cand as (
      select id, min(rule) as rule from (
        select u.id, 0 as rule from users u where u.sip_login = ${did} and ${did} <> ''
        union all
        select caller_id, 1 from facts where caller_id is not null${topicRules}) every_rule
      group by id)`;
}

/** SQL: the manager `u` may be rung: on the line (SIP login, «Принимать входящие», signed in). */
const onLine = sql`(u.sip_login <> '' and u.accepts_inbound and exists (select 1 from sessions s where s.user_id = u.id and ${sessionIsLive(sql`s`)}))`;

/** The best free candidates of a call, at most this many (the next ones when a call asked at the same time takes one). */
const PICKED = 5;

const pickColumns = {
  contact_id: sql<string | number | null>`facts.contact_id`,
  caller_id: sql<number | null>`facts.caller_id`,
  trunk_topic: sql<number | null>`facts.trunk_topic`,
  ring_seconds: sql<number>`facts.ring_seconds`,
  max_managers: sql<number>`facts.max_managers`,
  id: sql<number | null>`pick.id`,
  sip_login: sql<string | null>`pick.sip_login`,
  rule: sql<number | null>`pick.rule`,
  topic: sql<number | null>`pick.topic`,
  record: sql<boolean | null>`pick.record`,
};
type Picked = RowOf<typeof pickColumns>;

/**
 * The facts of the call and its best free candidates, best first (rule, then the one idle longest), in one
 * statement: free is on the line, not on a break, no call of his open (a call ringing him counts: one ringing at a
 * time) and not tried already by Kamailio; none once the call has rung `max_managers`. Managers in `skip` were taken
 * meanwhile by calls asked at the same time. Being rung by this very call does not make him busy: Kamailio asks
 * again when the app's answer came too late (the same answer again). One row with the facts when nobody is free.
 */
async function pickCandidates(db: Db, call: CallAsked, skip: number[], rules: CandidateRules): Promise<Picked[]> {
  const idle = sql`(select coalesce(lc.ended_at, lc.started_at) from calls lc where lc.user_id = u.id order by lc.started_at desc limit 1)`;
  return selectRows(
    db,
    pickColumns,
    (list) => sql`with ${callFacts(call, rules)}
      select ${list}
      from facts
      left join lateral (
        select u.id, u.sip_login, cand.rule, f.id as topic, coalesce(f.record_calls, false) as record,
          case when cand.rule >= 2 then ${idle} end as idle
        from cand
        join users u on u.id = cand.id
        left join filters f on f.id = u.getting_filter
        where coalesce(array_length(string_to_array(${call.tried}, ','), 1), 0) < facts.max_managers
          and not (u.sip_login = any(string_to_array(${call.tried}, ',')))
          and not (u.id = any(string_to_array(${skip.join(",")}, ',')::int[]))
          and ${onLine} and not ${onBreak(sql`u.id`)} and not ${inACall(sql`u.id`, call.sipCallId)}
        order by cand.rule, idle asc nulls first, u.id
        limit ${sql.raw(String(PICKED))}) pick on true
      order by pick.rule, pick.idle asc nulls first, pick.id`,
  );
}

/**
 * For a call that rings nobody: whether a candidate is on the line (busy, 486, rather than unavailable, 480), and
 * the topic of the missed call (the last caller's, else the trunk number's).
 */
async function nobodyFree(db: Db, call: CallAsked) {
  const [row] = await selectRows(
    db,
    {
      on_line: sql<boolean>`exists (select 1 from cand join users u on u.id = cand.id where ${onLine})`,
      topic: sql<
        number | null
      >`coalesce((select f.id from users u join filters f on f.id = u.getting_filter where u.id = facts.caller_id), facts.trunk_topic)`,
    },
    (list) => sql`with ${callFacts(call, "all")} select ${list} from facts`,
  );
  return row;
}

const triedLogins = (tried: string) =>
  tried
    .split(",")
    .map((login) => login.trim())
    .filter(Boolean);

/**
 * Kamailio's question for a call in: the manager to ring now (his call opened in the log), or nobody (a missed call,
 * logged, and a callback for whoever should call the client back: missedCallWork).
 */
export async function routeInbound(
  db: Db,
  secrets: TelephonySecrets,
  input: unknown,
  region: string,
  /** Whether the recordings folder has room for one more call (recordings.ts). */
  recordingRoom: () => boolean = () => true,
): Promise<InboundRoute> {
  requireTelephonySecret(secrets);
  const { number, did, sipCallId, tried } = parseInput(routeInboundSchema, input);
  const key = doNotCallKey(number, region) ?? "";
  const didDigits = did.replace(/^\+/, "");
  // The trunk number as a topic stores it (E.164 digits, inbound-number.ts), however the carrier wrote it.
  const trunkKey = doNotCallKey(did, region) ?? didDigits;
  const logins = triedLogins(tried);
  const call: CallAsked = { key, did: didDigits, trunkKey, tried: logins.join(","), sipCallId };
  // The choice is read without a lock, then claimed (claimRinging): two calls asked at once may both read the same
  // manager free (the one idle longest), and only the first to claim him rings him; the other takes its next
  // candidate. One lock for every call made them wait for each other (bench/calls.ts part 6 on Postgres: the
  // choice's p95 went from 89 to 217 ms at 20 calls a second); now only the same call asked twice waits (its
  // second question then finds the first one's manager, and rings him again).
  const taken: number[] = [];
  let facts: Picked | undefined;
  const rang = await db.transaction(async (tx): Promise<InboundRoute | null> => {
    await tx.execute(sql`select pg_advisory_xact_lock(${ADVISORY_LOCK.inboundCall}::int, hashtext(${sipCallId}))`);
    // The first look at rules 0 and 1 only (a few ms less, bench/calls.ts part 6); when neither is free or claimed,
    // every rule, as many rounds as calls asked meanwhile take the picked managers.
    for (let round = -1; round < CLAIM_ROUNDS; round += 1) {
      const picked = await pickCandidates(tx, call, taken, round < 0 ? "own" : "all");
      facts = picked[0];
      const free = picked.filter((row) => row.id !== null && row.sip_login);
      if (free.length === 0 && round >= 0) return null;
      for (const chosen of free) {
        const userId = chosen.id!;
        const recording = chosen.record ? (recordingRoom() ? ("pending" as const) : ("disk_full" as const)) : null;
        const contactId = chosen.contact_id == null ? null : Number(chosen.contact_id);
        const callId = await claimRinging(tx, { userId, number, contactId, sipCallId, topic: chosen.topic, recording });
        if (callId !== null)
          return {
            ring: true,
            callId,
            login: chosen.sip_login!,
            userId,
            rule: chosen.rule as 0 | 1 | 2 | 3,
            record: recording === "pending",
            ringSeconds: chosen.ring_seconds,
          };
        taken.push(userId);
      }
    }
    return null;
  });
  if (rang) return rang;
  // Nobody: busy when someone who could take it is on the line (talking, on a break or rung already), else unavailable.
  const nobody = await nobodyFree(db, call);
  const refusal: { sipCode: 480 | 486; phrase: InboundRefusal } =
    logins.length > 0
      ? { sipCode: 480, phrase: "Nobody Answered" }
      : nobody.on_line
        ? { sipCode: 486, phrase: "Managers Busy" }
        : { sipCode: 480, phrase: "No Managers" };
  const contactId = facts!.contact_id == null ? null : Number(facts!.contact_id);
  return db.transaction(async (tx) => {
    // Two missed calls of one number at once (the client calling again) make one callback, one new contact.
    await tx.execute(sql`select pg_advisory_xact_lock(${ADVISORY_LOCK.missedCall}::int, hashtext(${key || number}))`);
    const [row] = await tx
      .insert(calls)
      .values({
        userId: null,
        number,
        direction: "in",
        contactId,
        sipCallId,
        byProxy: true,
        filterId: nobody.topic ?? null,
        endedAt: sql`now()`,
        outcome: refusal.sipCode === 486 ? "busy" : "no_answer",
        sipCode: refusal.sipCode,
        reason: sipReason(refusal.sipCode, refusal.phrase),
      })
      .returning({ id: calls.id });
    await missedCallWork(tx, { number, key, contactId, callerId: facts!.caller_id, topicId: facts!.trunk_topic });
    return { ring: false, callId: row.id, ...refusal };
  });
}

/** Rounds of choosing again when every candidate read free was taken meanwhile by calls asked at the same time. */
const CLAIM_ROUNDS = 4;

/**
 * The chosen manager's ringing, claimed (in the routing's transaction): under his own lock, tried (a call that finds
 * it held goes on to its next candidate: nobody waits, nothing waits in a circle), his call row is opened if he is
 * still free, read after the lock, so after the commit of any other call that claimed him. Null: another call holds
 * or took him.
 */
async function claimRinging(
  tx: Db,
  ring: {
    userId: number;
    number: string;
    contactId: number | null;
    sipCallId: string;
    topic: number | null;
    recording: "pending" | "disk_full" | null;
  },
): Promise<number | null> {
  const { userId, number, contactId, sipCallId, topic, recording } = ring;
  const [lock] = await selectRows(
    tx,
    { locked: sql<boolean>`pg_try_advisory_xact_lock(${ADVISORY_LOCK.inboundRinging}::int, ${userId}::int)` },
    (list) => sql`select ${list}`,
  );
  if (!lock.locked) return null;
  // A row of the same Call-ID (the browser's report came first, or Kamailio asked again): it starts again from the
  // proxy's facts.
  const [row] = await selectRows(
    tx,
    { id: sql<string | number>`id` },
    (list) => sql`insert into calls (user_id, number, direction, contact_id, sip_call_id, by_proxy, filter_id, recording)
      select ${userId}::int, ${number}::text, 'in', ${contactId}::bigint, ${sipCallId}::text, true, ${topic}::int, ${recording}::text
      where not ${inACall(sql`${userId}::int`, sipCallId)}
      on conflict (user_id, sip_call_id) where sip_call_id is not null do update set
        number = excluded.number, direction = 'in', by_proxy = true, contact_id = excluded.contact_id, filter_id = excluded.filter_id,
        recording = excluded.recording, started_at = now(), last_seen_at = now(),
        answered_at = null, ended_at = null, outcome = null, sip_code = null, reason = null, talk_seconds = 0
      returning ${list}`,
  );
  return row ? Number(row.id) : null;
}

/** The callback's note on a missed call: «Пропущенный входящий, 14:02» (Kyiv time). */
export const missedCallNote = (at: Date) => `Пропущенный входящий, ${formatKyiv(at).slice(-5)}`;

/**
 * A missed call becomes work (issue 42): a known client gets a callback due now, for the manager who last called
 * him (his «Мои перезвоны»), else for the client's topic (anyone's once overdue); an unknown number becomes a
 * contact of the trunk number's topic (its first base) with such a callback. A client with a callback pending
 * already gets none more. Returns the callback's id, or null.
 */
export async function missedCallWork(
  db: Db,
  call: { number: string; key: string; contactId: number | null; callerId: number | null; topicId: number | null },
): Promise<number | null> {
  const note = missedCallNote(new Date());
  const [row] = await selectRows(
    db,
    { id: sql<number>`id` },
    (list) => sql`with known as (
        select c.id, c.database_id from contacts c where c.id = ${call.contactId}),
      base as (
        select fd.database_id from filter_databases fd where fd.filter_id = ${call.topicId} and ${call.contactId}::bigint is null
        order by fd.database_id limit 1),
      added as (
        insert into contacts (database_id, name, phone, phone_key, tz)
        select base.database_id, '', ${call.number}, ${call.key}, null from base
        returning id, database_id),
      client as (select id, database_id from known union all select id, database_id from added),
      topic as (
        select coalesce(
          (select u.getting_filter from users u join filter_databases fd on fd.filter_id = u.getting_filter
            where u.id = ${call.callerId} and fd.database_id = (select database_id from client)),
          (select fd.filter_id from filter_databases fd join filters f on f.id = fd.filter_id
            where fd.database_id = (select database_id from client) order by f.is_active desc, (f.id = ${call.topicId}) desc, f.id limit 1)
        ) as id)
      insert into callbacks (contact_id, database_id, user_id, filter_id, status_text, due_at)
      select client.id, client.database_id, ${call.callerId}, (select id from topic), ${note}, now() from client
      where not exists (select 1 from callbacks p where p.contact_id = client.id and p.handed_at is null)
      returning ${list}`,
  );
  return row?.id ?? null;
}

/**
 * A call in that the client hung up while it rang (the proxy's 487 on the ringing manager's row): missed, so it
 * becomes work as above. The topic for an unknown number is the rung manager's (the trunk number's, by rule 3).
 */
export async function missedWhileRinging(db: Db, call: { number: string; contactId: number | null; filterId: number | null }, region: string) {
  const key = doNotCallKey(call.number, region) ?? "";
  const [caller] = await selectRows(
    db,
    { id: sql<number | null>`coalesce(${lastCallerOf(key)}, (select c.last_user_id from contacts c where c.id = ${call.contactId}))` },
    (list) => sql`select ${list}`,
  );
  return missedCallWork(db, { number: call.number, key, contactId: call.contactId, callerId: caller?.id ?? null, topicId: call.filterId });
}

export const inboundSwitchSchema = z.object({
  accepts: z.enum(["0", "1"], { error: "Неизвестное действие" }).transform((value) => value === "1"),
});
export const INBOUND_ON = "Входящие включены: клиенты, которым вы звонили, попадут к вам";
export const INBOUND_OFF = "Входящие выключены: звонки клиентов пойдут другим менеджерам";

/** «Принимать входящие» (issue 42): the manager's own switch; answers what to tell him. */
export async function setAcceptsInbound(db: Db, actor: Actor, input: unknown): Promise<string> {
  const { accepts } = parseInput(inboundSwitchSchema, input);
  await db.update(users).set({ acceptsInbound: accepts }).where(eq(users.id, actor.id));
  return accepts ? INBOUND_ON : INBOUND_OFF;
}

/** What the manager's page shows while a client's call rings him (issue 42): who calls, and what was done with him. */
export interface IncomingCard {
  name: string;
  phone: string;
  topic: string | null;
  /** The client's last status and the manager's note on it (the card's client info), or null. */
  status: string | null;
  note: string;
  /** The number is on the do-not-call list: the card says so in red (a client who calls us is still answered). */
  doNotCall: boolean;
  /** His callback, when one is pending: when, and its note. */
  callback: { dueAt: string; text: string } | null;
  /** The last calls with him, newest first. */
  calls: Array<{ at: string; direction: "in" | "out"; outcome: string | null; manager: string | null }>;
}

export const incomingCardSchema = z.object({
  sipCallId: z.string({ error: "Укажите Call-ID" }).trim().min(1, { error: "Укажите Call-ID" }).max(255, { error: "Неверный Call-ID" }),
});

/**
 * The card of the client whose call rings this manager now: found through his own call row of that Call-ID (the
 * app opened it when it chose him), so a manager sees only the client who is calling him. Null: not a client of
 * the base (an unknown number), or not his call.
 */
export async function incomingCallCard(db: Db, actor: Actor, input: unknown): Promise<IncomingCard | null> {
  const { sipCallId } = parseInput(incomingCardSchema, input);
  const [row] = await selectRows(
    db,
    {
      name: sql<string>`c.name`,
      phone: sql<string>`c.phone`,
      topic: sql<string | null>`f.name`,
      status: sql<string | null>`st.text`,
      note: sql<string>`c.client_info`,
      listed: sql<boolean>`c.listed`,
      due_at: sql<Date | string | null>`cb.due_at`,
      callback_text: sql<string | null>`cb.status_text`,
      history: sql<
        Array<{ at: string; direction: "in" | "out"; outcome: string | null; manager: string | null }> | string | null
      >`(select coalesce(json_agg(h order by h.at desc), '[]'::json) from (
          select hc.started_at as at, hc.direction, hc.outcome, coalesce(nullif(hu.display_name, ''), hu.login) as manager
          from calls hc left join users hu on hu.id = hc.user_id
          where hc.contact_id = c.id and hc.id <> call.id order by hc.started_at desc limit 5) h)`,
    },
    (list) => sql`select ${list}
      from calls call
      join contacts c on c.id = call.contact_id
      left join filters f on f.id = call.filter_id
      left join statuses st on st.id = c.status_id
      left join lateral (select p.due_at, p.status_text from callbacks p where p.contact_id = c.id and p.handed_at is null
        order by p.due_at limit 1) cb on true
      where call.user_id = ${actor.id} and call.sip_call_id = ${sipCallId} and call.direction = 'in'
      order by call.id desc limit 1`,
  );
  if (!row) return null;
  const history = typeof row.history === "string" ? JSON.parse(row.history) : (row.history ?? []);
  return {
    name: row.name,
    phone: row.phone,
    topic: row.topic,
    status: row.status,
    note: row.note,
    doNotCall: row.listed,
    callback: row.due_at ? { dueAt: new Date(row.due_at).toISOString(), text: row.callback_text ?? "" } : null,
    calls: history.map((h: { at: string; direction: "in" | "out"; outcome: string | null; manager: string | null }) => ({
      ...h,
      at: new Date(h.at).toISOString(),
    })),
  };
}

/**
 * On «Ответить» (issue 42): the caller becomes the manager's lead, held to him as a handed-out lead is, so the lead
 * panel shows his card and the manager presses a status for him as for any lead; the lead he held goes back to the
 * pool. Calling hours and the do-not-call list do not stop it (the client called us; a listed client's card says so
 * in red, and the panel keeps him held while this call lasts: allocation's heldForCallIn). The topic: his current
 * one when it has the client's base, else the call's (the routing's choice), else another active topic of his with
 * that base. Nothing is taken (null; the ringing card stays what he sees) for a number that is no client's, a client
 * another manager holds on his panel now, or a client in none of his topics.
 */
export async function takeInboundCaller(
  db: Db,
  actor: Actor,
  holdMinutes: number,
  input: unknown,
): Promise<{ contactId: number; filterId: number } | null> {
  const { sipCallId } = parseInput(incomingCardSchema, input);
  return db.transaction(async (tx) => {
    await lockUser(tx, actor.id);
    const [caller] = await selectRows(
      tx,
      {
        contact_id: sql<string | number>`c.id`,
        filter_id: sql<number | null>`call.filter_id`,
        free: sql<boolean>`(c.held_by is null or c.held_by = ${actor.id} or c.held_until <= now() and not ${onBreak(sql`c.held_by`)})`,
      },
      (list) => sql`select ${list}
        from calls call join contacts c on c.id = call.contact_id
        where call.user_id = ${actor.id} and call.sip_call_id = ${sipCallId} and call.direction = 'in'
        order by call.id desc limit 1
        for update of c`,
    );
    if (!caller || !caller.free) return null;
    const contactId = Number(caller.contact_id);
    const [topic] = await selectRows(
      tx,
      { filter_id: sql<number>`f.id` },
      (list) => sql`select ${list} from filters f
        join filter_managers fm on fm.filter_id = f.id and fm.user_id = ${actor.id}
        join filter_databases fd on fd.filter_id = f.id and fd.database_id = (select database_id from contacts where id = ${contactId})
        where f.is_active
        order by (f.id = (select getting_filter from users where id = ${actor.id})) desc, (f.id = ${caller.filter_id ?? 0}) desc, f.id
        limit 1`,
    );
    if (!topic) return null;
    await holdOutOfTurn(tx, actor.id, contactId, topic.filter_id, holdMinutes);
    return { contactId, filterId: topic.filter_id };
  });
}
