/**
 * A manager's credentials as SPEC §5 and §9 fix them: a 16-character password with at least one upper-case
 * letter, lower-case letter, digit and symbol, a 16-character alphanumeric access key, the SIP number prefixes.
 * Web Crypto only, so the add-manager form's «Сгенерировать» and the server (seed, new keys) run the same code.
 */
const UPPER = "ABCDEFGHJKLMNPQRSTUVWXYZ";
const LOWER = "abcdefghijkmnopqrstuvwxyz";
const DIGITS = "23456789";
const SYMBOLS = "!@#$%^&*-_=+?";
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A uniform index below `n` (rejection sampling, no modulo bias). */
function randomIndex(n: number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  const buffer = new Uint32Array(1);
  for (;;) {
    globalThis.crypto.getRandomValues(buffer);
    if (buffer[0] < limit) return buffer[0] % n;
  }
}

const pick = (alphabet: string) => alphabet[randomIndex(alphabet.length)];

export const PASSWORD_LENGTH = 16;
export const ACCESS_KEY_LENGTH = 16;

export function generatePassword(length = PASSWORD_LENGTH): string {
  const all = UPPER + LOWER + DIGITS + SYMBOLS;
  const chars = [pick(UPPER), pick(LOWER), pick(DIGITS), pick(SYMBOLS)];
  while (chars.length < length) chars.push(pick(all));
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join("");
}

export function generateAccessKey(length = ACCESS_KEY_LENGTH): string {
  return Array.from({ length }, () => pick(ALNUM)).join("");
}

/** SPEC §9: SIP number prefixes 1000 to 11000 in steps of 1000, default 9000. */
export const SIP_PREFIXES = Array.from({ length: 11 }, (_, i) => (i + 1) * 1000);
export const DEFAULT_SIP_PREFIX = 9000;

/** SPEC /managers: the password is shown as its first 5 characters. */
export const PASSWORD_HINT_LENGTH = 5;
export const passwordHint = (password: string) => password.slice(0, PASSWORD_HINT_LENGTH);
