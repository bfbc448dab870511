import { badRequest } from "../errors";

/** The largest amount one action may move: $9,999,999.99 (balances are 32-bit integer cents). */
export const MAX_AMOUNT_CENTS = 999_999_999;
/** A balance stays inside the integer column with room to spare. */
export const BALANCE_LIMIT_CENTS = 2_000_000_000;

const AMOUNT = /^(-)?(\d{1,7})(?:[.,](\d{1,2}))?$/;

/**
 * Decimal dollars as text ("12", "12.5", "12,50", "-3.10") or a JSON number to integer cents, exactly:
 * the digits are read as text, never through float arithmetic. Null when it is not such a number.
 */
export function parseCents(raw: unknown): number | null {
  if (typeof raw === "number") {
    if (!Number.isFinite(raw)) return null;
    raw = String(raw);
  }
  if (typeof raw !== "string") return null;
  const match = AMOUNT.exec(raw.trim().replace(/\s+/g, ""));
  if (!match) return null;
  const [, minus, dollars, fraction = ""] = match;
  const cents = Number(dollars) * 100 + Number(fraction.padEnd(2, "0"));
  return minus && cents !== 0 ? -cents : cents;
}

/** Cents to the dollars the API answers with (two decimals at most, exact for integer cents). */
export const toDollars = (cents: number) => cents / 100;

/** Refuses a balance that would leave the column's range (a 400, never a database error). */
export function checkBalanceRange(cents: number) {
  if (Math.abs(cents) > BALANCE_LIMIT_CENTS) throw badRequest("Слишком большая сумма", "amount_too_large");
}
