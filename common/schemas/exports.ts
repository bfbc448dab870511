// Run by the server (core's exports, the API) and the browser (the /exportbase create form checks the same schema).
import * as z from "zod";
import { digitsOrNumber, requiredText } from "../validation";

/** A list of ids from a form (one value or many) or JSON, without repeats. */
const ids = (message: string) =>
  z
    .preprocess(
      (value) => (value === undefined || value === null || value === "" ? [] : Array.isArray(value) ? value : [value]),
      // Digits from a form, numbers from JSON; never `true` or "" read as 1 or 0 (issue 43).
      z.array(digitsOrNumber(message, 0, 2147483647)),
    )
    .transform((list) => [...new Set(list)]);

/** The file formats an export can be written in. */
export const EXPORT_FORMATS = ["xlsx", "csv"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** SPEC §5: Введите имя експорта, Выберите минимум 1 базу, Выберите минимум 1 статус. */
export const createExportSchema = z.object({
  name: requiredText("Введите имя експорта", 200),
  databaseIds: ids("Выберите минимум 1 базу")
    .transform((list) => list.filter((id) => id > 0))
    .refine((list) => list.length > 0, { error: "Выберите минимум 1 базу" }),
  statusIds: ids("Выберите минимум 1 статус").refine((list) => list.length > 0, { error: "Выберите минимум 1 статус" }),
  format: z.preprocess(
    (value) => (value === undefined || value === null || value === "" ? "xlsx" : value),
    z.enum(EXPORT_FORMATS, { error: "Формат файла: xlsx или csv" }),
  ),
});
