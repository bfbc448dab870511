// Run by the server (core's settings, the API) and the browser (the /basesettings form checks the same schema).
import * as z from "zod";

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
});
