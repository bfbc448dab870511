import { boolean, index, integer, pgTable, serial, text } from "drizzle-orm/pg-core";
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
  isActive: boolean("is_active").notNull().default(false),
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
  ...timestamps,
});

export type Status = typeof statuses.$inferSelect;
export type Script = typeof scripts.$inferSelect;
export type Template = typeof templates.$inferSelect;
export type Link = typeof links.$inferSelect;
export type Settings = typeof settings.$inferSelect;
