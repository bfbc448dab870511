import { sql } from "drizzle-orm";
import * as z from "zod";
import { BUSINESS_TIME_ZONE } from "../../../common/business-time";
import type { CallDirection } from "../../../db/schema";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { type Actor, requireAdmin } from "../actor";
import { idSchema, parseInput } from "../validation";

export const numbersQuerySchema = z.object({
  weeks: z.coerce
    .number({ error: "weeks — число недель от 1 до 52" })
    .int({ error: "weeks — число недель от 1 до 52" })
    .min(1, { error: "weeks — число недель от 1 до 52" })
    .max(52, { error: "weeks — число недель от 1 до 52" })
    .default(8),
  managerId: idSchema.optional(),
  filterId: idSchema.optional(),
});

export interface ScoreNumbers {
  /** Monday of the call's week in Kyiv, YYYY-MM-DD. */
  week: string;
  managerId: number | null;
  manager: string | null;
  filterId: number | null;
  topic: string | null;
  scored: number;
  disputed: number;
  /** The average of the scores that count (a rescore where a dispute was accepted), to one decimal. */
  average: number;
}

/**
 * Scores per week (of the call, Monday to Sunday in Kyiv), manager and topic (admins): how many calls were scored,
 * how many scores disputed, the average score. The current week and the `weeks - 1` before it, newest first.
 */
export async function scoreNumbers(db: Db, actor: Actor, rawQuery: unknown = {}): Promise<ScoreNumbers[]> {
  requireAdmin(actor);
  const q = parseInput(numbersQuerySchema, rawQuery);
  const week = sql`date_trunc('week', c.started_at at time zone ${BUSINESS_TIME_ZONE})`;
  const rows = await selectRows(
    db,
    {
      // First: the statement groups and orders by column 1.
      week: sql<string>`to_char(${week}, 'YYYY-MM-DD')`,
      manager_id: sql<number | null>`s.manager_id`,
      manager: sql<string | null>`coalesce(nullif(u.display_name, ''), u.login)`,
      filter_id: sql<number | null>`s.filter_id`,
      topic: sql<string | null>`f.name`,
      scored: sql<string | number>`count(*)`,
      disputed: sql<string | number>`count(*) filter (where s.disputed_at is not null)`,
      average: sql<string | number>`round(avg(coalesce(s.rescore, s.score))::numeric, 1)`,
    },
    (list) => sql`select ${list}
        from call_scores s
        join calls c on c.id = s.call_id
        left join users u on u.id = s.manager_id
        left join filters f on f.id = s.filter_id
        where ${week} >= date_trunc('week', now() at time zone ${BUSINESS_TIME_ZONE}) - make_interval(weeks => ${q.weeks - 1})
          ${q.managerId !== undefined ? sql`and s.manager_id = ${q.managerId}` : sql``}
          ${q.filterId !== undefined ? sql`and s.filter_id = ${q.filterId}` : sql``}
        group by 1, s.manager_id, u.display_name, u.login, s.filter_id, f.name
        order by 1 desc, manager, topic`,
  );
  return rows.map((r) => ({
    week: r.week,
    managerId: r.manager_id,
    manager: r.manager,
    filterId: r.filter_id,
    topic: r.topic,
    scored: Number(r.scored),
    disputed: Number(r.disputed),
    average: Number(r.average),
  }));
}

export interface NextCall {
  id: number;
  startedAt: string;
  number: string;
  direction: CallDirection;
  talkSeconds: number;
  topic: string | null;
  /** Why it is offered: the longest, the shortest talk of the week, or a call that ended in a report. */
  reasons: Array<"longest" | "shortest" | "report">;
}

export interface NextForManager {
  managerId: number;
  manager: string;
  /** Answered calls this week not yet scored, and scored. */
  unscored: number;
  scored: number;
  calls: NextCall[];
}

/** Calls that ended in a report: a report status pressed by the same manager for the same client within 30 min of the call's end. */
const REPORT_WINDOW = "30 minutes";

/**
 * Which calls to score next (admins): for each manager with answered calls this week (Kyiv, from Monday) that are
 * not scored yet, the longest and the shortest of them, and up to three that ended in a report (SPEC's report
 * status). Managers with the fewest scored calls this week first.
 */
export async function scoreNext(db: Db, actor: Actor): Promise<NextForManager[]> {
  requireAdmin(actor);
  const weekStart = sql`(date_trunc('week', now() at time zone ${BUSINESS_TIME_ZONE}) at time zone ${BUSINESS_TIME_ZONE})`;
  const rows = await selectRows(
    db,
    {
      id: sql<number | string>`c.id`,
      user_id: sql<number>`c.user_id`,
      manager: sql<string>`coalesce(nullif(u.display_name, ''), u.login)`,
      started_at: sql<string | Date>`c.started_at`,
      number: sql<string>`c.number`,
      direction: sql<CallDirection>`c.direction`,
      talk_seconds: sql<number>`c.talk_seconds`,
      topic: sql<string | null>`f.name`,
      scored: sql<boolean>`(s.id is not null)`,
      report: sql<boolean>`exists (select 1 from lead_events e where e.contact_id = c.contact_id and e.user_id = c.user_id and e.is_report
                    and e.created_at >= c.started_at and e.created_at <= coalesce(c.ended_at, c.started_at) + ${sql.raw(`interval '${REPORT_WINDOW}'`)})`,
    },
    (list) => sql`select ${list}
        from calls c
        join users u on u.id = c.user_id
        left join filters f on f.id = c.filter_id
        left join call_scores s on s.call_id = c.id
        where c.started_at >= ${weekStart} and c.answered_at is not null and c.ended_at is not null and not u.is_admin
        order by c.user_id, c.talk_seconds desc, c.id`,
  );
  const byManager = new Map<number, { manager: string; scored: number; open: typeof rows }>();
  for (const row of rows) {
    const entry = byManager.get(row.user_id) ?? { manager: row.manager, scored: 0, open: [] };
    if (row.scored) entry.scored++;
    else entry.open.push(row);
    byManager.set(row.user_id, entry);
  }
  const result: NextForManager[] = [];
  for (const [managerId, { manager, scored, open }] of byManager) {
    if (open.length === 0) continue;
    const picked = new Map<number, NextCall>();
    const pick = (row: (typeof rows)[number], reason: NextCall["reasons"][number]) => {
      const id = Number(row.id);
      const call = picked.get(id) ?? {
        id,
        startedAt: new Date(row.started_at).toISOString(),
        number: row.number,
        direction: row.direction,
        talkSeconds: row.talk_seconds,
        topic: row.topic,
        reasons: [],
      };
      call.reasons.push(reason);
      picked.set(id, call);
    };
    // Sorted by talk time, longest first.
    pick(open[0], "longest");
    if (open.length > 1) pick(open[open.length - 1], "shortest");
    for (const row of open.filter((r) => r.report).slice(0, 3)) pick(row, "report");
    result.push({ managerId, manager, unscored: open.length, scored, calls: [...picked.values()] });
  }
  return result.sort((a, b) => a.scored - b.scored || b.unscored - a.unscored || a.manager.localeCompare(b.manager, "ru"));
}
