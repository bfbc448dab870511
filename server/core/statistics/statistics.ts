import { and, count, desc, eq, gte, inArray, lt, sql, sum } from "drizzle-orm";
import { type TopicRuleNumbers, topicRuleNumbers } from "./contact-rules";
import type { Db } from "../../../db/client";
import { databases, leadEventDayCounts, users } from "../../../db/schema";
import { type Actor, requireAdmin, requireSelfOrAdmin } from "../actor";
import { baseVisible } from "../bases/visible";
import { notFound } from "../errors";
import { statusColorsFor } from "../statuses/colors";
import { idSchema, parseInput } from "../validation";
import { callNumbersOfDay, type CallDayNumbers } from "./call-numbers";
import { kyivDate, kyivDay } from "../../../common/business-time";

export const TOP_MANAGERS = 5;
export const UNKNOWN_MANAGER = "Неизвестно";

export interface Statistics {
  /** Bases loaded today. */
  databases: number;
  /** Contacts that came to the team today (in the bases loaded today). */
  contacts: number;
  /** Clients processed today: status presses other than technical ones. */
  reportStatuses: number;
  /** Transfers today: presses of a report status (an application was sent). */
  totalReportStatuses: number;
  totalDatabases: number;
  totalContacts: number;
  /** Today's presses per status text, technical ones included. */
  statusCounts: Record<string, number>;
  /** Each counted status text's own colour (the chart never colours by rank). */
  statusColors: Record<string, string>;
  /** The five managers with the most processed clients today. */
  topManagers: Array<{ manager: string; count: number }>;
  /** Today's calls out per manager, per topic and in all (issue 29, decision 060). */
  calls: CallDayNumbers;
  /** Per active topic, who its calling rules hold back now: clients at their contact limit, waiting for their hours (issue 43). */
  contactRules: TopicRuleNumbers[];
}

/**
 * The admin dashboard's numbers for the Kyiv day containing `now` (SPEC §3 Statistics). Presses come from the
 * day rollup of lead_events (decision 009), bases from their small table.
 */
export async function getStatistics(db: Db, actor: Actor, now: Date = new Date()): Promise<Statistics> {
  requireAdmin(actor);
  const { start, end } = kyivDay(now);
  const [bases, todayBases, events, callNumbers, contactRules] = await Promise.all([
    db
      .select({ count: count(), contacts: sum(databases.contactsCount) })
      .from(databases)
      .where(baseVisible),
    db
      .select({ count: count(), contacts: sum(databases.contactsCount) })
      .from(databases)
      .where(and(gte(databases.createdAt, start), lt(databases.createdAt, end), baseVisible)),
    // Today's presses from the day rollup (a few rows per manager), not from every lead event of the day.
    db
      .select({
        userId: leadEventDayCounts.userId,
        statusText: leadEventDayCounts.statusText,
        total: sql<number>`sum(${leadEventDayCounts.count})::int`,
        processed: sql<number>`(coalesce(sum(${leadEventDayCounts.count}) filter (where not ${leadEventDayCounts.isTechnical}), 0))::int`,
        reports: sql<number>`(coalesce(sum(${leadEventDayCounts.count}) filter (where ${leadEventDayCounts.isReport}), 0))::int`,
      })
      .from(leadEventDayCounts)
      .where(eq(leadEventDayCounts.day, kyivDate(now)))
      .groupBy(leadEventDayCounts.userId, leadEventDayCounts.statusText),
    callNumbersOfDay(db, now),
    topicRuleNumbers(db),
  ]);

  const statusCounts: Record<string, number> = {};
  const perManager = new Map<number | null, number>();
  let processed = 0;
  let reports = 0;
  for (const row of events) {
    if (Number(row.total) <= 0) continue;
    statusCounts[row.statusText] = (statusCounts[row.statusText] ?? 0) + Number(row.total);
    processed += Number(row.processed);
    reports += Number(row.reports);
    const userId = row.userId === 0 ? null : row.userId;
    if (Number(row.processed) > 0) perManager.set(userId, (perManager.get(userId) ?? 0) + Number(row.processed));
  }

  const top = [...perManager.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP_MANAGERS);
  const ids = top.map(([id]) => id).filter((id): id is number => id !== null);
  const names = new Map(
    ids.length
      ? (await db.select({ id: users.id, displayName: users.displayName, login: users.login }).from(users).where(inArray(users.id, ids))).map((u) => [
          u.id,
          u.displayName || u.login,
        ])
      : [],
  );
  const topManagers = top
    .map(([id, n]) => ({ manager: (id !== null && names.get(id)) || UNKNOWN_MANAGER, count: n }))
    .sort((a, b) => b.count - a.count || a.manager.localeCompare(b.manager, "ru"));

  return {
    databases: Number(todayBases[0]?.count ?? 0),
    contacts: Number(todayBases[0]?.contacts ?? 0),
    reportStatuses: processed,
    totalReportStatuses: reports,
    totalDatabases: Number(bases[0]?.count ?? 0),
    totalContacts: Number(bases[0]?.contacts ?? 0),
    statusCounts,
    statusColors: await statusColorsFor(db, Object.keys(statusCounts)),
    topManagers,
    calls: callNumbers,
    contactRules,
  };
}

/** SPEC §3 Personal statistics: a manager's status presses, all time, most frequent first. Own only for a manager. */
export async function getPersonalStatistics(db: Db, actor: Actor, rawId: unknown) {
  const id = parseInput(idSchema, rawId);
  requireSelfOrAdmin(actor, id);
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.id, id));
  if (!user) throw notFound("Пользователь не найден", "user_not_found");
  const total = sql<number>`sum(${leadEventDayCounts.count})::int`;
  const rows = await db
    .select({ status: leadEventDayCounts.statusText, count: total })
    .from(leadEventDayCounts)
    .where(eq(leadEventDayCounts.userId, id))
    .groupBy(leadEventDayCounts.statusText)
    .having(sql`sum(${leadEventDayCounts.count}) > 0`)
    .orderBy(desc(total), leadEventDayCounts.statusText);
  const colors = await statusColorsFor(
    db,
    rows.map((r) => r.status),
  );
  return rows.map((r) => ({ status: r.status, count: Number(r.count), color: colors[r.status] }));
}
