import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { settings, type Settings } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { parseInput } from "../validation";

export const SETTINGS_ID = 1;

export const databaseSettingsSchema = z.object({
  removeDuplicatesInBase: z.boolean({ error: "removeDuplicatesInBase: ожидается true или false" }),
  removeDuplicatesAcrossBases: z.boolean({ error: "removeDuplicatesAcrossBases: ожидается true или false" }),
  defaultInfo: z
    .string({ error: "defaultInfo: ожидается текст" })
    .max(5000, { error: "Слишком длинный текст по умолчанию (не более 5000 символов)" })
    .default(""),
  /** Issue 18: a due callback its manager has not taken for this long goes to any manager of the topic. */
  callbackGraceMinutes: z.coerce
    .number({ error: "Неверное время ожидания перезвона" })
    .int({ error: "Время ожидания перезвона: целое число минут" })
    .min(1, { error: "Время ожидания перезвона: от 1 до 1440 минут" })
    .max(1440, { error: "Время ожидания перезвона: от 1 до 1440 минут" })
    .optional(),
});
export type DatabaseSettings = Omit<z.infer<typeof databaseSettingsSchema>, "callbackGraceMinutes"> & { callbackGraceMinutes: number };

export function presentDatabaseSettings(row: Settings): DatabaseSettings {
  return {
    removeDuplicatesInBase: row.removeDuplicatesInBase,
    removeDuplicatesAcrossBases: row.removeDuplicatesAcrossBases,
    defaultInfo: row.defaultInfo,
    callbackGraceMinutes: row.callbackGraceMinutes,
  };
}

/** The one settings row; created with its defaults if a database somehow lacks it. */
async function settingsRow(db: Db) {
  const [row] = await db.select().from(settings).where(eq(settings.id, SETTINGS_ID));
  if (row) return row;
  await db.insert(settings).values({ id: SETTINGS_ID }).onConflictDoNothing();
  const [created] = await db.select().from(settings).where(eq(settings.id, SETTINGS_ID));
  return created;
}

export async function getDatabaseSettings(db: Db, actor: Actor) {
  requireAdmin(actor);
  return presentDatabaseSettings(await settingsRow(db));
}

export async function saveDatabaseSettings(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const body = parseInput(databaseSettingsSchema, input);
  const [row] = await db
    .insert(settings)
    .values({ id: SETTINGS_ID, ...body })
    .onConflictDoUpdate({ target: settings.id, set: { ...body, updatedAt: new Date() } })
    .returning();
  return presentDatabaseSettings(row);
}
