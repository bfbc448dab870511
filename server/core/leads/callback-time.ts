import { z } from "zod";
import { badRequest } from "../errors";
import { kyivInstant, kyivWallClock } from "../../../common/business-time";
import { CALLBACK_NOTE_MAX, CALLBACK_NOTE_TOO_LONG } from "../../../common/callback-note";

/** How far ahead a callback may be scheduled. */
export const CALLBACK_MAX_DAYS = 366;
/** A time a little in the past (the clock of the browser, the time to press) still counts as "now". */
const PAST_SLACK_MS = 60_000;

export const CALLBACK_TIME_INVALID = "Неверное время перезвона";
/** A date or time that no calendar or clock has (30 February, 31 April, 29 February of a common year, 25:00). */
export const CALLBACK_DATE_IMPOSSIBLE = "Такой даты не существует";
export const CALLBACK_TIME_PAST = "Время перезвона уже прошло";
export const CALLBACK_TIME_TOO_FAR = `Время перезвона не может быть дальше ${CALLBACK_MAX_DAYS} дней`;

/** The quick choices of the lead panel, computed on the server (so they work without JavaScript too). */
export const CALLBACK_PRESETS = [
  { value: "15m", label: "Через 15 минут" },
  { value: "1h", label: "Через 1 час" },
  { value: "tomorrow10", label: "Завтра в 10:00" },
] as const;
export type CallbackPreset = (typeof CALLBACK_PRESETS)[number]["value"];

/** Checks a callback time: a real instant, not in the past, not too far ahead. */
export function checkCallbackTime(at: Date, now = new Date()): Date {
  if (Number.isNaN(at.getTime())) throw badRequest(CALLBACK_TIME_INVALID, "callback_time_invalid");
  if (at.getTime() < now.getTime() - PAST_SLACK_MS) throw badRequest(CALLBACK_TIME_PAST, "callback_time_past");
  if (at.getTime() > now.getTime() + CALLBACK_MAX_DAYS * 86_400_000) throw badRequest(CALLBACK_TIME_TOO_FAR, "callback_time_too_far");
  return at;
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number) => (month === 2 && isLeap(year) ? 29 : MONTH_DAYS[month - 1]);

/**
 * The instant of a calendar date and clock time that must exist as written: no 30 February, no 31 April, no
 * 29 February of a common year, no hour 24 or 25, no minute or second 60. `Date` would quietly roll such a date
 * over (30 February 2027 became 2 March), so it is refused here, before any check of the instant (400).
 */
export function realWallClock(year: number, month: number, day: number, hour: number, minute: number, second = 0, ms = 0): number {
  const exists = month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month) && hour <= 23 && minute <= 59 && second <= 59;
  if (!exists) throw badRequest(CALLBACK_DATE_IMPOSSIBLE, "callback_date_impossible");
  const at = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, ms));
  at.setUTCFullYear(year); // Date.UTC reads the years 0-99 as 1900-1999
  return at.getTime();
}

const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|([+-])(\d{2}):?(\d{2}))$/;

/** An ISO 8601 instant with its offset, read by its own fields (a date that does not exist is refused, not rolled over). */
export function parseCallbackInstant(text: string): Date {
  const m = ISO_INSTANT.exec(text.trim());
  if (!m) throw badRequest(CALLBACK_TIME_INVALID, "callback_time_invalid");
  const [, y, mo, d, h, mi, s, fraction, zone, sign, offH, offM] = m;
  const wall = realWallClock(+y, +mo, +d, +h, +mi, s ? +s : 0, fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0);
  if (zone === "Z") return new Date(wall);
  if (+offH > 23 || +offM > 59) throw badRequest(CALLBACK_TIME_INVALID, "callback_time_invalid");
  const offset = (sign === "-" ? -1 : 1) * (+offH * 60 + +offM) * 60_000;
  return new Date(wall - offset);
}

/** API input: an ISO 8601 instant with its offset ("2026-11-25T10:00:00+02:00" or "...Z"). */
export const callbackAtSchema = z
  .string({ error: CALLBACK_TIME_INVALID })
  .trim()
  .transform((text, ctx) => {
    try {
      return checkCallbackTime(parseCallbackInstant(text));
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  });

/** A callback's note (issue 41 §7): what to say when it is due; none is an empty text. */
export const callbackNoteSchema = z
  .string({ error: "Неверная заметка к перезвону" })
  .max(CALLBACK_NOTE_MAX, { error: CALLBACK_NOTE_TOO_LONG })
  .nullish()
  .transform((v) => (v ?? "").trim());

/** A Kyiv wall-clock time ("2026-11-25T10:00", as an `<input type="datetime-local">` sends it) as an instant. */
export function kyivLocalToDate(local: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/.exec(local.trim());
  if (!m) throw badRequest(CALLBACK_TIME_INVALID, "callback_time_invalid");
  realWallClock(+m[1], +m[2], +m[3], +m[4], +m[5]); // refuses 30 February and 25:00
  return kyivInstant(+m[1], +m[2], +m[3], +m[4], +m[5]);
}

/** An instant as a Kyiv wall-clock "YYYY-MM-DDTHH:mm" (the value of a datetime-local input). */
export const dateToKyivLocal = kyivWallClock;

/** The instant of a quick choice, from now. */
export function callbackPresetTime(preset: string, now = new Date()): Date {
  if (preset === "15m") return new Date(now.getTime() + 15 * 60_000);
  if (preset === "1h") return new Date(now.getTime() + 60 * 60_000);
  if (preset === "tomorrow10") {
    const [y, mo, d] = dateToKyivLocal(now).slice(0, 10).split("-").map(Number);
    return kyivInstant(y, mo, d + 1, 10, 0); // TZDate rolls the 32nd over into the next month
  }
  throw badRequest(CALLBACK_TIME_INVALID, "callback_time_invalid");
}

/**
 * The callback time a form sent: a quick choice (`callbackPreset`) or the free choice (`callbackLocal`, Kyiv wall
 * clock); null when neither was sent.
 */
export function callbackTimeFromForm(preset: string, local: string, now = new Date()): Date | null {
  if (preset) return checkCallbackTime(callbackPresetTime(preset, now), now);
  if (local) return checkCallbackTime(kyivLocalToDate(local), now);
  return null;
}
