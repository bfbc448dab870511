import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { clientInHours, hoursOfTopic } from "../filters/calling-hours";
import { underContactLimits } from "../filters/contact-limits";

/** How far a count of waiting clients goes: beyond it the dashboard says «10 000+» (a base of a million is not counted whole). */
export const WAITING_COUNT_CAP = 10_000;

/** The rules' numbers of one active topic now (issue 43): who its rules hold back. */
export interface TopicRuleNumbers {
  filterId: number;
  topic: string;
  /**
   * Clients of its bases at one of its contact limits now (called this month and not under every limit); null: the
   * topic has no limits.
   */
  atLimit: number | null;
  /** Never-worked free clients of its bases outside their calling hours now, counted up to WAITING_COUNT_CAP. */
  waitingForHours: number;
  /** waitingForHours reached the cap: there are at least that many. */
  waitingCapped: boolean;
}

/**
 * Per active topic, by name: its clients at their contact limit (only the clients called in the last 35 days can be:
 * the month's calls, read from calls_started_at_idx, not every contact) and its never-worked clients waiting for
 * their hours (the panel's note counted, capped), each by the rule the turn applies.
 */
export async function topicRuleNumbers(db: Db): Promise<TopicRuleNumbers[]> {
  const rows = await selectRows(
    db,
    {
      filter_id: sql<number>`f.id`,
      topic: sql<string>`f.name`,
      has_limits: sql<boolean>`(f.contact_limit_day is not null or f.contact_limit_week is not null or f.contact_limit_month is not null)`,
      at_limit: sql<number | string>`(select count(*) from (select distinct k.contact_id from calls k
            join contacts c on c.id = k.contact_id
            join filter_databases fd on fd.filter_id = f.id and fd.database_id = c.database_id
          where k.started_at >= now() - interval '35 days' and k.direction = 'out'
            and not ${underContactLimits(sql`k.contact_id`, sql`c.tz`, sql`f.id`)}) l)`,
      waiting: sql<number | string>`(select count(*) from (select 1 from contacts c
            join filter_databases fd on fd.filter_id = f.id and fd.database_id = c.database_id
          where c.status_id is null and c.held_by is null and not c.listed and not ${clientInHours(sql`c.tz`, hoursOfTopic("f"))}
          limit ${WAITING_COUNT_CAP}) w)`,
    },
    (list) => sql`select ${list}
      from filters f where f.is_active order by f.name, f.id`,
  );
  return rows.map((row) => ({
    filterId: Number(row.filter_id),
    topic: row.topic,
    atLimit: row.has_limits ? Number(row.at_limit) : null,
    waitingForHours: Number(row.waiting),
    waitingCapped: Number(row.waiting) >= WAITING_COUNT_CAP,
  }));
}
