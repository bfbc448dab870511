import { bigint, bigserial, boolean, customType, date, index, integer, pgTable, primaryKey, serial, text, timestamp } from "drizzle-orm/pg-core";
import { contacts, databases } from "./bases";
import { filters } from "./filters";
import { timestamps, users } from "./users";
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

/** Money paid to a worker; covers the applications since the previous payout. */
export const payments = pgTable(
  "payments",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amountCents: integer("amount_cents").notNull(),
    processedAt: timestamp("processed_at", { withTimezone: true }).notNull().defaultNow(),
    ...timestamps,
  },
  (t) => [index("payments_user_id_processed_at_idx").on(t.userId, t.processedAt)],
);

/** The client card text sent with a report status (SPEC proxy-application). */
export const applications = pgTable(
  "applications",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    contactId: bigint("contact_id", { mode: "number" }).references(() => contacts.id, { onDelete: "set null" }),
    leadEventId: bigint("lead_event_id", { mode: "number" }).references(() => leadEvents.id, { onDelete: "set null" }),
    applicationText: text("application_text").notNull(),
    phone: text("phone").notNull().default(""),
    withPassport: boolean("with_passport").notNull().default(false),
    /** What the manager earned for it, at the rate in force when it was sent. */
    amountCents: integer("amount_cents").notNull().default(0),
    paymentId: integer("payment_id").references(() => payments.id, { onDelete: "set null" }),
    forwardedAt: timestamp("forwarded_at", { withTimezone: true }),
    forwardError: text("forward_error"),
    ...timestamps,
  },
  (t) => [
    index("applications_user_id_created_at_idx").on(t.userId, t.createdAt),
    index("applications_payment_id_idx").on(t.paymentId),
    index("applications_contact_id_idx").on(t.contactId),
    index("applications_lead_event_id_idx").on(t.leadEventId),
    index("applications_created_at_idx").on(t.createdAt),
  ],
);

/** Admin changes to a balance: add, subtract, reset (the reset stores the amount it removed). */
export const balanceAdjustments = pgTable(
  "balance_adjustments",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["add", "rem", "def"] }).notNull(),
    amountCents: integer("amount_cents").notNull(),
    byUserId: integer("by_user_id").references(() => users.id, { onDelete: "set null" }),
    /** The payout that settled it (null: still on the balance), like applications.paymentId. */
    paymentId: integer("payment_id").references(() => payments.id, { onDelete: "set null" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index("balance_adjustments_user_id_idx").on(t.userId),
    index("balance_adjustments_by_user_id_idx").on(t.byUserId),
    index("balance_adjustments_payment_id_idx").on(t.paymentId),
  ],
);

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/** A job that writes chosen bases and statuses to an xlsx file, stored here so any instance serves it. */
export const exports = pgTable(
  "exports",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    databaseIds: integer("database_ids").array().notNull(),
    statusIds: integer("status_ids").array().notNull(),
    /** The file's format: `xlsx` or `csv` (UTF-8 with a BOM, `;` between fields). */
    format: text("format").notNull().default("xlsx"),
    isExported: boolean("is_exported").notNull().default(false),
    progress: integer("progress").notNull().default(0),
    /** Rows the file will hold (counted at creation and again when a worker starts), and rows written so far. */
    rowsTotal: integer("rows_total"),
    rowsWritten: integer("rows_written").notNull().default(0),
    startTime: timestamp("start_time", { withTimezone: true }),
    endTime: timestamp("end_time", { withTimezone: true }),
    /** Which worker holds the job, and until when (a crashed worker's job becomes claimable again). */
    claimedBy: text("claimed_by"),
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    error: text("error"),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    ...timestamps,
  },
  (t) => [index("exports_pending_idx").on(t.isExported, t.claimedUntil), index("exports_created_by_idx").on(t.createdBy)],
);

/**
 * A finished export's file, in parts stored while it is written (the last one with the job's completion), so
 * storing it overlaps writing it (decision 018). The file is the parts in `seq` order.
 */
export const exportParts = pgTable(
  "export_parts",
  {
    exportId: integer("export_id")
      .notNull()
      .references(() => exports.id, { onDelete: "cascade" }),
    seq: integer("seq").notNull(),
    data: bytea("data").notNull(),
  },
  (t) => [primaryKey({ columns: [t.exportId, t.seq] })],
);

export type LeadEvent = typeof leadEvents.$inferSelect;
export type Application = typeof applications.$inferSelect;
export type Payment = typeof payments.$inferSelect;
export type Export = typeof exports.$inferSelect;
