import argon2 from "argon2";
import type { PasswordHasher } from "../core/auth/ports";

/** argon2id with the library's defaults (DESIGN §5). */
export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });

/**
 * argon2id at other costs. The test suite's hasher (test/helpers/passwords.ts): a default hash costs ~180 ms of CPU,
 * and the suite makes thousands. `verifyPassword` reads the costs from the hash, so it checks either kind.
 */
export function argon2At(costs: { memoryCost: number; timeCost: number; parallelism: number }): PasswordHasher {
  return { hash: (password) => argon2.hash(password, { type: argon2.argon2id, ...costs }), verify: verifyPassword };
}

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/** The PasswordHasher core asks for (server/core/auth/ports.ts). */
export const argon2Passwords: PasswordHasher = { hash: hashPassword, verify: verifyPassword };
