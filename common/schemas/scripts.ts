// Run by the server (core's scripts, the API) and the browser (the /scripts editor checks the same schema).
import * as z from "zod";
import { requiredText } from "../validation";

/** 200 KB of HTML is a long script; anything beyond is a paste accident. */
export const SCRIPT_CONTENT_MAX = 200_000;

export const scriptSchema = z.object({
  name: requiredText("Введите название скрипта", 200),
  content: z.string({ error: "Неверное содержимое скрипта" }).max(SCRIPT_CONTENT_MAX, { error: "Скрипт слишком длинный" }).default(""),
});
