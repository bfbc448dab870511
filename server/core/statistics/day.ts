/** The business day is the calendar day in Kyiv (SPEC §9: times are Europe/Kyiv). */
export const BUSINESS_TIME_ZONE = "Europe/Kyiv";

const parts = new Intl.DateTimeFormat("en-US", {
  timeZone: BUSINESS_TIME_ZONE,
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});

/** The Kyiv wall-clock fields of an instant. */
function wallClock(instant: Date) {
  const p = Object.fromEntries(parts.formatToParts(instant).map((x) => [x.type, x.value]));
  return {
    year: Number(p.year),
    month: Number(p.month),
    day: Number(p.day),
    hour: Number(p.hour),
    minute: Number(p.minute),
    second: Number(p.second),
  };
}

/** Kyiv's offset from UTC at an instant, in milliseconds (+2 h in winter, +3 h in summer). */
export function kyivOffsetMs(instant: Date): number {
  const w = wallClock(instant);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return asUtc - Math.floor(instant.getTime() / 1000) * 1000;
}

/** The instant a Kyiv calendar day begins (Kyiv changes clocks at 03:00/04:00, never at midnight). */
function kyivMidnight(year: number, month: number, day: number): Date {
  const guess = Date.UTC(year, month - 1, day);
  let instant = guess - kyivOffsetMs(new Date(guess));
  instant = guess - kyivOffsetMs(new Date(instant));
  return new Date(instant);
}

/** [start, end) of the Kyiv day that contains `now`. */
export function kyivDay(now: Date): { start: Date; end: Date } {
  const w = wallClock(now);
  const start = kyivMidnight(w.year, w.month, w.day);
  const next = new Date(Date.UTC(w.year, w.month - 1, w.day + 1));
  const end = kyivMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate());
  return { start, end };
}

/** The Kyiv calendar date of an instant as YYYY-MM-DD (the rollup's day; the database computes the same). */
export function kyivDate(now: Date): string {
  const w = wallClock(now);
  return `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
}
