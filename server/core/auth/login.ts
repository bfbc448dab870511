import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { loginThrottle, users } from "../../../db/schema";
import type { PasswordHasher, SessionStore } from "./ports";
import { AppError, tooManyRequests } from "../errors";
import { countFailure, THROTTLE_WINDOW_MINUTES } from "./throttle";
import { presentSessionUser } from "../users/present";
import { parseInput } from "../validation";
import { loginSchema } from "../../../common/schemas/auth";

export { loginSchema, type LoginInput } from "../../../common/schemas/auth";

/** Attempts on one login from one address per window: the limit-th failure refuses that pair until it ends. */
export const LOGIN_FAILURE_LIMIT = 5;
/** Attempts from one address across every login per window (an office behind one NAT shares it). */
export const ADDRESS_FAILURE_LIMIT = 50;
export const LOGIN_WINDOW_MINUTES = THROTTLE_WINDOW_MINUTES;

/** One answer for every wrong login, password or access key: none of them tells which part was wrong. */
const wrongCredentials = () => new AppError(401, "invalid_credentials", "Неверный логин или пароль");

/**
 * Checks login, password and access key; opens a session and marks the user as having one. `address` is the
 * client's, as the adapter read it (server/http/client-address.ts). docs/decisions/021.
 */
export async function login(db: Db, sessions: SessionStore, passwords: PasswordHasher, input: unknown, address: string) {
  const { login, password, accessKey } = parseInput(loginSchema, input);
  await countAttempt(db, login, address);

  const [user] = await db.select().from(users).where(eq(users.login, login));
  // argon2 runs for an unknown login too, so the answer takes as long as for a known one.
  const passwordOk = await passwords.verify(user?.passwordHash ?? (await dummyHash(passwords)), password);
  if (!user || !passwordOk || !sameSecret(user.accessKey, accessKey)) throw wrongCredentials();

  await forgetAttempt(db, login, address);
  const [online] = await db.update(users).set({ isOnline: true, updatedAt: new Date() }).where(eq(users.id, user.id)).returning();
  const session = await sessions.create(user.id);
  return { access_token: session.token, expiresAt: session.expiresAt, user: presentSessionUser(online) };
}

/**
 * Counts this attempt before the password is checked, for the login from this address and for the address
 * across logins, in one statement (throttle.ts): no more than the limit ever reach argon2.
 */
async function countAttempt(db: Db, login: string, address: string) {
  const counts = await countFailure(db, [login, ""], address);
  const over = counts.filter((row) => row.failures > (row.key === "" ? ADDRESS_FAILURE_LIMIT : LOGIN_FAILURE_LIMIT));
  if (over.length > 0) {
    const minutes = Math.max(...over.map((row) => row.minutesLeft));
    throw tooManyRequests(`Слишком много неудачных попыток входа. Попробуйте через ${minutes} мин.`);
  }
}

/** A successful login clears its pair and takes back its own count from the address (not the others'). */
async function forgetAttempt(db: Db, login: string, address: string) {
  await db.delete(loginThrottle).where(and(eq(loginThrottle.login, login), eq(loginThrottle.address, address)));
  await db
    .update(loginThrottle)
    .set({ failures: sql`greatest(${loginThrottle.failures} - 1, 0)` })
    .where(and(eq(loginThrottle.login, ""), eq(loginThrottle.address, address)));
}

const dummies = new WeakMap<PasswordHasher, Promise<string>>();
/** A hash of a random password with the real parameters, made once: what an unknown login is checked against. */
function dummyHash(passwords: PasswordHasher): Promise<string> {
  let dummy = dummies.get(passwords);
  if (!dummy) {
    dummy = passwords.hash(crypto.randomBytes(24).toString("base64")).catch((error) => {
      dummies.delete(passwords);
      throw error;
    });
    dummies.set(passwords, dummy);
  }
  return dummy;
}

/** Compares access keys in constant time (their digests have one length whatever was typed). */
function sameSecret(expected: string, given: string): boolean {
  const digest = (value: string) => crypto.createHash("sha256").update(value).digest();
  return crypto.timingSafeEqual(digest(expected), digest(given));
}
