import { sql } from "drizzle-orm";
import { bigint, index, integer, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";
import { contacts } from "./bases";
import { filters } from "./filters";
import { users } from "./users";

/**
 * Why a callback was closed without being handed out: its number went on the do-not-call list after it was
 * scheduled, and its manager tried to take it (issue 29).
 */
export const CALLBACK_CLOSE_REASONS = ["do_not_call"] as const;
export type CallbackCloseReason = (typeof CALLBACK_CLOSE_REASONS)[number];

/**
 * A scheduled callback (issue 18, decision 035): the contact belongs to `userId` until `dueAt`; the lead turn hands
 * it out first when due (to him; after the grace time to any manager of a topic with its base). `handedAt` is set
 * in the same statement that hands it out (or when it is taken from Мои перезвоны): a row without it is pending.
 * A callback closed without being handed out has `handedAt` (when it was closed), no `handedTo`, and `closedReason`.
 */
export const callbacks = pgTable(
  "callbacks",
  {
    id: serial("id").primaryKey(),
    contactId: bigint("contact_id", { mode: "number" })
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
    /** The contact's base, copied so the claim's tiers filter by the topic's bases on the callbacks index. */
    databaseId: integer("database_id").notNull(),
    /** The manager it belongs to (null: he was deleted; it is then anyone's once overdue). */
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    /** The topic it was scheduled in (the admin's list groups by it). */
    filterId: integer("filter_id").references(() => filters.id, { onDelete: "set null" }),
    statusText: text("status_text").notNull().default(""),
    /** What the manager wrote for the call back (issue 41 §7): shown when it is due, in the history, on Мои перезвоны. */
    note: text("note").notNull().default(""),
    /**
     * The lead event of the press that scheduled it (its history row shows the callback's time and note; null:
     * scheduled before issue 41). No foreign key: lead events are append-only, never deleted.
     */
    leadEventId: bigint("lead_event_id", { mode: "number" }),
    dueAt: timestamp("due_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    handedAt: timestamp("handed_at", { withTimezone: true }),
    handedTo: integer("handed_to").references(() => users.id, { onDelete: "set null" }),
    /** Set when it was closed instead of handed out (null: pending, or handed out to `handedTo`). */
    closedReason: text("closed_reason", { enum: CALLBACK_CLOSE_REASONS }),
  },
  (t) => [
    // The turn's own-callback tier: this manager's pending callbacks by due time.
    index("callbacks_pending_user_idx")
      .on(t.userId, t.dueAt)
      .where(sql`${t.handedAt} is null`),
    // The overdue tier and the scheduler: pending callbacks by due time.
    index("callbacks_pending_due_idx")
      .on(t.dueAt)
      .where(sql`${t.handedAt} is null`),
    // The re-work tier leaves out contacts with a pending callback.
    index("callbacks_pending_contact_idx")
      .on(t.contactId)
      .where(sql`${t.handedAt} is null`),
    // A client's history finds the callback of each press (issue 41 §7).
    index("callbacks_lead_event_idx")
      .on(t.leadEventId)
      .where(sql`${t.leadEventId} is not null`),
  ],
);

export type Callback = typeof callbacks.$inferSelect;
