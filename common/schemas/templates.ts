// Run by the server (core's templates, the API) and the browser (the /leadTemplate editor checks the same schemas).
import * as z from "zod";
import { requiredText } from "../validation";

export const FIELD_TYPES = ["text", "textarea"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const NEW_FIELD_LABEL = "Имя поля";
export const MAX_TEMPLATE_FIELDS = 50;

export const templateFieldSchema = z.object({
  label: requiredText("У каждого поля шаблона должно быть имя", 200),
  type: z.enum(FIELD_TYPES, { error: "Тип поля шаблона должен быть text или textarea" }),
  /**
   * «Столбец базы» (issue 41): the base column whose value the field starts with on the lead panel, when the names
   * differ; absent or empty: the column named as the field.
   */
  column: z
    .string({ error: "Столбец базы должен быть текстом" })
    .trim()
    .max(200, { error: "Название столбца базы — не более 200 символов" })
    .optional(),
});
export type TemplateField = z.infer<typeof templateFieldSchema>;

/** A template's list of fields: core's of stored fields, the editor's of its rows (a field with its lock). */
export const fieldListOf = <Field extends z.ZodType>(field: Field) =>
  z
    .array(field, { error: "Поля шаблона должны быть списком" })
    .max(MAX_TEMPLATE_FIELDS, { error: `Не более ${MAX_TEMPLATE_FIELDS} полей в шаблоне` });

/** The template's name (SPEC §5 shows «Выберите базу данных» for an empty one; the field says this). */
export const templateName = requiredText("Введите имя шаблона", 200);
