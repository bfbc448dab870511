import { count, sql } from "drizzle-orm";
import { generateAccessKey, generatePassword, passwordHint } from "../common/credentials";
import type { Db } from "../db/client";
import { settings, statuses, users } from "../db/schema";
import { argon2Passwords } from "./auth/password";
import type { PasswordHasher } from "./core/auth/ports";
import { ADVISORY_LOCK } from "../db/locks";

export interface SeedOptions {
  login?: string;
  password?: string;
  accessKey?: string;
  /** The admin's password hash (argon2id at the library's costs unless a test hands in cheaper ones). */
  passwords?: PasswordHasher;
}

/** What a first start created, so main can print generated credentials once. */
export interface SeedResult {
  createdAdmin?: { login: string; password: string; accessKey: string; generated: boolean };
  createdStatuses: number;
}

/**
 * A small working set: two technical outcomes, two normal ones and a report. Each has one name (issue 41 §11,
 * decision 081): its text is its button's, the short word a manager presses and a base table's column fits.
 * Migration 0040 gives the same names to the statuses an earlier seed made, where no admin renamed them.
 */
export const DEFAULT_STATUSES = [
  { text: "Недозвон", buttonText: "Недозвон", color: "#6b7280", isTechnical: true },
  { text: "Занято", buttonText: "Занято", color: "#9ca3af", isTechnical: true },
  { text: "Перезвонить", buttonText: "Перезвонить", color: "#2563eb" },
  { text: "Отказ", buttonText: "Отказ", color: "#dc2626" },
  { text: "Заявка", buttonText: "Заявка", color: "#22c55e", isReportStatus: true },
];

/** Idempotent: an admin only on an empty users table, statuses only on an empty statuses table. */
export async function seed(db: Db, options: SeedOptions = {}): Promise<SeedResult> {
  return db.transaction(async (tx) => {
    // Two instances starting together on one Postgres must not both seed.
    await tx.execute(sql`select pg_advisory_xact_lock(${ADVISORY_LOCK.seed})`);
    const result: SeedResult = { createdStatuses: 0 };

    await tx.insert(settings).values({ id: 1 }).onConflictDoNothing();

    const [{ value: userCount }] = await tx.select({ value: count() }).from(users);
    if (userCount === 0) {
      const login = options.login || "admin";
      const password = options.password || generatePassword();
      const accessKey = options.accessKey || generateAccessKey();
      await tx.insert(users).values({
        login,
        passwordHash: await (options.passwords ?? argon2Passwords).hash(password),
        passwordHint: passwordHint(password),
        displayName: "Администратор",
        accessKey,
        isAdmin: true,
      });
      result.createdAdmin = { login, password, accessKey, generated: !options.password || !options.accessKey };
    }

    const [{ value: statusCount }] = await tx.select({ value: count() }).from(statuses);
    if (statusCount === 0) {
      await tx.insert(statuses).values(DEFAULT_STATUSES.map((s, order) => ({ ...s, order })));
      result.createdStatuses = DEFAULT_STATUSES.length;
    }
    return result;
  });
}
