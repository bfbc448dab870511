// Run by the server (core's settings, the API) and the browser (the /basesettings form checks the same schema).
import * as z from "zod";

/**
 * A call in's bounds (decision 077): under 5 s a manager cannot reach «Ответить»; over 60 s a client hears one
 * manager's ringing for a minute. 10 managers at 60 s is 10 minutes of ringing, more than any client waits.
 */
export const INBOUND_RING_SECONDS = { min: 5, max: 60 } as const;
export const INBOUND_MAX_MANAGERS = { min: 1, max: 10 } as const;

/** A whole number within `bounds`, one message for every way it is wrong; left out: unchanged. */
const wholeWithin = (bounds: { min: number; max: number }, what: string) => {
  const error = `${what} от ${bounds.min} до ${bounds.max}`;
  return z.number({ error }).int({ error }).min(bounds.min, { error }).max(bounds.max, { error }).optional();
};

export const databaseSettingsSchema = z.object({
  removeDuplicatesInBase: z.boolean({ error: "removeDuplicatesInBase: ожидается true или false" }),
  removeDuplicatesAcrossBases: z.boolean({ error: "removeDuplicatesAcrossBases: ожидается true или false" }),
  defaultInfo: z
    .string({ error: "defaultInfo: ожидается текст" })
    .max(5000, { error: "Слишком длинный текст по умолчанию (не более 5000 символов)" })
    .default(""),
  /** Issue 18: a due callback its manager has not taken for this long goes to any manager of the topic. */
  callbackGraceMinutes: z
    .number({ error: "Неверное время ожидания перезвона" })
    .int({ error: "Время ожидания перезвона: целое число минут" })
    .min(1, { error: "Время ожидания перезвона: от 1 до 1440 минут" })
    .max(1440, { error: "Время ожидания перезвона: от 1 до 1440 минут" })
    .optional(),
  /** Issue 42: a call in rings one manager this long, then the next candidate. */
  inboundRingSeconds: wholeWithin(INBOUND_RING_SECONDS, "Звонок одному менеджеру: целое число секунд"),
  /** Issue 42: how many managers a call in rings, one after another, before it counts as missed. */
  inboundMaxManagers: wholeWithin(INBOUND_MAX_MANAGERS, "Менеджеров на один входящий звонок: целое число"),
});
