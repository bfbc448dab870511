import { integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * The do-not-call list (issue 18): numbers never to hand out, by the import's normalised key (phoneKey). The claim
 * probes the unique index on `phone_key` once per candidate contact (server/core/dnc/dnc.ts, decision 036).
 */
export const doNotCall = pgTable(
  "do_not_call",
  {
    id: serial("id").primaryKey(),
    /** E.164 digits without the plus, as `contacts.phone_key`. */
    phoneKey: text("phone_key").notNull(),
    /** As the admin or the contact wrote it. */
    phone: text("phone").notNull(),
    /** Who added it (an admin, or the manager who pressed a do-not-call status). */
    addedBy: integer("added_by").references(() => users.id, { onDelete: "set null" }),
    /** Kept when the user is deleted later. */
    addedByLogin: text("added_by_login").notNull().default(""),
    addedAt: timestamp("added_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("do_not_call_phone_key_idx").on(t.phoneKey)],
);

export type DoNotCallRow = typeof doNotCall.$inferSelect;
