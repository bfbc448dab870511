import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { CALL_DIRECTIONS, calls, sessions } from "../../../db/schema";
import { onBreak } from "../breaks/breaks";
import { refusedCall, writeCallEnd } from "../calls/calls";
import type { ProxyRefusal } from "../../../common/sip-reasons";
import { zoneOfKey } from "../bases/phone-zone";
import { doNotCallKey, isListed } from "../dnc/dnc";
import { clientInHours, clientZone, hoursOfTopic } from "../filters/calling-hours";
import { consentAllows } from "../filters/consent";
import { underContactLimits } from "../filters/contact-limits";
import { bigIdSchema, parseInput } from "../validation";
import { requireTelephonySecret, type TelephonySecrets } from "./shared-secret";
import { sessionIsLive } from "../auth/live-session";
import { missedWhileRinging } from "./inbound";

/**
 * What the SIP proxy asks the app about calls (decision 049). Before an INVITE leaves for the carrier's trunk,
 * Kamailio asks once whether this manager may call this number now; the app answers with the call's id in its log,
 * or a refusal whose SIP reason phrase the softphone shows in Russian (sip-reasons.ts). The answer is the rule,
 * so a modified page or anyone holding a manager's SIP password cannot dial past it. The proxy then reports the
 * call's answer and end from its dialog events, so the log is right whatever happened to the browser.
 */

export const admitCallSchema = z.object({
  /** The manager's SIP login (the digest user Kamailio authenticated); for a call in, the extension it rings. */
  login: z.string({ error: "Укажите SIP логин" }).trim().min(1, { error: "Укажите SIP логин" }).max(100),
  /** The number as the proxy relays it (the client's for a call out, the caller's for a call in). */
  number: z.string({ error: "Укажите номер" }).trim().min(1, { error: "Укажите номер" }).max(64, { error: "Неверный номер телефона" }),
  sipCallId: z.string({ error: "Укажите Call-ID" }).trim().min(1, { error: "Укажите Call-ID" }).max(255, { error: "Неверный Call-ID" }),
  direction: z.enum(CALL_DIRECTIONS, { error: "Неверное направление звонка" }).default("out"),
});

export type Admission =
  | {
      allowed: true;
      callId: number;
      record: boolean;
      /** The number the client sees for a call out (E.164 digits): its topic's trunk number, or null (TRUNK_CALLER_ID). */
      callerId: string | null;
    }
  | { allowed: false; callId: number | null; sipCode: 403; phrase: ProxyRefusal };

/**
 * What the check needs, in one statement (it runs before every call): the manager with this SIP login, whether
 * he is signed in and on a break, whether the number is on the do-not-call list, the client the number is (his
 * lead with it, else a contact of his topic's bases with it), and whether it is inside the calling hours of his
 * topic (users.getting_filter; an admin outside any topic has none) in the client's local time, read by the turn's
 * own rule (`clientInHours`: the client's zone, the base's column outranking the number's, decision 062; the
 * number's zone only when no contact has it; then the topic's), whether the client is under the topic's contact
 * limits (decision 075), whether that topic records its calls (decision 054), and its trunk number, the number its
 * calls show (decision 083).
 */
