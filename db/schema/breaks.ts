import { sql } from "drizzle-orm";
import { check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users";

/** Why a break ended: the manager ended it, he logged out, or he was forced out (decision 038). */
export const BREAK_END_REASONS = ["manager", "logout", "forced"] as const;
export type BreakEndReason = (typeof BREAK_END_REASONS)[number];

/**
 * A manager's break (Перерыв, issue 18, decision 038): open while `endedAt` is null. While one is open no lead is
 * handed to him and the lead he holds stays his (server/core/breaks). At most one open break per manager.
 */
export const managerBreaks = pgTable(
  "manager_breaks",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    endedAt: timestamp("ended_at", { withTimezone: true }),
    endedBy: text("ended_by", { enum: BREAK_END_REASONS }),
  },
  (t) => [
    // One open break per manager; the turn's "is he on a break?" probe reads this.
    uniqueIndex("manager_breaks_open_idx")
      .on(t.userId)
      .where(sql`${t.endedAt} is null`),
    // A manager's breaks in time order (his last break's end: /users' "idle since").
    index("manager_breaks_user_started_idx").on(t.userId, t.startedAt),
    // The dashboard's breaks of a day: every break that touches it is open or ended after the day began.
    index("manager_breaks_ended_idx").on(t.endedAt),
    check("manager_breaks_end_after_start", sql`${t.endedAt} is null or ${t.endedAt} >= ${t.startedAt}`),
  ],
);

export type ManagerBreak = typeof managerBreaks.$inferSelect;
