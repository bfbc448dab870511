import { boolean, customType, index, integer, pgTable, primaryKey, serial, text, timestamp } from "drizzle-orm/pg-core";
import { timestamps, users } from "./users";

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

export type Export = typeof exports.$inferSelect;
