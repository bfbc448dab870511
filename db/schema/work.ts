import { bigint, boolean, index, integer, pgTable, serial, text } from "drizzle-orm/pg-core";
import { timestamps } from "./users";

/** The outcome a manager records; `buttonText` is its button label. */
export const statuses = pgTable(
  "statuses",
  {
    id: serial("id").primaryKey(),
    text: text("text").notNull(),
    buttonText: text("button_text").notNull().default(""),
    color: text("color").notNull().default("#f59e0b"),
    isHidden: boolean("is_hidden").notNull().default(false),
    description: text("description").notNull().default(""),
    order: integer("sort_order").notNull().default(0),
    isReportStatus: boolean("is_report_status").notNull().default(false),
    isTechnical: boolean("is_technical").notNull().default(false),
    /** Pressing it puts the contact's numbers on the do-not-call list (issue 18). */
    isDoNotCall: boolean("is_do_not_call").notNull().default(false),
    /** Pressing it asks for a callback time (issue 18): the contact comes back to the manager then. */
    asksCallback: boolean("asks_callback").notNull().default(false),
    /** The lead panel's digit 1-9 the admin gave it (issue 31); null: the next free one (server/core/statuses/keys.ts). */
    hotkey: integer("hotkey"),
    ...timestamps,
  },
  (t) => [index("statuses_sort_order_idx").on(t.order)],
);

/** Rich HTML a manager reads while calling (sanitised when saved and when rendered). */
export const scripts = pgTable("scripts", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  content: text("content").notNull().default(""),
  ...timestamps,
});

/** The client card's fields: JSON text of [{label, type: "text"|"textarea"}]. */
export const templates = pgTable("templates", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  /** Given to managers (decision 034); new templates start active. */
  isActive: boolean("is_active").notNull().default(true),
  templateFields: text("template_fields").notNull().default("[]"),
  ...timestamps,
});

/** A named URL shown on the lead panel. */
export const links = pgTable("links", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  link: text("link").notNull(),
  isActive: boolean("is_active").notNull().default(true),
  ...timestamps,
});

/** One row of settings for the whole installation. */
export const settings = pgTable("settings", {
  id: integer("id").primaryKey().default(1),
  removeDuplicatesInBase: boolean("remove_duplicates_in_base").notNull().default(true),
  removeDuplicatesAcrossBases: boolean("remove_duplicates_across_bases").notNull().default(false),
  defaultInfo: text("default_info").notNull().default(""),
  /** Earnings per report application, in cents. */
  rateWithPassportCents: integer("rate_with_passport_cents").notNull().default(0),
  rateWithoutPassportCents: integer("rate_without_passport_cents").notNull().default(0),
  /** A due callback the manager has not taken for this long goes to any manager of the topic. */
  callbackGraceMinutes: integer("callback_grace_minutes").notNull().default(15),
  /**
   * The time zone backfill of contacts imported before contacts.tz existed (decision 050): the job fills the ids
   * after `tzBackfilledTo` up to `tzBackfillEnd` (the highest id when the column came), then both stay equal.
   */
  tzBackfilledTo: bigint("tz_backfilled_to", { mode: "number" }).notNull().default(0),
  tzBackfillEnd: bigint("tz_backfill_end", { mode: "number" }).notNull().default(0),
  /** What public_holidays was last filled from (the data set's version and the years; decision 076): "" never. */
  holidaysFilled: text("holidays_filled").notNull().default(""),
  /** A call in rings one manager this many seconds, then the next one (issue 42). */
  inboundRingSeconds: integer("inbound_ring_seconds").notNull().default(20),
  /** How many managers a call in may ring, one after another, before it counts as missed. */
  inboundMaxManagers: integer("inbound_max_managers").notNull().default(3),
  ...timestamps,
});

export type Status = typeof statuses.$inferSelect;
export type Script = typeof scripts.$inferSelect;
export type Template = typeof templates.$inferSelect;
export type Link = typeof links.$inferSelect;
export type Settings = typeof settings.$inferSelect;
