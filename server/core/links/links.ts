import { asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { links, type Link } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { notFound } from "../errors";
import { linkSchema } from "../../../common/schemas/links";
import { idSchema, parseInput } from "../validation";

// The input's shape is shared with the page form (common/schemas/links.ts).
export { LINK_NAME_REQUIRED, LINK_URL_REQUIRED, linkSchema } from "../../../common/schemas/links";

export const linkNotFound = () => notFound("Ссылка не найдена", "link_not_found");

export function presentLink(link: Link) {
  return { id: link.id, name: link.name, link: link.link, isActive: link.isActive };
}
export type LinkView = ReturnType<typeof presentLink>;

/** The full list, sorted by id (admin). */
export async function listLinks(db: Db, actor: Actor) {
  requireAdmin(actor);
  const rows = await db.select().from(links).orderBy(asc(links.id));
  return rows.map(presentLink);
}

/** The active links: the lead panel's row (any logged-in user). */
export async function listActiveLinks(db: Db, _actor: Actor) {
  const rows = await db.select().from(links).where(eq(links.isActive, true)).orderBy(asc(links.id));
  return rows.map(presentLink);
}

export async function createLink(db: Db, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const body = parseInput(linkSchema, input);
  const [row] = await db
    .insert(links)
    .values({ name: body.name, link: body.link, isActive: body.isActive ?? true })
    .returning();
  return presentLink(row);
}

export async function updateLink(db: Db, actor: Actor, rawId: unknown, input: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const body = parseInput(linkSchema, input);
  const [row] = await db
    .update(links)
    .set({
      name: body.name,
      link: body.link,
      ...(body.isActive === undefined ? {} : { isActive: body.isActive }),
      updatedAt: new Date(),
    })
    .where(eq(links.id, id))
    .returning();
  if (!row) throw linkNotFound();
  return presentLink(row);
}

export async function deleteLink(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db.delete(links).where(eq(links.id, id)).returning({ id: links.id });
  if (!row) throw linkNotFound();
  return { success: true, message: "Ссылка удалена" };
}

export async function toggleLinkActive(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db
    .update(links)
    .set({ isActive: sql`not ${links.isActive}`, updatedAt: new Date() })
    .where(eq(links.id, id))
    .returning();
  if (!row) throw linkNotFound();
  return presentLink(row);
}
