import { and, asc, count, eq, ne } from "drizzle-orm";
import type { z } from "zod";
import type { Db } from "../../../db/client";
import { users } from "../../../db/schema";
import { LOGIN_TAKEN, registerSchema, SIP_TAKEN, sipRequestSchema, updateUserSchema } from "../../../common/schemas/users";
import { generateAccessKey, passwordHint } from "../../../common/credentials";
import type { PasswordHasher, SessionStore } from "../auth/ports";
import type { TelephonyProvider } from "../telephony/accounts";
import { endOpenBreak } from "../breaks/breaks";
import { type Actor, requireAdmin } from "../actor";
import { badRequest, conflict } from "../errors";
import { idSchema, parseInput } from "../validation";
import { presentManagedUser } from "./present";
import { findUser, userNotFound } from "./users";

// The inputs' shapes (SPEC §5's messages) are shared with the /managers add form (common/schemas/users.ts).
export {
  FILL_ALL_FIELDS,
  LOGIN_NEEDED_FOR_SIP,
  LOGIN_TAKEN,
  registerSchema,
  SIP_TAKEN,
  sipRequestSchema,
  updateUserSchema,
} from "../../../common/schemas/users";

/** How the realtime hub is told to end a user's sockets (on every instance), but those of `keepSession`. */
export interface LogoutSignal {
  forceLogout(userId: number, keepSession?: string): Promise<void>;
}

export type RegisterInput = z.input<typeof registerSchema>;

function isUniqueViolation(error: unknown): boolean {
  for (let e = error as { code?: string; cause?: unknown } | null; e && typeof e === "object"; e = e.cause as typeof e) {
    if (e.code === "23505") return true;
  }
  return false;
}

async function loginTaken(db: Db, login: string, exceptId?: number) {
  const condition = exceptId ? and(eq(users.login, login), ne(users.id, exceptId)) : eq(users.login, login);
  const [row] = await db.select({ id: users.id }).from(users).where(condition);
  return Boolean(row);
}

/** One SIP account per person: an extension another user carries is refused. */
async function sipTaken(db: Db, sipLogin: string, exceptId?: number) {
  if (!sipLogin) return false;
  const condition = exceptId ? and(eq(users.sipLogin, sipLogin), ne(users.id, exceptId)) : eq(users.sipLogin, sipLogin);
  const [row] = await db.select({ id: users.id }).from(users).where(condition);
  return Boolean(row);
}

/** Adds a manager. The access key is generated here when the form sent none (JavaScript off). */
export async function registerManager(db: Db, passwords: PasswordHasher, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const data = parseInput(registerSchema, input);
  if (await loginTaken(db, data.login)) throw conflict(LOGIN_TAKEN, "login_taken");
  if (await sipTaken(db, data.sipLogin)) throw conflict(SIP_TAKEN, "sip_taken");
  try {
    const [user] = await db
      .insert(users)
      .values({
        login: data.login,
        passwordHash: await passwords.hash(data.password),
        passwordHint: passwordHint(data.password),
        displayName: data.displayName,
        accessKey: data.accessKey || generateAccessKey(),
        telegram: data.telegram,
        sipLogin: data.sipLogin,
        sipPassword: data.sipPassword,
      })
      .returning();
    return { id: user.id, login: user.login, displayName: user.displayName };
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict(LOGIN_TAKEN, "login_taken");
    throw error;
  }
}

/** Every user for manager management, oldest first. */
export async function listUsers(db: Db, actor: Actor) {
  requireAdmin(actor);
  const rows = await db.select().from(users).orderBy(asc(users.id));
  return rows.map(presentManagedUser);
}

export type UpdateUserInput = z.input<typeof updateUserSchema>;

/**
 * Edits a user. A new password ends his sessions and his open pages, like a forced logout: whoever knew the old
 * one is out. An admin changing his own password keeps the session he does it from (his other ones end).
 */
