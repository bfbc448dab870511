import { isNull, sql, type SQL } from "drizzle-orm";
import { databases } from "../../../db/schema";

/**
 * Which bases exist for everyone but the import writing them (decision 046): an import writes its batches in short
 * transactions into a base marked `importing_since` and clears the mark in its last transaction. Every read that
 * shows or uses bases or their contacts goes through these conditions, so a base and its contacts appear at once,
 * when the import ends, or never.
 */

/** A visible base, as a condition on the `databases` table (Drizzle queries). */
export const baseVisible: SQL = isNull(databases.importingSince);

/** A visible base, in raw SQL over an alias of `databases` (`d` → `d.importing_since is null`). */
export const visibleBase = (alias: string): SQL => sql`${sql.raw(alias)}.importing_since is null`;

/**
 * A contact of a visible base, in raw SQL over an alias of `contacts`, for queries that do not join `databases`
 * (the marked bases are few: one per import under way).
 */
export const inVisibleBase = (contact: string): SQL =>
  sql`${sql.raw(contact)}.database_id not in (select hidden.id from databases hidden where hidden.importing_since is not null)`;

/**
 * An import whose base was not touched for this long is abandoned (its process crashed or stopped): the import
 * sweeper removes its base and contacts. Each batch touches the mark, and a batch takes seconds, so a live import
 * is never this old, even with another instance on the same Postgres importing right now.
 */
export const IMPORT_STALE_MINUTES = 10;

/** The mark of an abandoned import (raw SQL over an alias of `databases`). */
export const staleImport = (alias: string): SQL => sql`${sql.raw(alias)}.importing_since < now() - make_interval(mins => ${IMPORT_STALE_MINUTES})`;
