import type { Db } from "../../db/client";
import { backfillZonesStep } from "../core/bases/phone-zone";

/**
 * Gives contacts imported before calling hours existed their time zone (decision 050), at start, in short steps:
 * the claim treats a contact without one as being in its topic's zone until then. Every instance runs it; the
 * cursor row is taken with SKIP LOCKED, so one works while another waits and looks again later.
 */
export function startZoneBackfill(
  db: Db,
  options: { region: string; stepSize?: number; retryMs?: number; log?: (message: string, error: unknown) => void },
) {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  const later = (ms: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = run();
    }, ms);
    timer.unref();
  };
  const run = async (): Promise<void> => {
    try {
      for (;;) {
        if (stopped) return;
        const step = await backfillZonesStep(db, options.region, options.stepSize);
        if (step === "done") return;
        if (step === "busy") return later(options.retryMs ?? 60_000);
      }
    } catch (error) {
      options.log?.("time zone backfill failed", error);
      later(options.retryMs ?? 60_000);
    }
  };
  running = run();
  return {
    stop: async () => {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
