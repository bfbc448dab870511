import { badRequest } from "../errors";

// Amounts are read by the schemas in common/schemas/money.ts (the /payments dialogs check them in the browser too).
export { MAX_AMOUNT_CENTS, parseCents } from "../../../common/schemas/money";
/** A balance stays inside the integer column with room to spare. */
export const BALANCE_LIMIT_CENTS = 2_000_000_000;

/** Cents to the dollars the API answers with (two decimals at most, exact for integer cents). */
export const toDollars = (cents: number) => cents / 100;

/** Refuses a balance that would leave the column's range (a 400, never a database error). */
export function checkBalanceRange(cents: number) {
  if (Math.abs(cents) > BALANCE_LIMIT_CENTS) throw badRequest("Слишком большая сумма", "amount_too_large");
}
