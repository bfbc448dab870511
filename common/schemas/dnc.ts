// Run by the server (core's do-not-call list, the API) and the browser (the /donotcall forms check the same schemas).
import * as z from "zod";

export const PHONE_REQUIRED = "Введите номер телефона";

/** One number to add (whether it is a phone the core decides: it knows the region). */
export const addOneSchema = z.object({
  phone: z.string({ error: PHONE_REQUIRED }).trim().min(1, { error: PHONE_REQUIRED }).max(100, { error: "Слишком длинный номер" }),
});

/** Many numbers pasted, one a line. */
export const pasteSchema = z.object({
  text: z
    .string({ error: "Вставьте номера, по одному в строке" })
    .max(4_000_000, { error: "Слишком длинный текст: разбейте список на части или загрузите файлом" }),
});
