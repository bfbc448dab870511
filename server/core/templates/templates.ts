import { asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { templates, type Template } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { notFound } from "../errors";
import { idSchema, parseInput } from "../validation";
import {
  FIELD_TYPES,
  type FieldType,
  fieldListOf,
  MAX_TEMPLATE_FIELDS,
  NEW_FIELD_LABEL,
  type TemplateField,
  templateFieldSchema,
  templateName,
} from "../../../common/schemas/templates";

// The field schemas are in common/ (the /leadTemplate editor checks them in the browser too); core re-exports them.
export { FIELD_TYPES, MAX_TEMPLATE_FIELDS, NEW_FIELD_LABEL, templateFieldSchema };
export type { FieldType, TemplateField };

const fieldListSchema = fieldListOf(templateFieldSchema);

/** templateFields is JSON text (SPEC §3); a list is accepted too, for clients that send it unencoded. */
const templateFieldsSchema = z
  .union([z.string(), z.array(z.unknown())], { error: "Поля шаблона должны быть JSON-списком" })
  .transform((value, ctx) => {
    let parsed: unknown = value;
    if (typeof value === "string") {
      try {
        parsed = value.trim() === "" ? [] : JSON.parse(value);
      } catch {
        ctx.addIssue({ code: "custom", message: "Поля шаблона: некорректный JSON" });
        return z.NEVER;
      }
    }
    const result = fieldListSchema.safeParse(parsed);
    if (!result.success) {
      ctx.addIssue({ code: "custom", message: result.error.issues[0]?.message ?? "Неверные поля шаблона" });
      return z.NEVER;
    }
    // Only label, type and a tie to a base column are stored (filled cards carry value; a template never does).
    return result.data.map((field) => ({ label: field.label, type: field.type, ...(field.column ? { column: field.column } : {}) }));
  })
  .meta({ examples: ['[{"label":"Сумма долга","type":"text"},{"label":"Комментарий","type":"textarea"}]'] });

export const templateSchema = z.object({
  name: templateName,
  isActive: z.boolean({ error: "isActive: ожидается true или false" }).optional(),
  templateFields: templateFieldsSchema.default([]),
});

export const templateNotFound = () => notFound("Шаблон не найден", "template_not_found");

export function presentTemplate(template: Template) {
  return { id: template.id, name: template.name, isActive: template.isActive, templateFields: template.templateFields };
}
export type TemplateView = ReturnType<typeof presentTemplate>;

/** The stored fields of a template, for pages (never throws on an old, odd row). */
export function parseTemplateFields(text: string): TemplateField[] {
  try {
    const result = fieldListSchema.safeParse(JSON.parse(text));
    return result.success ? result.data : [];
  } catch {
    return [];
  }
}

/**
 * Active means given to managers (decision 034): the lead panel builds the card only from an active template,
 * and a manager reads only active ones. New templates start active, so a fresh install works without a toggle.
 */
export async function listTemplates(db: Db, actor: Actor) {
  const rows = await db
    .select()
    .from(templates)
    .where(actor.isAdmin ? undefined : eq(templates.isActive, true))
    .orderBy(asc(templates.id));
  return rows.map(presentTemplate);
}

export async function getTemplate(db: Db, actor: Actor, rawId: unknown) {
  const id = parseInput(idSchema, rawId);
  const [row] = await db.select().from(templates).where(eq(templates.id, id));
  // A deactivated template is not given to managers.
  if (!row || (!row.isActive && !actor.isAdmin)) throw templateNotFound();
  return presentTemplate(row);
}

export async function createTemplate(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const body = parseInput(templateSchema, input);
  const [row] = await db
    .insert(templates)
    .values({ name: body.name, isActive: body.isActive ?? true, templateFields: JSON.stringify(body.templateFields) })
    .returning();
  return presentTemplate(row);
}

export async function updateTemplate(db: Db, actor: Actor, rawId: unknown, input: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const body = parseInput(templateSchema, input);
  const [row] = await db
    .update(templates)
    .set({
      name: body.name,
      ...(body.isActive === undefined ? {} : { isActive: body.isActive }),
      templateFields: JSON.stringify(body.templateFields),
      updatedAt: new Date(),
    })
    .where(eq(templates.id, id))
    .returning();
  if (!row) throw templateNotFound();
  return presentTemplate(row);
}

export async function deleteTemplate(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db.delete(templates).where(eq(templates.id, id)).returning({ id: templates.id });
  if (!row) throw templateNotFound();
  return { success: true, message: "Шаблон удален" };
}

/** Flips isActive (SPEC §4: the page flips it locally on success). */
export async function toggleTemplateActive(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db
    .update(templates)
    .set({ isActive: sql`not ${templates.isActive}`, updatedAt: new Date() })
    .where(eq(templates.id, id))
    .returning();
  if (!row) throw templateNotFound();
  return presentTemplate(row);
}
