// Run by the server (the /importbase posts, core's import) and the browser (the import page checks a post before
// its upload starts).
import * as z from "zod";
import { requiredText } from "../validation";

/** SPEC §5: a base needs a name. */
export const baseNameSchema = requiredText("Введите название базы", 200);

/** What the stored file is called: the upload's id and the name it came with (the page keeps them in hidden fields). */
const storedText = z.string({ error: "Неверные данные формы" }).default("");

/**
 * «Загрузить»: the base's name (the file itself is streamed to the uploads folder before the fields are read). The
 * page checks «Сохранить»'s name with it too, before anything is sent; the server leaves that one to core's import
 * (the same schema), whose refusal keeps the stored file and the choices.
 */
export const previewPostSchema = z.object({ name: baseNameSchema });

/** «Показать лист»: another sheet of the stored file (the name is only carried along). */
export const sheetPostSchema = z.object({ name: storedText, uploadId: storedText, fileName: storedText, sheet: storedText });

const COLUMNS_ERROR = "Неверное число столбцов";

/**
 * «Сохранить»: the stored file with the chosen column types, one `map_<i>` select per column (`columns` of them),
 * or `mappings` as JSON (a client that sends them at once). Out: core's import input (core checks the types).
 */
export const importPostSchema = sheetPostSchema
  .extend({
    hasHeader: storedText,
    columns: z.coerce
      .number({ error: COLUMNS_ERROR })
      .int({ error: COLUMNS_ERROR })
      .min(0, { error: COLUMNS_ERROR })
      .max(1000, { error: COLUMNS_ERROR })
      .default(0),
    mappings: z.string({ error: "Сопоставление столбцов должно быть JSON-массивом" }).optional(),
  })
  .catchall(z.unknown())
  .transform(({ columns, mappings, name, uploadId, fileName, sheet, hasHeader, ...rest }) => ({
    name,
    uploadId,
    fileName,
    sheet,
    hasHeader,
    // A column left at «Выберите тип» (or a select not sent) is skipped.
    mappings: mappings ?? JSON.stringify(Array.from({ length: columns }, (_, i) => rest[`map_${i}`] || "skip")),
  }));
