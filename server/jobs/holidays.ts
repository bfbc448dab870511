import type { Db } from "../../db/client";
import { fillPublicHolidays } from "../core/filters/holidays";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps public_holidays filled for the years around now (decision 076): at start, then every few hours (a new year
 * comes in on its own; nothing is written while the data set and the years are the ones already filled).
 */
export function startHolidayFill(db: Db, options: { everyMs?: number; log?: (message: string, error: unknown) => void }) {
  let running: Promise<unknown> = Promise.resolve();
  const run = () => {
    running = fillPublicHolidays(db).catch((error) => options.log?.("public holidays fill failed", error));
  };
  run();
  const timer = setInterval(run, options.everyMs ?? DAY_MS / 4);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
