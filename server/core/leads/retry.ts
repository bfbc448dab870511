import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../../db/client";

/**
 * Retry rules (issue 29, decision 057): per status of a topic, «вернуть в работу через» N minutes, «не более» M
 * attempts in all, then a final status. The claim's retry tier (tiers.ts) hands the contact out again once its
 * delay has passed; the status press (record-status.ts) counts the attempt and gives the final status on the last.
 * This module holds what both read: which statuses a rule governs, and how attempts are counted.
 */

import type { LeadAttempt } from "../../../common/attempt";
export { attemptLabel, type LeadAttempt } from "../../../common/attempt";

/**
 * The statuses the topic works again without a rule (int[]): a status with a rule comes back through the retry
 * tier after its delay, never through the re-work tier at once.
 */
export function reworkStatusIds(filterId: SQL): SQL {
  return sql`array(select fs.status_id from filter_statuses fs where fs.filter_id = ${filterId}
    and not exists (select 1 from filter_retry_rules r where r.filter_id = fs.filter_id and r.status_id = fs.status_id)
    order by 1)`;
}

/** The contact (row `alias`) has a status one of the topic's retry rules governs. */
export function governedByRule(filterId: SQL, alias: string): SQL {
  return sql`exists (select 1 from filter_retry_rules r where r.filter_id = ${filterId} and r.status_id = ${sql.identifier(alias)}.status_id)`;
}

/**
 * The attempts made on a contact (id `contactId`) so far, as the topic counts them (`countedBy`: 'presses' or
 * 'calls'): every status press of it, or every call to it in the call log — those started before `before`
 * when given (the card's count leaves out the call of the attempt under way).
 */
export function attemptsSoFar(contactId: SQL, countedBy: SQL, before: SQL | null = null): SQL {
  return sql`(case when ${countedBy} = 'calls'
      then (select count(*) from calls k where k.contact_id = ${contactId} and k.direction = 'out'
        ${before ? sql`and k.started_at < ${before}` : sql``})
      else (select count(*) from lead_events e where e.contact_id = ${contactId}) end)::int`;
}

/**
 * The attempt columns (`attempts_done`, `attempts_of`) of contact `c` in topic `f`, with the rule of its status
 * joined as `r` (null columns when no rule governs it): leadAttempt's, the lead panel's view (lead-view.ts) and
 * the turn's next lead (record-status.ts). `holdStart` is when this hold began (the calls before it count).
 */
export function attemptColumns(holdStart: SQL = sql`coalesce(c.held_since, now())`): SQL {
  return sql`case when r.max_attempts is not null
    then ${attemptsSoFar(sql`c.id`, sql`f.retry_counted_by`, holdStart)} end as attempts_done,
  r.max_attempts as attempts_of`;
}

/** The attempt the attemptColumns of a row say: the attempts before this hold, plus this one. */
export function attemptOf(row: { attempts_done: number | string | null; attempts_of: number | string | null }): LeadAttempt | null {
  if (row.attempts_of == null) return null;
  const of = Number(row.attempts_of);
  return { number: Math.min(Number(row.attempts_done) + 1, of), of };
}

/**
 * The attempt a manager is on with this lead, when its status has a rule in the topic: the attempts before this
 * hold, plus this one. Null for a contact no rule governs (a fresh one: one primary-key look-up finds no rule).
 */
export async function leadAttempt(db: Db, filterId: number, contactId: number): Promise<LeadAttempt | null> {
  const [row] = await queryRows<{ attempts_done: number; attempts_of: number }>(
    db,
    sql`select ${attemptColumns()}
      from contacts c
      join filter_retry_rules r on r.filter_id = ${filterId}::int and r.status_id = c.status_id
      join filters f on f.id = r.filter_id
      where c.id = ${contactId}::bigint`,
  );
  return row ? attemptOf(row) : null;
}
