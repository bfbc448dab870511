import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp } from "drizzle-orm/pg-core";
import { timestamps, users } from "./users";
import { statuses } from "./work";

/** One imported spreadsheet's contacts (a "base"). */
export const databases = pgTable("databases", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  /** Fixed at import: contacts are only ever removed with their base. */
  contactsCount: integer("contacts_count").notNull().default(0),
  /**
   * The file's column headers the admin mapped to Доп. поле 1-4 at import (index 0 is field 1; "" when the column
   * had no header or was not mapped): the client card labels these fields with them.
   */
  extraLabels: text("extra_labels")
    .array()
    .notNull()
    .default(sql`'{}'::text[]`),
  /**
   * The file's header of each mapped column, by the contact field it became ({ name: "ФИО клиента",
   * additionalInfo1: "Сумма долга" }; empty for a file without a header row and for bases imported before issue 41):
   * a card template field named as a column starts with the client's value (server/core/leads/card-start.ts).
   */
  columnHeaders: jsonb("column_headers").$type<Record<string, string>>().notNull().default({}),
  /**
   * Set while an import is still writing this base (touched by each of its batches; decision 046): such a base is
   * in no list, search, topic or export until the import's last transaction clears it. NULL: a normal base.
   */
  importingSince: timestamp("importing_since", { withTimezone: true }),
  ...timestamps,
});

/**
 * One row of a base. While a manager holds it (`heldBy`, until `heldUntil`) it is his lead.
 * `statusId` is the current status (null: free, never worked).
 */
export const contacts = pgTable(
  "contacts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /**
     * The base. Kept by statement-level triggers rather than a foreign key (migration 0007, decision 017): a key
     * checks every row of an import on its own; the triggers check each insert statement once, refuse moving a
     * contact to another base, and delete a base's contacts with it.
     */
    databaseId: integer("database_id").notNull(),
    name: text("name").notNull().default(""),
    /** As written in the file, for display. */
    phone: text("phone").notNull().default(""),
    /** Normalised (E.164 digits) for dedup and search. */
    phoneKey: text("phone_key").notNull().default(""),
    city: text("city").notNull().default(""),
    address: text("address").notNull().default(""),
    age: text("age").notNull().default(""),
    additionalInfo1: text("additional_info1").notNull().default(""),
    additionalInfo2: text("additional_info2").notNull().default(""),
    additionalInfo3: text("additional_info3").notNull().default(""),
    additionalInfo4: text("additional_info4").notNull().default(""),
    statusId: integer("status_id").references(() => statuses.id, { onDelete: "set null" }),
    statusAt: timestamp("status_at", { withTimezone: true }),
    lastUserId: integer("last_user_id").references(() => users.id, { onDelete: "set null" }),
    clientInfo: text("client_info").notNull().default(""),
    heldBy: integer("held_by").references(() => users.id, { onDelete: "set null" }),
    heldUntil: timestamp("held_until", { withTimezone: true }),
    /**
     * Its number is on the do-not-call list: kept by triggers on do_not_call (decision 036), so the free index
     * leaves such contacts out and a turn never walks past them. The rule itself is `mayBeCalled`.
     */
    listed: boolean("listed").notNull().default(false),
    /** When the holder got it (the claim, or taking a callback): /users' "working a lead since" (decision 038). */
    heldSince: timestamp("held_since", { withTimezone: true }),
    /**
     * The client's IANA time zone from the phone number (libphonenumber's mapping, decision 050), set at import;
     * null when the number does not name one zone (the topic's default zone applies).
     */
    tz: text("tz"),
    /**
     * Since when the client agreed to be called (issue 43): the base's «Согласие на звонки» column at import (a
     * date, or «да»: the import's time); null: no consent known. A topic «только с согласием» calls only clients
     * with it (38-FZ art. 18, advertising calls).
     */
    consentAt: timestamp("consent_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // Free, unheld, callable contacts in import order, base by base and zone by zone (the zone key: '' for a
    // contact without a zone): the claim walks the open zones of each base (DESIGN §10, issue 43).
    index("contacts_free_idx")
      .on(t.databaseId, sql`coalesce(${t.tz}, '')`, t.id)
      .where(sql`${t.statusId} is null and ${t.heldBy} is null and not ${t.listed}`),
    // Re-work: contacts with a status, least recently touched first. Partial, like the two below: an imported
    // contact has no status and no last manager, so an import does not pay for these indexes (decision 010).
    // With the id last, the retry tier's walk per base, status and zone key (coalesce(tz, ''), issue 43) is in its
    // full order (status_at, id).
    index("contacts_rework_idx")
      .on(t.databaseId, t.statusId, sql`coalesce(${t.tz}, '')`, t.statusAt, t.id)
      .where(sql`${t.statusId} is not null`),
    index("contacts_held_by_idx")
      .on(t.heldBy)
      .where(sql`${t.heldBy} is not null`),
    // Expired holds: the first claim tier reads only the holds past their time, not every held row.
    index("contacts_held_until_idx")
      .on(t.heldUntil)
      .where(sql`${t.heldBy} is not null`),
    index("contacts_phone_key_idx").on(t.phoneKey),
    // Search by a part of the name (docs/decisions: pg_trgm on both backends).
    index("contacts_name_trgm_idx").using("gin", sql`lower(${t.name}) gin_trgm_ops`),
    index("contacts_status_id_idx")
      .on(t.statusId)
      .where(sql`${t.statusId} is not null`),
    index("contacts_last_user_id_idx")
      .on(t.lastUserId)
      .where(sql`${t.lastUserId} is not null`),
  ],
);

export type Base = typeof databases.$inferSelect;
export type Contact = typeof contacts.$inferSelect;
