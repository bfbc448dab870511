import { eq } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { users } from "../../../db/schema";
import type { SessionStore } from "../auth/ports";
import { type Actor, requireSelfOrAdmin } from "../actor";
import { endOpenBreak } from "../breaks/breaks";
import { notFound } from "../errors";
import { parseInput, idSchema } from "../validation";
import { presentManagedUser, presentSessionUser } from "./present";

export const userNotFound = () => notFound("Пользователь не найден", "user_not_found");

export async function findUser(db: Db, id: number) {
  const [user] = await db.select().from(users).where(eq(users.id, id));
  return user ?? null;
}

/** A user's fields: the session shape for oneself, the management shape for an admin. */
export async function getUser(db: Db, actor: Actor, rawId: unknown) {
  const id = parseInput(idSchema, rawId);
  requireSelfOrAdmin(actor, id);
  const user = await findUser(db, id);
  if (!user) throw userNotFound();
  return actor.isAdmin ? presentManagedUser(user) : presentSessionUser(user);
}

/** Logout: ends the user's sessions, clears the "has a live session" flag and ends his break (decision 038). */
export async function logoutUser(db: Db, sessions: SessionStore, actor: Actor, rawId: unknown) {
  const id = parseInput(idSchema, rawId);
  requireSelfOrAdmin(actor, id);
  const user = await findUser(db, id);
  if (!user) throw userNotFound();
  await sessions.invalidateUser(id);
  await db.update(users).set({ isOnline: false, updatedAt: new Date() }).where(eq(users.id, id));
  await endOpenBreak(db, id, "logout");
  return { success: true, message: "Вы вышли из системы" };
}
