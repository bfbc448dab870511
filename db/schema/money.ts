import { bigint, boolean, index, integer, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";
import { contacts } from "./bases";
import { leadEvents } from "./events";
import { timestamps, users } from "./users";

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

export type Application = typeof applications.$inferSelect;
export type Payment = typeof payments.$inferSelect;
