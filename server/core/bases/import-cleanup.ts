import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { databases } from "../../../db/schema";
import { staleImport } from "./visible";

/**
 * Contacts removed per statement when an import's base is removed: each chunk is its own short transaction, so
 * on the embedded database presses run between two chunks (decision 046).
 */
export const CLEANUP_CHUNK = 5000;

/**
 * Removes the base of an import that failed or was abandoned, with its contacts, in chunks; the base row goes last.
 * The mark is set to -infinity first (abandoned): a batch or the last transaction of that import, if one is still
 * running, then stops instead of writing on, and a cleanup cut short (the process stopping, a crash) is finished by
 * the sweeper at its next run. Only a base still marked as importing is touched: a visible base is never removed
 * here. Returns the contacts removed.
 */
export async function removeImport(db: Db, baseId: number, options: { shouldStop?: () => boolean } = {}): Promise<number> {
  await db
    .update(databases)
    .set({ importingSince: sql`'-infinity'::timestamptz` })
    .where(and(eq(databases.id, baseId), isNotNull(databases.importingSince)));
  let removed = 0;
  for (;;) {
    if (options.shouldStop?.()) return removed;
    // A turn of the event loop between chunks: on PGlite, requests that came meanwhile are read and run first.
    await new Promise((resolve) => setImmediate(resolve));
    const [row] = await selectRows(
      db,
      { n: sql<string | number>`count(*)` },
      (list) => sql`with gone as (
            delete from contacts where id in (
              select c.id from contacts c join databases d on d.id = c.database_id and d.importing_since is not null
              where c.database_id = ${baseId} limit ${CLEANUP_CHUNK})
            returning 1)
          select ${list} from gone`,
    );
    const n = Number(row?.n ?? 0);
    removed += n;
    if (n < CLEANUP_CHUNK) break;
  }
  await db.delete(databases).where(and(eq(databases.id, baseId), isNotNull(databases.importingSince)));
  return removed;
}

/**
 * Removes the bases of imports abandoned by a crashed or stopped process: marked, and not touched for
 * IMPORT_STALE_MINUTES (a live import touches its mark at each batch, whichever instance runs it). Each is claimed
 * in one statement (its mark set to -infinity, so the import, should it wake up, stops at its next batch), then
 * removed in chunks. Returns the bases removed.
 */
export async function sweepAbandonedImports(
  db: Db,
  options: {
    shouldStop?: () => boolean;
    /**
     * Also every import marked before this moment, however fresh: for the embedded database at the app's start,
     * when no other process can be importing into its data directory (the lock file), so whatever is marked was
     * left by a process that died.
     */
    markedBefore?: Date;
  } = {},
): Promise<Array<{ id: number; name: string; contacts: number }>> {
  const abandoned = options.markedBefore
    ? sql`(${staleImport("d")} or d.importing_since < ${options.markedBefore.toISOString()}::timestamptz)`
    : staleImport("d");
  const claimed = await selectRows(
    db,
    { id: sql<number>`d.id`, name: sql<string>`d.name` },
    (list) => sql`update databases d set importing_since = '-infinity'::timestamptz
        where d.importing_since is not null and ${abandoned}
        returning ${list}`,
  );
  const removed: Array<{ id: number; name: string; contacts: number }> = [];
  for (const base of claimed.sort((a, b) => a.id - b.id)) {
    if (options.shouldStop?.()) break;
    const contacts = await removeImport(db, base.id, options);
    removed.push({ id: base.id, name: base.name, contacts });
  }
  return removed;
}
