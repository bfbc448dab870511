import argon2 from "argon2";
import type { PasswordHasher } from "../core/auth/ports";

/** argon2id with the library's defaults (DESIGN §5). */
export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/** The PasswordHasher core asks for (server/core/auth/ports.ts). */
export const argon2Passwords: PasswordHasher = { hash: hashPassword, verify: verifyPassword };