async function callFacts(db: Db, login: string, numberKey: string | null) {
  const key = numberKey ?? "";
  const numberZone = numberKey ? zoneOfKey(numberKey) : null;
  const [row] = await selectRows(
    db,
    {
      id: sql<number>`u.id`,
      topic: sql<number | null>`f.id`,
      record: sql<boolean>`coalesce(f.record_calls, false)`,
      caller_id: sql<string | null>`case when f.is_active then nullif(f.inbound_number, '') end`,
      signed_in: sql<boolean>`exists (select 1 from ${sessions} s where s.user_id = u.id and ${sessionIsLive(sql`s`)})`,
      paused: sql<boolean>`${onBreak(sql`u.id`)}`,
      listed: sql<boolean>`${isListed(sql`${key}`)}`,
      in_hours: sql<boolean>`(f.id is null or ${clientInHours(sql`client.tz`, hoursOfTopic("f"), numberZone)})`,
      under_limits: sql<boolean>`(f.id is null or client.id is null or ${underContactLimits(sql`client.id`, clientZone(sql`client.tz`, numberZone), sql`f.id`)})`,
      consent_ok: sql<boolean>`(f.id is null or ${consentAllows(sql`client.consent_at`, sql`f.id`)})`,
      lead: sql<string | number | null>`case when client.held then client.id end`,
    },
    (list) => sql`select ${list}
    from users u
    left join filters f on f.id = u.getting_filter
    left join lateral (select c.id, c.tz, c.consent_at, coalesce(c.held_by = u.id, false) as held from contacts c
      where c.phone_key = ${key} and c.phone_key <> ''
        and (c.held_by = u.id or c.database_id in (select fd.database_id from filter_databases fd where fd.filter_id = f.id))
      order by coalesce(c.held_by = u.id, false) desc, c.id limit 1) client on true
    where u.sip_login = ${login} limit 1`,
  );
  return row;
}

/** Why this manager may not call out now, or null: the rules the page also shows, checked here for good. */
function refusalOf(facts: {
  signed_in: boolean;
  paused: boolean;
  listed: boolean;
  in_hours: boolean;
  under_limits: boolean;
  consent_ok: boolean;
}): ProxyRefusal | null {
  if (!facts.signed_in) return "Not Signed In";
  if (facts.paused) return "On Break";
  if (facts.listed) return "Do Not Call";
  if (!facts.in_hours) return "Outside Calling Hours";
  if (!facts.consent_ok) return "No Consent";
  if (!facts.under_limits) return "Contact Limit";
  return null;
}

/**
 * Kamailio's question before a call leaves for the trunk (or rings a manager from it): the call is opened in the
 * log, refused calls closed at once with the reason. A row the browser already opened for the same Call-ID is
 * taken over (by_proxy) from the proxy's facts only, so the two reports make one row and the browser's word counts
 * for nothing the proxy writes.
 */
export async function admitCall(
  db: Db,
  secrets: TelephonySecrets,
  input: unknown,
  region: string,
  /** Whether the recordings folder has room for one more call (recordings.ts); no room: the call goes unrecorded. */
  recordingRoom: () => boolean = () => true,
): Promise<Admission> {
  requireTelephonySecret(secrets);
  const { login, number, sipCallId, direction } = parseInput(admitCallSchema, input);
  const numberKey = doNotCallKey(number, region);
  const user = await callFacts(db, login, numberKey);
  if (!user) {
    // The digest already refuses an unknown login; a manager deleted since his REGISTER ends here.
    return { allowed: false, callId: null, sipCode: 403, phrase: "Not Signed In" };
  }
  const refused = direction === "out" ? refusalOf(user) : null;
  // The client the call is for: the manager's lead with this number (the browser may only add what matches).
  const leadId = user.lead === null ? null : Number(user.lead);
  // The manager's topic decides whether the call is recorded (issue 28); a full disk never stops a call.
  const record = !refused && user.record && recordingRoom();
  const recording = refused || !user.record ? null : record ? ("pending" as const) : ("disk_full" as const);
  // The call's state from the proxy's facts alone: refused and closed now, or open and not answered yet.
  const state = refused ? refusedCall(refused) : { endedAt: null, answeredAt: null, talkSeconds: 0, outcome: null, sipCode: null, reason: null };
  // The browser's report came first: its row is taken over, and what the browser said of the call before the
  // proxy asked (answered, ended, its talk time) is dropped; from here on only the proxy writes it.
  const takeOver = (contactId: SQL) => ({
    number,
    direction,
    byProxy: true,
    contactId,
    lastSeenAt: sql`now()`,
    filterId: user.topic,
    recording,
    ...state,
  });
  // Its row is looked for first: an insert that meets it ON CONFLICT has already drawn an id from the sequence, so
  // every call took two ids (issue 41 §14). The upsert stays for a browser's row written in between.
  const [taken] = await db
    .update(calls)
    .set(takeOver(sql`coalesce(${leadId}::bigint, ${calls.contactId})`))
    .where(and(eq(calls.userId, user.id), eq(calls.sipCallId, sipCallId)))
    .returning({ id: calls.id });
  const [row] = taken
    ? [taken]
    : await db
        .insert(calls)
        .values({ userId: user.id, number, direction, contactId: leadId, sipCallId, byProxy: true, filterId: user.topic, recording, ...state })
        .onConflictDoUpdate({
          target: [calls.userId, calls.sipCallId],
          targetWhere: sql`sip_call_id is not null`,
          set: takeOver(sql`coalesce(excluded.contact_id, ${calls.contactId})`),
        })
        .returning({ id: calls.id });
  if (refused) return { allowed: false, callId: row.id, sipCode: 403, phrase: refused };
  // A call out shows the topic's trunk number, so a client who calls back reaches that topic (decision 083).
  return { allowed: true, callId: row.id, record, callerId: direction === "out" ? user.caller_id : null };
}

