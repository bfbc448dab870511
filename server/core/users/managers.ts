import { and, asc, count, eq, ne } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { users } from "../../../db/schema";
import { DEFAULT_SIP_PREFIX, generateAccessKey, passwordHint, SIP_PREFIXES } from "../../../common/credentials";
import type { PasswordHasher, SessionStore } from "../auth/ports";
import type { TelephonyProvider } from "../telephony/accounts";
import { endOpenBreak } from "../breaks/breaks";
import { type Actor, requireAdmin } from "../actor";
import { badRequest, conflict } from "../errors";
import { idSchema, parseInput } from "../validation";
import { presentManagedUser } from "./present";
import { findUser, userNotFound } from "./users";

/** SPEC §5 New manager. */
export const FILL_ALL_FIELDS = "Пожалуйста, заполните все поля";
export const LOGIN_NEEDED_FOR_SIP = "Заполните логин, для генерации SIPa";
export const LOGIN_TAKEN = "Такой логин уже занят";
export const SIP_TAKEN = "Такой SIP логин уже занят";

/** How the realtime hub is told to end a user's sockets (on every instance), but those of `keepSession`. */
export interface LogoutSignal {
  forceLogout(userId: number, keepSession?: string): Promise<void>;
}

const tooLong = (max: number) => `Слишком длинное значение (не более ${max} символов)`;
const required = (max: number) =>
  z.string({ error: FILL_ALL_FIELDS }).trim().min(1, { error: FILL_ALL_FIELDS }).max(max, { error: tooLong(max) });
const optional = (max: number) =>
  z
    .string()
    .trim()
    .max(max, { error: tooLong(max) })
    .nullish()
    .transform((v) => v ?? "");

const loginField = required(100).refine((v) => !/\s/.test(v), { error: "Логин не должен содержать пробелов" });
const passwordField = z
  .string({ error: FILL_ALL_FIELDS })
  .min(1, { error: FILL_ALL_FIELDS })
  .max(200, { error: tooLong(200) })
  .refine((v) => v.trim().length > 0, { error: FILL_ALL_FIELDS });
const accessKeyField = z
  .string()
  .trim()
  .max(100, { error: tooLong(100) })
  .refine((v) => !/\s/.test(v), { error: "Ключ доступа не должен содержать пробелов" })
  .nullish()
  .transform((v) => v ?? "");

/** POST /auth/register and the /managers add form. */
export const registerSchema = z.object({
  login: loginField,
  password: passwordField,
  displayName: required(100),
  accessKey: accessKeyField,
  telegram: optional(100),
  sipLogin: optional(50),
  sipPassword: optional(100),
});
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

/** PATCH /users/{id}: the admin flag, or edited fields. The access key is read-only. */
export const updateUserSchema = z
  .object({
    isAdmin: z.boolean({ error: "Неверное значение флага администратора" }).optional(),
    login: loginField.optional(),
    password: passwordField.optional(),
    displayName: required(100).optional(),
    telegram: optional(100).optional(),
    sipLogin: optional(50).optional(),
    sipPassword: optional(100).optional(),
    accessKey: z.unknown().optional(),
  })
  .refine((v) => v.accessKey === undefined, { error: "Ключ доступа нельзя изменить" })
  .refine((v) => Object.values(v).some((value) => value !== undefined), { error: "Нет изменений для сохранения" });
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
export async function deleteUser(
  db: Db,
  telephony: TelephonyProvider,
  signal: LogoutSignal,
  actor: Actor,
  rawId: unknown,
) {
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

export const sipRequestSchema = z.object({
  login: z
    .string({ error: LOGIN_NEEDED_FOR_SIP })
    .trim()
    .min(1, { error: LOGIN_NEEDED_FOR_SIP })
    .max(100, { error: tooLong(100) }),
  prefix: z.coerce
    .number({ error: "Выберите префикс SIP номера" })
    .refine((v) => SIP_PREFIXES.includes(v), { error: "Выберите префикс SIP номера" })
    .default(DEFAULT_SIP_PREFIX),
});

/** SIP generation on the add form: a new account from the provider (or the built-in allocator). */
export async function generateSipAccount(db: Db, telephony: TelephonyProvider, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { login, prefix } = parseInput(sipRequestSchema, input);
  const account = await telephony.createAccount({ prefix, name: login });
  return { sipLogin: account.extension, sipPassword: account.password };
}

/** Forced logout: the sessions go, isOnline turns false, and every socket of the user is told (all instances). */
export async function forceLogout(
  db: Db,
  sessions: SessionStore,
  signal: LogoutSignal,
  actor: Actor,
  rawId: unknown,
) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  if (id === actor.id) throw badRequest("Свою сессию завершите кнопкой выхода", "force_logout_self");
  const user = await findUser(db, id);
  if (!user) throw userNotFound();
  await endSessions(db, sessions, signal, id);
  return { success: true, message: "Сессия пользователя закрыта" };
}
