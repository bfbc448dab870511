import type { Db } from "../../db/client";
import { sweepAbandonedImports } from "../core/bases/import-cleanup";

/**
 * Removes the bases of imports a crashed or stopped process left behind (decision 046): at start and every minute,
 * bases still marked as importing and not touched for IMPORT_STALE_MINUTES go, their contacts in short chunks.
 * Every instance sweeps on its own; a base being imported by another instance is touched at each batch, so it is
 * never old enough to be taken. On the embedded database the first sweep also takes every import marked before the
 * start: only one process opens its data directory, so those were left by a process that died, and their names are
 * free again at once. Stopping waits for the chunk under way, and leaves the rest to the next sweep.
 */
export function startImportSweeper(
  db: Db,
  options: {
    everyMs?: number;
    log?: (message: string, error: unknown) => void;
    onRemoved?: (base: { id: number; name: string; contacts: number }) => void;
    /** The embedded database: the first sweep also takes imports marked before the start, however fresh. */
    soleProcess?: boolean;
  } = {},
) {
  const startedAt = new Date();
  let first = true;
  let stopped = false;
  let running: Promise<void> | null = null;
  const sweep = () => {
    if (stopped || running) return;
    const markedBefore = first && options.soleProcess ? startedAt : undefined;
    first = false;
    running = sweepAbandonedImports(db, { shouldStop: () => stopped, markedBefore })
      .then((removed) => removed.forEach((base) => options.onRemoved?.(base)))
      .catch((error) => options.log?.("removing abandoned imports failed", error))
      .finally(() => {
        running = null;
      });
  };
  sweep();
  const timer = setInterval(sweep, options.everyMs ?? 60_000);
  timer.unref();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