export async function updateUser(
  db: Db,
  sessions: SessionStore,
  passwords: PasswordHasher,
  signal: LogoutSignal,
  actor: Actor,
  rawId: unknown,
  input: unknown,
) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const data = parseInput(updateUserSchema, input);
  const updated = await db.transaction(async (tx) => {
    const [user] = await tx.select().from(users).where(eq(users.id, id)).for("update");
    if (!user) throw userNotFound();
    if (data.login !== undefined && (await loginTaken(tx as unknown as Db, data.login, id))) {
      throw conflict(LOGIN_TAKEN, "login_taken");
    }
    if (data.sipLogin && (await sipTaken(tx as unknown as Db, data.sipLogin, id))) {
      throw conflict(SIP_TAKEN, "sip_taken");
    }
    if (data.isAdmin === false && user.isAdmin) {
      const [{ admins }] = await tx.select({ admins: count() }).from(users).where(eq(users.isAdmin, true));
      if (admins <= 1) throw badRequest("Нельзя снять права с последнего администратора", "last_admin");
    }
    const changes: Partial<typeof users.$inferInsert> = { updatedAt: new Date() };
    if (data.isAdmin !== undefined) changes.isAdmin = data.isAdmin;
    if (data.login !== undefined) changes.login = data.login;
    if (data.displayName !== undefined) changes.displayName = data.displayName;
    if (data.telegram !== undefined) changes.telegram = data.telegram;
    if (data.sipLogin !== undefined) changes.sipLogin = data.sipLogin;
    if (data.sipPassword !== undefined) changes.sipPassword = data.sipPassword;
    if (data.password !== undefined) {
      changes.passwordHash = await passwords.hash(data.password);
      changes.passwordHint = passwordHint(data.password);
    }
    try {
      const [row] = await tx.update(users).set(changes).where(eq(users.id, id)).returning();
      return presentManagedUser(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(LOGIN_TAKEN, "login_taken");
      throw error;
    }
  });
  if (data.password !== undefined) {
    await endSessions(db, sessions, signal, id, id === actor.id ? actor.session : undefined);
  }
  return updated;
}

/**
 * Forced logout's effect, in one place: the sessions go (all but `keep`), isOnline turns false when none is
 * left, his break ends (decision 038), and every socket of the user is told, on every instance (decision 005).
 */
async function endSessions(db: Db, sessions: SessionStore, signal: LogoutSignal, userId: number, keep?: string) {
  await sessions.invalidateUser(userId, keep);
  if (!keep) {
    await db.update(users).set({ isOnline: false, updatedAt: new Date() }).where(eq(users.id, userId));
    await endOpenBreak(db, userId, "forced");
  }
  await signal.forceLogout(userId, keep);
}

/**
 * Deletes a manager and his SIP account. A provider error changes nothing: the account is deleted there
 * first, and the user only once that succeeded. His open pages are logged out.
 */
export async function deleteUser(db: Db, telephony: TelephonyProvider, signal: LogoutSignal, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  if (id === actor.id) throw badRequest("Нельзя удалить самого себя", "delete_self");
  const user = await findUser(db, id);
  if (!user) throw userNotFound();
  if (user.sipLogin) await telephony.deleteAccount(user.sipLogin);
  await db.delete(users).where(eq(users.id, id));
  await signal.forceLogout(id);
  return { success: true, message: "Менеджер удалён" };
}

/** SIP generation on the add form: a new account from the provider (or the built-in allocator). */
export async function generateSipAccount(db: Db, telephony: TelephonyProvider, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { login, prefix } = parseInput(sipRequestSchema, input);
  const account = await telephony.createAccount({ prefix, name: login });
  return { sipLogin: account.extension, sipPassword: account.password };
}

/** Forced logout: the sessions go, isOnline turns false, and every socket of the user is told (all instances). */
export async function forceLogout(db: Db, sessions: SessionStore, signal: LogoutSignal, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  if (id === actor.id) throw badRequest("Свою сессию завершите кнопкой выхода", "force_logout_self");
  const user = await findUser(db, id);
  if (!user) throw userNotFound();
  await endSessions(db, sessions, signal, id);
  // Who it was, for the page's toast (/users names whose session closed).
  return { success: true, message: "Сессия пользователя закрыта", displayName: user.displayName, isAdmin: user.isAdmin };
}
