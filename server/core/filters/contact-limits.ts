import { type SQL, sql } from "drizzle-orm";
import type { ContactCalls } from "../../../common/contact-limits";
import { OWN_POLICY_REASONS } from "../calls/sip-reasons";
import { textArrayLiteral } from "../../../db/typed-sql";

/**
 * Contact limits per client (issue 43, decision 075): a topic may allow at most N calls to one client in his local
 * day, M in his week (Monday to Sunday), K in his month, counting every attempt or only the answered calls. One
 * rule, read by the claim's tiers (tiers.ts `contactMayBeCalled`), the press that keeps its lead, and the proxy's
 * call check (proxy-calls.ts), inside their own statements.
 *
 * What counts: the client's outgoing calls in the call log (calls.contact_id), in any topic (the law counts
 * interactions with the person, not with a topic), since the start of the period in the client's zone. An attempt
 * is a call that left for the carrier: a call the proxy itself refused (do-not-call, hours, this limit, a break)
 * never reached the client and is not one. Connected: a call answered (answered_at set).
 */

/**
 * The calls of client `contactId` counting against topic row `lf`'s limits, from the period row `p` until `at`. The
 * aliases (lf, p, n, limit_call) are this module's own: a caller's row passed as `contactId` must not be named so.
 * The start of the period is written as a row comparison, which only calls_contact_id_started_at_idx can read: as
 * `started_at >= p.since` the planner could take calls_started_at_idx and read every call of the period for each
 * client the claim looked at (it did in the leads bench, whose calls share one instant: 0.07 ms a client).
 */
const countedCalls = (contactId: SQL, at: SQL) => sql`from calls limit_call
      where limit_call.contact_id = ${contactId} and (limit_call.contact_id, limit_call.started_at) >= (${contactId}, p.since)
        and limit_call.direction = 'out' and limit_call.started_at <= ${at}
        and case when lf.contact_limit_counts = 'connected' then limit_call.answered_at is not null
          else not coalesce(limit_call.reason = any(${OWN_POLICY_REASONS_SQL}), false) end`;

/** The app's own refusals (not the carrier's), a constant written into the statement (see `periods`). */
const OWN_POLICY_REASONS_SQL = textArrayLiteral(OWN_POLICY_REASONS);

/** The starts of the client's local day, week and month (timestamptz), from the topic row `lf` and `zone`. */
const periods = (zone: SQL, at: SQL) => {
  const local = sql`(${at} at time zone coalesce(${zone}, lf.time_zone))`;
  // The unit is the statement's own text, not a parameter: the turn reads the limits for every tier, and a
  // parameter each time put it past what db/client.ts prepares (decision 082).
  const start = (unit: "day" | "week" | "month") => sql`(date_trunc('${sql.raw(unit)}', ${local}) at time zone coalesce(${zone}, lf.time_zone))`;
  return sql`select ${start("day")} as day, ${start("week")} as week, ${start("month")} as month,
      least(${start("week")}, ${start("month")}) as since`;
};

/**
 * The FROM clause of the counts: the topic row `lf` (only when it has a limit), the client's period starts `p`,
 * and `n`: his counted calls since the start of his day, week and month.
 */
const countsOf = (contactId: SQL, zone: SQL, filterId: SQL, at: SQL) => sql`from filters lf
      cross join lateral (${periods(zone, at)}) p
      cross join lateral (select count(*) filter (where limit_call.started_at >= p.day) as day,
          count(*) filter (where limit_call.started_at >= p.week) as week,
          count(*) filter (where limit_call.started_at >= p.month) as month
        ${countedCalls(contactId, at)}) n
      where lf.id = ${filterId}
        and (lf.contact_limit_day is not null or lf.contact_limit_week is not null or lf.contact_limit_month is not null)`;

/**
 * True when topic `filterId` may call client `contactId` (zone `zone`, SQL text or null) once more at `at` (now()
 * unless a test fixes it): under each of its limits. A topic without limits answers true without reading the log.
 */
export function underContactLimits(contactId: SQL, zone: SQL, filterId: SQL, at: SQL = sql`now()`): SQL {
  return sql`coalesce((select (lf.contact_limit_day is null or n.day < lf.contact_limit_day)
        and (lf.contact_limit_week is null or n.week < lf.contact_limit_week)
        and (lf.contact_limit_month is null or n.month < lf.contact_limit_month)
      ${countsOf(contactId, zone, filterId, at)}), true)`;
}

/**
 * The card's column (`limit_calls`: json [{ period, done, of }] of each limit the topic `filterId` has, null
 * without limits) for client `contactId` in zone `zone`.
 */
export function contactCallsColumn(contactId: SQL, zone: SQL, filterId: SQL, at: SQL = sql`now()`): SQL {
  return sql`(select json_build_array(
        case when lf.contact_limit_day is not null then json_build_object('period', 'day', 'done', n.day, 'of', lf.contact_limit_day) end,
        case when lf.contact_limit_week is not null then json_build_object('period', 'week', 'done', n.week, 'of', lf.contact_limit_week) end,
        case when lf.contact_limit_month is not null then json_build_object('period', 'month', 'done', n.month, 'of', lf.contact_limit_month) end)
      ${countsOf(contactId, zone, filterId, at)})`;
}

/** The column as a list (postgres.js and PGlite may answer json as text; the nulls are the limits not set). */
export function contactCallsOf(value: unknown): ContactCalls[] {
  if (value == null) return [];
  const list = (typeof value === "string" ? JSON.parse(value) : value) as Array<ContactCalls | null>;
  return list.filter((c): c is ContactCalls => c !== null).map((c) => ({ period: c.period, done: Number(c.done), of: Number(c.of) }));
}
