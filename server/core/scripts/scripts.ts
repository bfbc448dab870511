import { and, asc, eq } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../../db/client";
import { scripts, type Script } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { notFound } from "../errors";
import { scriptSchema } from "../../../common/schemas/scripts";
import { idSchema, parseInput } from "../validation";
import { sanitizeScriptHtml } from "./sanitize";
import { scriptReachesUser } from "./visible";

// The input's shape is shared with the page form (common/schemas/scripts.ts).
export { SCRIPT_CONTENT_MAX, scriptSchema } from "../../../common/schemas/scripts";
export type ScriptInput = z.infer<typeof scriptSchema>;

export const scriptNotFound = () => notFound("Скрипт не найден", "script_not_found");

/** The API shape (SPEC §3), its HTML sanitised again on the way out. */
export function presentScript(script: Script) {
  return { id: script.id, name: script.name, content: sanitizeScriptHtml(script.content) };
}
export type ScriptView = ReturnType<typeof presentScript>;

/** Admins: every script. Managers: only those reaching them through a filter. */
export async function listScripts(db: Db, actor: Actor) {
  const rows = await db
    .select()
    .from(scripts)
    .where(actor.isAdmin ? undefined : scriptReachesUser(db, actor))
    .orderBy(asc(scripts.name), asc(scripts.id));
  return rows.map(presentScript);
}

/** One script to read: any for an admin; for a manager only one that reaches him (else 404, not a hint). */
export async function getScript(db: Db, actor: Actor, rawId: unknown) {
  const id = parseInput(idSchema, rawId);
  const condition = actor.isAdmin ? eq(scripts.id, id) : and(eq(scripts.id, id), scriptReachesUser(db, actor));
  const [row] = await db.select().from(scripts).where(condition);
  if (!row) throw scriptNotFound();
  return presentScript(row);
}

export async function createScript(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const body = parseInput(scriptSchema, input);
  const [row] = await db
    .insert(scripts)
    .values({ name: body.name, content: sanitizeScriptHtml(body.content) })
    .returning();
  return presentScript(row);
}

export async function updateScript(db: Db, actor: Actor, rawId: unknown, input: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const body = parseInput(scriptSchema, input);
  const [row] = await db
    .update(scripts)
    .set({ name: body.name, content: sanitizeScriptHtml(body.content), updatedAt: new Date() })
    .where(eq(scripts.id, id))
    .returning();
  if (!row) throw scriptNotFound();
  return presentScript(row);
}

export async function deleteScript(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db.delete(scripts).where(eq(scripts.id, id)).returning({ id: scripts.id });
  if (!row) throw scriptNotFound();
  return { success: true, message: "Скрипт удалён" };
}

/** The viewer's read: the script, or null when it does not exist or does not reach the actor. */
export async function findReadableScript(db: Db, actor: Actor, rawId: unknown) {
  const parsed = idSchema.safeParse(rawId);
  if (!parsed.success) return null;
  const condition = actor.isAdmin ? eq(scripts.id, parsed.data) : and(eq(scripts.id, parsed.data), scriptReachesUser(db, actor));
  const [row] = await db.select().from(scripts).where(condition);
  return row ? presentScript(row) : null;
}
