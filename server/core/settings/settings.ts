import { eq } from "drizzle-orm";
import type { z } from "zod";
import { databaseSettingsSchema } from "../../../common/schemas/settings";
import type { Db } from "../../../db/client";
import { settings, type Settings } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { parseInput } from "../validation";

export const SETTINGS_ID = 1;

// The input's shape is shared with the page form (common/schemas/settings.ts).
export { databaseSettingsSchema } from "../../../common/schemas/settings";
type Stored = "callbackGraceMinutes" | "inboundRingSeconds" | "inboundMaxManagers";
/** The settings as saved: the fields a post may leave out (unchanged then) are always there. */
export type DatabaseSettings = Omit<z.infer<typeof databaseSettingsSchema>, Stored> & Record<Stored, number>;

export function presentDatabaseSettings(row: Settings): DatabaseSettings {
  return {
    removeDuplicatesInBase: row.removeDuplicatesInBase,
    removeDuplicatesAcrossBases: row.removeDuplicatesAcrossBases,
    defaultInfo: row.defaultInfo,
    callbackGraceMinutes: row.callbackGraceMinutes,
    inboundRingSeconds: row.inboundRingSeconds,
    inboundMaxManagers: row.inboundMaxManagers,
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
