import { sql } from "drizzle-orm";
import type { DbHandle } from "../../db/client";
import { selectRows } from "../../db/typed-sql";

/**
 * Planner statistics for the embedded database (decision 041). Postgres keeps them by autovacuum; PGlite runs no
 * autovacuum, so without this its tables are never analysed and the planner guesses: the lead turn's expired-hold
 * tier then walks every contact by primary key, 4 to 5 times the turn's cost (bench/capacity.ts). The job runs
 * ANALYZE when the app starts, when the contacts have grown by a tenth since the last one (an import), and every `refreshMs` for what changes in place (statuses, holds, events). ANALYZE samples at
 * most 30,000 rows a table, so it holds PGlite's one connection for well under a second.
 */
export function startPlannerStatistics(
  handle: Pick<DbHandle, "db" | "kind">,
  options: { checkMs?: number; refreshMs?: number; log?: (message: string, error: unknown) => void } = {},
) {
  const checkMs = options.checkMs ?? 60_000;
  const refreshMs = options.refreshMs ?? 60 * 60_000;
  let analysedAt = 0;
  let analysedSize: number | null = null;
  let running = false;

  /** A cheap stand-in for the contacts' count (the primary key's last entry): it grows with every import. */
  const size = async () => {
    const [row] = await selectRows(handle.db, { top: sql<string | number | null>`max(id)` }, (list) => sql`select ${list} from contacts`);
    return Number(row?.top ?? 0);
  };

  /** Analyses when due; answers whether it did. */
  const tick = async (): Promise<boolean> => {
    if (handle.kind !== "pglite" || running) return false;
    running = true;
    try {
      const now = Date.now();
      const current = await size();
      const grown = analysedSize == null || Math.abs(current - analysedSize) > Math.max(1000, analysedSize / 10);
      if (!grown && now - analysedAt < refreshMs) return false;
      await handle.db.execute(sql`analyze`);
      analysedAt = now;
      analysedSize = current;
      return true;
    } catch (error) {
      options.log?.("planner statistics failed", error);
      return false;
    } finally {
      running = false;
    }
  };

  if (handle.kind !== "pglite") return { stop: () => {}, tick };
  const timer = setInterval(() => void tick(), checkMs);
  timer.unref();
  void tick();
  return { stop: () => clearInterval(timer), tick };
}
