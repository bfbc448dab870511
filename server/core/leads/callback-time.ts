import { z } from "zod";
import { badRequest } from "../errors";
import { BUSINESS_TIME_ZONE, kyivOffsetMs } from "../statistics/day";

/** Callback times are chosen and shown in the call centre's time zone (issue 18). */
export const CALLBACK_TIME_ZONE = BUSINESS_TIME_ZONE;
/** How far ahead a callback may be scheduled. */
export const CALLBACK_MAX_DAYS = 366;
/** A time a little in the past (the clock of the browser, the time to press) still counts as "now". */
const PAST_SLACK_MS = 60_000;

export const CALLBACK_TIME_INVALID = "Неверное время перезвона";
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

/** API input: an ISO 8601 instant with its offset ("2026-11-25T10:00:00+02:00" or "...Z"). */
export const callbackAtSchema = z
  .string({ error: CALLBACK_TIME_INVALID })
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/, { error: CALLBACK_TIME_INVALID })
  .transform((text, ctx) => {
    try {
      return checkCallbackTime(new Date(text));
    } catch (error) {
      ctx.addIssue({ code: "custom", message: (error as Error).message });
      return z.NEVER;
    }
  });

/** A Kyiv wall-clock time ("2026-11-25T10:00", as an `<input type="datetime-local">` sends it) as an instant. */
export function kyivLocalToDate(local: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/.exec(local.trim());
  if (!m) throw badRequest(CALLBACK_TIME_INVALID, "callback_time_invalid");
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5]);
  // The offset at the guess, then again at the result (a DST change between the two).
  let at = wall - kyivOffsetMs(new Date(wall));
  at = wall - kyivOffsetMs(new Date(at));
  return new Date(at);
}

/** An instant as a Kyiv wall-clock "YYYY-MM-DDTHH:mm" (the value of a datetime-local input). */
export function dateToKyivLocal(at: Date): string {
  const shifted = new Date(at.getTime() + kyivOffsetMs(at));
  return shifted.toISOString().slice(0, 16);
}

/** The instant of a quick choice, from now. */
export function callbackPresetTime(preset: string, now = new Date()): Date {
  if (preset === "15m") return new Date(now.getTime() + 15 * 60_000);
  if (preset === "1h") return new Date(now.getTime() + 60 * 60_000);
  if (preset === "tomorrow10") {
    const today = dateToKyivLocal(now).slice(0, 10);
    const [y, mo, d] = today.split("-").map(Number);
    const tomorrow = new Date(Date.UTC(y, mo - 1, d + 1)).toISOString().slice(0, 10);
    return kyivLocalToDate(`${tomorrow}T10:00`);
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

/** "25.11.2026, 10:00" in Kyiv time. */
export function formatKyiv(at: Date | string): string {
  return new Intl.DateTimeFormat("ru-RU", { timeZone: CALLBACK_TIME_ZONE, dateStyle: "short", timeStyle: "short" }).format(
    new Date(at),
  );
}
