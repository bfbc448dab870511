import { type SQL, sql } from "drizzle-orm";
import type { RowOf } from "../../../db/typed-sql";
import { visibleBase } from "../bases/visible";

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
 * joined as `r` (null columns when no rule governs it), as leadInTopic joins them: the claim's and the held lead's
 * (allocation.ts), the lead panel's view (lead-view.ts) and the turn's next lead (record-status.ts). `holdStart` is when this hold began (the calls before it count).
 */
export function attemptColumns(holdStart: SQL = sql`coalesce(c.held_since, now())`) {
  return {
    attempts_done: sql<number | string | null>`case when r.max_attempts is not null
    then ${attemptsSoFar(sql`c.id`, sql`f.retry_counted_by`, holdStart)} end`,
    attempts_of: sql<number | string | null>`r.max_attempts`,
  };
}

/** The attemptColumns of a row (postgres.js may answer them as text). */
export type AttemptFacts = RowOf<ReturnType<typeof attemptColumns>>;

/** The attempt the attemptColumns of a row say: the attempts before this hold, plus this one. */
export function attemptOf(row: AttemptFacts): LeadAttempt | null {
  if (row.attempts_of == null) return null;
  const of = Number(row.attempts_of);
  return { number: Math.min(Number(row.attempts_done) + 1, of), of };
}

/**
 * The rows attemptColumns (and the lead panel's leadViewColumns) read of one lead, as a FROM clause: contact `c`
 * (id `contactId`) in its visible base `d`, topic `f` (id `filterId`) and the rule of the contact's status `r`, left
 * out where `ruleless` holds (the turn's pressed contact, whose new status its own statement cannot see). A lead
 * claimed, held or handed out by a press is read through it, so each shows its attempt alike.
 */
export function leadInTopic(contactId: SQL, filterId: SQL, ruleless: SQL = sql`false`): SQL {
  return sql`from contacts c
    join databases d on d.id = c.database_id and ${visibleBase("d")}
    join filters f on f.id = ${filterId}
    left join filter_retry_rules r on r.filter_id = f.id and r.status_id = c.status_id and not (${ruleless})
    where c.id = ${contactId}`;
}
