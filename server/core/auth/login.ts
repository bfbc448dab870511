import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { loginThrottle, users } from "../../../db/schema";
import { verifyPassword } from "../../auth/password";
import type { SessionStore } from "../../auth/sessions";
import { AppError, tooManyRequests } from "../errors";
import { presentSessionUser } from "../users/present";
import { parseInput, requiredText } from "../validation";

/** SPEC §5 login messages, in the order the form checks them. */
export const loginSchema = z.object({
  login: requiredText("Укажите логин", 100),
  password: z.string({ error: "Укажите пароль" }).min(1, { error: "Укажите пароль" }).max(200, { error: "Укажите пароль" }),
  accessKey: requiredText("Укажите ключ доступа", 100),
});
export type LoginInput = z.infer<typeof loginSchema>;

export const LOGIN_FAILURE_LIMIT = 5;
export const LOGIN_LOCK_MINUTES = 15;

const wrongCredentials = () => new AppError(401, "invalid_credentials", "Неверный логин или пароль");

/** Checks login, password and access key; opens a session and marks the user as having one. */
export async function login(db: Db, sessions: SessionStore, input: unknown) {
  const { login, password, accessKey } = parseInput(loginSchema, input);
  await refuseWhileLocked(db, login);

  const [user] = await db.select().from(users).where(eq(users.login, login));
  const passwordOk = user ? await verifyPassword(user.passwordHash, password) : false;
  if (!user || !passwordOk) {
    await recordFailure(db, login);
    throw wrongCredentials();
  }
  if (user.accessKey !== accessKey) {
    await recordFailure(db, login);
    throw new AppError(401, "invalid_access_key", "Неверный ключ доступа");
  }

  await db.delete(loginThrottle).where(eq(loginThrottle.login, login));
  const [online] = await db
    .update(users)
    .set({ isOnline: true, updatedAt: new Date() })
    .where(eq(users.id, user.id))
    .returning();
  const session = await sessions.create(user.id);
  return { access_token: session.token, expiresAt: session.expiresAt, user: presentSessionUser(online) };
}

async function refuseWhileLocked(db: Db, login: string) {
  const [row] = await db.select().from(loginThrottle).where(eq(loginThrottle.login, login));
  if (row?.lockedUntil && row.lockedUntil > new Date()) {
    const minutes = Math.max(1, Math.ceil((row.lockedUntil.getTime() - Date.now()) / 60_000));
    throw tooManyRequests(`Слишком много неудачных попыток входа. Попробуйте через ${minutes} мин.`);
  }
}

/** Counts failures in a window; the limit-th failure locks the login for a while. */
async function recordFailure(db: Db, login: string) {
  const windowMinutes = LOGIN_LOCK_MINUTES;
  await db
    .insert(loginThrottle)
    .values({ login, failures: 1, windowStart: new Date() })
    .onConflictDoUpdate({
      target: loginThrottle.login,
      set: {
        failures: sql`case when ${loginThrottle.windowStart} < now() - make_interval(mins => ${windowMinutes}) then 1 else ${loginThrottle.failures} + 1 end`,
        windowStart: sql`case when ${loginThrottle.windowStart} < now() - make_interval(mins => ${windowMinutes}) then now() else ${loginThrottle.windowStart} end`,
        lockedUntil: sql`case when ${loginThrottle.windowStart} >= now() - make_interval(mins => ${windowMinutes}) and ${loginThrottle.failures} + 1 >= ${LOGIN_FAILURE_LIMIT} then now() + make_interval(mins => ${LOGIN_LOCK_MINUTES}) else null end`,
      },
    });
}
