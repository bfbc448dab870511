import crypto from "node:crypto";
import argon2 from "argon2";

/** argon2id with the library's defaults (DESIGN §5). */
export const hashPassword = (password: string) => argon2.hash(password, { type: argon2.argon2id });

export async function verifyPassword(hash: string, password: string): Promise<boolean> {
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}

/** The readable part of a password (SPEC /managers shows the first 5 characters). */
export const passwordHint = (password: string) => password.slice(0, 5);

const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
const LOWER = "abcdefghijkmnopqrstuvwxyz";
const DIGITS = "23456789";
const SYMBOLS = "!@#$%^&*-_=+?";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

const pick = (alphabet: string) => alphabet[crypto.randomInt(alphabet.length)];

/** 16 characters with at least one upper-case letter, lower-case letter, digit and symbol (SPEC §5). */
export function generatePassword(length = 16): string {
  const all = UPPER + LOWER + DIGITS + SYMBOLS;
  const chars = [pick(UPPER), pick(LOWER), pick(DIGITS), pick(SYMBOLS)];
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = crypto.randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join("");
}

/** 16 alphanumeric characters (SPEC §5). */
export function generateAccessKey(length = 16): string {
  return Array.from({ length }, () => pick(ALNUM)).join("");
}
