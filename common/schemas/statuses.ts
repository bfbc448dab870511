// Run by the server (core's statuses, the API) and the browser (a /edit-statuses row checks the same fields).
import * as z from "zod";
import { requiredText } from "../validation";

export const colorSchema = z
  .string({ error: "Укажите цвет статуса" })
  .trim()
  .regex(/^#[0-9a-fA-F]{6}$/, { error: "Неверный цвет: ожидается вид #rrggbb" })
  .transform((value) => value.toLowerCase());
export const statusText = requiredText("Введите текст статуса", 200);
export const buttonText = z.string({ error: "Неверный текст кнопки" }).trim().max(200, { error: "Слишком длинный текст кнопки" });
const description = z.string({ error: "Неверное описание" }).max(2000, { error: "Слишком длинное описание" });
const order = z
  .number({ error: "Неверный порядок" })
  .int({ error: "Неверный порядок" })
  .min(0, { error: "Неверный порядок" })
  .max(100000, { error: "Неверный порядок" });
const flag = z.boolean({ error: "Ожидается true или false" });
/** Issue 31: the lead panel's digit, 1-9, or null (empty in a form) for the next free one. */
const HOTKEY_MESSAGE = "Клавиша — цифра от 1 до 9";
export const hotkey = z.preprocess(
  // A form sends text: empty is "by order", digits are a number.
  (value) => (value === "" ? null : typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value),
  z.number({ error: HOTKEY_MESSAGE }).int({ error: HOTKEY_MESSAGE }).min(1, { error: HOTKEY_MESSAGE }).max(9, { error: HOTKEY_MESSAGE }).nullable(),
);

export const createStatusSchema = z.object({
  text: statusText,
  buttonText: buttonText.optional(),
  color: colorSchema.optional(),
  isHidden: flag.optional(),
  description: description.optional(),
  order: order.optional(),
  isReportStatus: flag.optional(),
  isTechnical: flag.optional(),
  isDoNotCall: flag.optional(),
  asksCallback: flag.optional(),
  hotkey: hotkey.optional(),
});

/** PUT sends the whole status (SPEC §7); every field is optional so a partial edit works too. */
export const updateStatusSchema = createStatusSchema.partial().extend({ id: z.unknown().optional() });
