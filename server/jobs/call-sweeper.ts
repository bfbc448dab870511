import type { Db } from "../../db/client";
import { closeSilentCalls } from "../core/calls/calls";

/**
 * Closes calls whose browser went silent (a closed tab or a crash sends no end): every instance sweeps on its
 * own; the update is idempotent, so two instances sweeping at once close each call once.
 */
export function startCallSweeper(db: Db, options: { everyMs?: number; log?: (message: string, error: unknown) => void } = {}) {
  const timer = setInterval(() => {
    closeSilentCalls(db).catch((error) => options.log?.("closing silent calls failed", error));
  }, options.everyMs ?? 30_000);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