export const callEventSchema = z.object({
  id: bigIdSchema("Неверный идентификатор звонка"),
  /** answer: the 200 OK went through; end: the dialog ended (BYE, timeout, a dead browser); fail: a final refusal. */
  event: z.enum(["answer", "end", "fail"], { error: "Неверное событие звонка" }),
  /** The final response of a failed call, with its reason phrase when the proxy made it itself. */
  code: z.coerce
    .number({ error: "Неверный код SIP" })
    .int()
    .min(300, { error: "Неверный код SIP" })
    .max(699, { error: "Неверный код SIP" })
    .optional(),
  phrase: z.string().trim().max(100).optional(),
  /**
   * When the proxy saw it (Unix time, seconds with a fraction): Kamailio sends its events from a queue, a few
   * milliseconds later, seconds when the app is slow to take them.
   */
  at: z.coerce.number({ error: "Неверное время события" }).positive({ error: "Неверное время события" }).optional(),
});

/**
 * The event's time: the proxy's, within the last 5 minutes and not after now (its host's clock may differ a little
 * from the database's); now when it gives none.
 */
const eventTime = (at: number | undefined) =>
  at === undefined ? sql`now()` : sql`least(now(), greatest(now() - interval '5 minutes', to_timestamp(${at}::double precision)))`;

/**
 * The proxy's report of a call it let through: answered, ended or failed, at the time it gives. An end or a failure
 * is written once; later reports, and reports of calls the proxy never admitted, change nothing.
 */
export async function recordCallEvent(db: Db, secrets: TelephonySecrets, input: unknown, region = "UA"): Promise<void> {
  requireTelephonySecret(secrets);
  const { id, event, code, phrase, at } = parseInput(callEventSchema, input);
  const open = and(eq(calls.id, id), eq(calls.byProxy, true), isNull(calls.endedAt));
  if (event === "answer") {
    await db
      .update(calls)
      .set({ answeredAt: sql`coalesce(${calls.answeredAt}, ${eventTime(at)})`, lastSeenAt: sql`now()` })
      .where(open);
    return;
  }
  const [call] = await db
    .select({ answeredAt: calls.answeredAt, direction: calls.direction, number: calls.number, contactId: calls.contactId, filterId: calls.filterId })
    .from(calls)
    .where(open);
  if (!call) return;
  await writeCallEnd(db, open, call, { sipCode: event === "fail" ? code : undefined, phrase, cause: "remote" }, eventTime(at));
  // The client hung up while a manager's page rang (issue 42): a missed call, which becomes a callback.
  if (event === "fail" && code === 487 && call.direction === "in") await missedWhileRinging(db, call, region);
}
