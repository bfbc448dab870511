// Run by the server (core's payouts, balance changes and rates; the API) and the browser (the /payments dialogs
// check the same schemas before anything is sent).
import * as z from "zod";
import { idSchema } from "../validation";

/** The largest amount one action may move: $9,999,999.99 (balances are 32-bit integer cents). */
export const MAX_AMOUNT_CENTS = 999_999_999;

/** SPEC §5: add and subtract need a non-empty, non-zero number. */
export const ENTER_NUMBER = "Введите число в поле";
export const PAYOUT_ZERO = "Сумма выплаты не может быть 0";
export const TOO_LARGE = "Слишком большая сумма";

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

/** A refusal with core's own error code (parseInput answers it instead of "validation"). */
const refuse = (ctx: z.RefinementCtx, message: string, code = "validation") => {
  ctx.addIssue({ code: "custom", message, params: { code } });
  return z.NEVER;
};

/**
 * An amount as sent: absent is allowed here so that it is refused with SPEC's message below, not zod's «ожидалось
 * nonoptional» (zod refuses a missing key even for `z.unknown()`; conform sends an emptied field as absent).
 */
const sentAmount = z.unknown().optional();

/** A payout in cents: a number, more than zero, within one action's limit (the balance is core's to check). */
export const payoutAmount = sentAmount
  .transform((value, ctx) => {
    const cents = parseCents(value);
    if (cents === null) return refuse(ctx, ENTER_NUMBER);
    if (cents === 0) return refuse(ctx, PAYOUT_ZERO, "payout_zero");
    if (cents < 0) return refuse(ctx, "Сумма выплаты должна быть больше 0");
    if (cents > MAX_AMOUNT_CENTS) return refuse(ctx, TOO_LARGE, "amount_too_large");
    return cents;
  })
  .meta({ description: "Сумма в долларах: число или текст («150», «150.50», «150,50»)", examples: ["150.50"] });

export const payoutSchema = z.object({ userId: idSchema, amount: payoutAmount });

export const adjustmentKinds = ["add", "rem", "def"] as const;
export type AdjustmentKind = (typeof adjustmentKinds)[number];

/** A balance change: reset (def) takes no amount; add and subtract a positive one, in cents. */
export const adjustSchema = z
  .object({
    userId: idSchema,
    kind: z.enum(adjustmentKinds, { error: "Неизвестное действие с балансом" }),
    // The reset's question sends none.
    amount: sentAmount,
  })
  .transform(({ userId, kind, amount }, ctx) => {
    if (kind === "def") return { userId, kind, cents: 0 };
    const cents = parseCents(amount);
    const problem = cents === null || cents <= 0 ? ENTER_NUMBER : cents > MAX_AMOUNT_CENTS ? TOO_LARGE : null;
    if (problem) {
      ctx.addIssue({
        code: "custom",
        message: problem,
        path: ["amount"],
        params: { code: problem === TOO_LARGE ? "amount_too_large" : "validation" },
      });
      return z.NEVER;
    }
    return { userId, kind, cents: cents! };
  });

const RATE_MESSAGE = "Введите ставку в долларах, например 5 или 7.50";
const rate = sentAmount
  .transform((value, ctx) => {
    const cents = parseCents(value);
    return cents === null || cents < 0 ? refuse(ctx, RATE_MESSAGE) : cents;
  })
  .meta({ description: "Ставка в долларах: число или текст («5», «7.50»)", examples: ["7.50"] });

/** Both rates, in dollars: what one report application earns its manager. */
export const ratesSchema = z.object({ withPassport: rate, withoutPassport: rate });
