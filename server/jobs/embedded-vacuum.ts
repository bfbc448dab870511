import { sql } from "drizzle-orm";
import type { DbHandle } from "../../db/client";
import { selectRows } from "../../db/typed-sql";

/** One VACUUM the job ran: which table, how many dead rows it had, how long PGlite's one connection was held. */
export interface VacuumRun {
  table: string;
  deadRows: number;
  ms: number;
  at: number;
}

/**
 * The vacuum part of autovacuum for the embedded database (decision 045; decision 041 does its ANALYZE part).
 * PGlite runs no autovacuum, so the dead rows of status presses (each one updates a contact and writes an event)
 * and of removed imports would stay forever. Every `checkMs` the job reads pg_stat_user_tables (cheap) and vacuums
 * at most one table whose dead rows passed its threshold: the one with most. A VACUUM holds PGlite's one
 * connection while it runs, so presses wait for it:
 * - a small table (under `largeRows` live rows: statuses, users, settings, bases) is vacuumed as soon as it has
 *   `minDead` dead rows and a fifth of its size: tens of milliseconds;
 * - a large one (contacts, events) only at a tenth of its size dead, and only when the app is idle (no request for
 *   `quietMs`), or when it has waited `maxWaitMs` for a quiet moment: at 1,000,000 contacts a VACUUM of 140,000
 *   dead rows took 1.0-1.7 s on a loaded 2-core machine (load average 12), 48 ms for 200 (decision 045).
 * On Postgres the job does nothing: autovacuum does it there.
 */
export function startEmbeddedVacuum(
  handle: Pick<DbHandle, "db" | "kind">,
  options: {
    checkMs?: number;
    /** Milliseconds since the last request (0 while one is in flight); by default always idle. */
    quietFor?: () => number;
    quietMs?: number;
    maxWaitMs?: number;
    largeRows?: number;
    minDead?: number;
    log?: (message: string, error: unknown) => void;
    onVacuum?: (run: VacuumRun) => void;
  } = {},
) {
  const checkMs = options.checkMs ?? 60_000;
  const quietMs = options.quietMs ?? 10_000;
  const maxWaitMs = options.maxWaitMs ?? 30 * 60_000;
  const largeRows = options.largeRows ?? 100_000;
  const minDead = options.minDead ?? 50;
  const quietFor = options.quietFor ?? (() => Number.POSITIVE_INFINITY);
  /** When each large table was first found due and not vacuumed for want of a quiet moment. */
  const dueSince = new Map<string, number>();
  let running = false;

  /** Vacuums the table most in need, if any is due; answers what it did. */
  const tick = async (): Promise<VacuumRun | null> => {
    if (handle.kind !== "pglite" || running) return null;
    running = true;
    try {
      // The counts of the last second's statements are still this connection's own until it reports them.
      await handle.db.execute(sql`select pg_stat_force_next_flush()`);
      const tables = await selectRows(
        handle.db,
        {
          table: sql<string>`s.relname`,
          // The counters start from zero when the app starts: the size is also taken from the catalogue's estimate
          // (kept by ANALYZE and VACUUM, decision 041).
          live: sql<string | number>`greatest(s.n_live_tup, c.reltuples::bigint)`,
          dead: sql<string | number>`s.n_dead_tup`,
        },
        (list) => sql`select ${list}
            from pg_stat_user_tables s join pg_class c on c.oid = s.relid
            where s.schemaname = 'public' and s.n_dead_tup >= ${minDead} order by s.n_dead_tup desc`,
      );
      const now = Date.now();
      for (const row of tables) {
        const live = Number(row.live);
        const dead = Number(row.dead);
        const large = live >= largeRows;
        if (dead < (large ? live / 10 : Math.max(minDead, live / 5))) continue;
        if (large) {
          const since = dueSince.get(row.table) ?? now;
          dueSince.set(row.table, since);
          if (quietFor() < quietMs && now - since < maxWaitMs) continue;
        }
        // The name comes from the catalogue; quoted all the same.
        const started = performance.now();
        await handle.db.execute(sql.raw(`vacuum "${row.table.replace(/"/g, '""')}"`));
        const run = { table: row.table, deadRows: dead, ms: performance.now() - started, at: now };
        dueSince.delete(row.table);
        options.onVacuum?.(run);
        return run;
      }
      return null;
    } catch (error) {
      options.log?.("vacuum of the embedded database failed", error);
      return null;
    } finally {
      running = false;
    }
  };

  if (handle.kind !== "pglite") return { stop: () => {}, tick };
  const timer = setInterval(() => void tick(), checkMs);
  timer.unref();
  return { stop: () => clearInterval(timer), tick };
}
