/**
 * The call centre's clock (SPEC §9: times are Europe/Kyiv): the business day of the statistics, callback times
 * as managers choose and read them, the default zone of a topic's calling hours. The zone arithmetic is
 * @date-fns/tz's (TZDate), not ours. The browser formats with the same zone.
 */
import { TZDate } from "@date-fns/tz";
import { BUSINESS_TIME_ZONE, formatKyiv } from "./business-zone";

export { BUSINESS_TIME_ZONE, formatKyiv };

const pad = (n: number) => String(n).padStart(2, "0");
const inKyiv = (instant: Date) => new TZDate(instant.getTime(), BUSINESS_TIME_ZONE);

/** [start, end) of the Kyiv day that contains `now` (Kyiv changes clocks at 03:00/04:00, never at midnight). */
export function kyivDay(now: Date): { start: Date; end: Date } {
  const k = inKyiv(now);
  const start = new TZDate(k.getFullYear(), k.getMonth(), k.getDate(), BUSINESS_TIME_ZONE);
  const end = new TZDate(k.getFullYear(), k.getMonth(), k.getDate() + 1, BUSINESS_TIME_ZONE);
  return { start: new Date(start.getTime()), end: new Date(end.getTime()) };
}

/** The Kyiv calendar date of an instant as YYYY-MM-DD (the rollup's day; the database computes the same). */
export function kyivDate(now: Date): string {
  const k = inKyiv(now);
  return `${k.getFullYear()}-${pad(k.getMonth() + 1)}-${pad(k.getDate())}`;
}

/** An instant as a Kyiv wall clock "YYYY-MM-DDTHH:mm" (the value of a datetime-local input). */
export function kyivWallClock(at: Date): string {
  const k = inKyiv(at);
  return `${kyivDate(at)}T${pad(k.getHours())}:${pad(k.getMinutes())}`;
}

/** The instant of a Kyiv wall-clock time (month 1-12); the caller has checked the date exists. */
export function kyivInstant(year: number, month: number, day: number, hour = 0, minute = 0): Date {
  return new Date(new TZDate(year, month - 1, day, hour, minute, BUSINESS_TIME_ZONE).getTime());
}

/** "15:30" when the instant is on today's Kyiv date, else formatKyiv's "25.11.2026, 15:30" (a callback's time). */
export function formatKyivClock(at: Date | string | number, now = new Date()): string {
  const when = new Date(at);
  if (kyivDate(when) !== kyivDate(now)) return formatKyiv(when);
  const k = inKyiv(when);
  return `${pad(k.getHours())}:${pad(k.getMinutes())}`;
}
