// Lead events and their day counts; money is in money.ts, exports in exports.ts.
import { bigint, bigserial, boolean, date, index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { contacts, databases } from "./bases";
import { filters } from "./filters";
import { users } from "./users";
import { statuses } from "./work";

/** Append-only: one row per status press. Statistics, payouts and exports derive from it. */
export const leadEvents = pgTable(
  "lead_events",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    contactId: bigint("contact_id", { mode: "number" }).references(() => contacts.id, { onDelete: "set null" }),
    databaseId: integer("database_id").references(() => databases.id, { onDelete: "set null" }),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    filterId: integer("filter_id").references(() => filters.id, { onDelete: "set null" }),
    statusId: integer("status_id").references(() => statuses.id, { onDelete: "set null" }),
    /** Kept as text too, so history survives a renamed or deleted status. */
    statusText: text("status_text").notNull(),
    isReport: boolean("is_report").notNull().default(false),
    isTechnical: boolean("is_technical").notNull().default(false),
    withPassport: boolean("with_passport").notNull().default(false),
    clientInfo: text("client_info").notNull().default(""),
    /**
     * A press of a status with a retry rule in its topic (decision 057): which attempt it was, of how many, and the
     * final status the contact took when it was the last one (null otherwise).
     */
    attempt: integer("attempt"),
    attemptsMax: integer("attempts_max"),
    finalStatusText: text("final_status_text"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("lead_events_created_at_idx").on(t.createdAt),
    index("lead_events_user_id_created_at_idx").on(t.userId, t.createdAt),
    index("lead_events_contact_id_idx").on(t.contactId),
    index("lead_events_database_id_idx").on(t.databaseId),
    index("lead_events_status_id_idx").on(t.statusId),
    index("lead_events_filter_id_idx").on(t.filterId),
  ],
);

/**
 * Presses per Kyiv day, manager and status: a rollup of lead_events kept by statement-level triggers (migration
 * 0004), so the dashboard reads a few hundred rows instead of every press of the day (decision 009).
 * userId 0 stands for "no user" (a deleted manager), since a primary key column cannot be null.
 */
export const leadEventDayCounts = pgTable(
  "lead_event_day_counts",
  {
    day: date("day", { mode: "string" }).notNull(),
    userId: integer("user_id").notNull(),
    statusText: text("status_text").notNull(),
    isTechnical: boolean("is_technical").notNull(),
    isReport: boolean("is_report").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.day, t.userId, t.statusText, t.isTechnical, t.isReport] }),
    index("lead_event_day_counts_user_id_idx").on(t.userId),
  ],
);

export type LeadEvent = typeof leadEvents.$inferSelect;
