import type { ActionFunctionArgs } from "@remix-run/node";
import { actorOf, requireAdminUser } from "./auth.server";
import { actionError } from "./errors.server";
import * as z from "zod";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "./forms.server";
import { adjustSchema, payoutSchema, ratesSchema } from "../common/schemas/money";
import { idSchema } from "../common/validation";
import { redirectWithToast } from "./toast.server";
import { isAppError } from "#server/core/errors";
import { adjustBalance } from "#server/core/money/balance";
import { cancelPayout, processPayout } from "#server/core/money/payouts";
import { setRates } from "#server/core/money/rates";

// Server code reaches route modules only through *.server.ts files (the browser bundle empties them).
export { readBalance } from "#server/core/money/balance";
export { paymentStats, payoutDetails, payoutHistory } from "#server/core/money/payouts";
export { getRates } from "#server/core/money/rates";

/** Where to go back to: /payments with the table's own query (search, sort, page), never another path. */
function backTo(back: string, extra: Record<string, string> = {}) {
  const params = new URLSearchParams(back);
  for (const [key, value] of Object.entries(extra)) {
    if (key === "paid") {
      const paid = new Set((params.get("paid") ?? "").split(",").filter(Boolean));
      paid.add(value);
      params.set("paid", [...paid].join(","));
    } else params.set(key, value);
  }
  const query = params.toString();
  return `/payments${query ? `?${query}` : ""}`;
}

/** Every /payments form carries the table's query to come back to. */
const BackField = z.object({ back: z.string().default("") });
const PaymentIdFields = z.object({ paymentId: idSchema });

/**
 * Every form of /payments and its dialogs posts here (with JavaScript or without): one intent each, read through
 * its schema (decision 063: the dialogs' schemas are core's, in common/schemas/money.ts), the core rule, then a
 * redirect with a one-time toast. A refused amount answers next to its field; other refusals answer the core's
 * status and Russian message. Core is given the fields as sent: the schemas turn dollars into cents.
 */
export async function paymentsAction({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
  try {
    const { back } = readFields(form, BackField);
    switch (intent) {
      case "rates":
        return await submitForm(form, { name: "rates", schema: ratesSchema }, async (_, fields) => {
          await setRates(db, actor, fields);
          return redirectWithToast(backTo(back), { type: "success", message: "Ставки сохранены" });
        });
      case "payout":
        return await submitForm(
          form,
          { name: "payout", schema: payoutSchema, fieldOf: { payout_over_balance: "amount" } },
          async ({ userId }, fields) => {
            const result = await processPayout(db, actor, fields);
            return redirectWithToast(backTo(back, { paid: String(userId) }), { type: "success", message: result.message });
          },
        );
      case "add":
      case "rem":
      case "def": {
        // The button is the change's kind (the reset's question sends no amount).
        form.set("kind", intent);
        return await submitForm(form, { name: "balance", schema: adjustSchema, fieldOf: { amount_too_large: "amount" } }, async (_, fields) => {
          const result = await adjustBalance(db, actor, fields);
          return redirectWithToast(backTo(back), { type: "success", message: result.message });
        });
      }
      case "cancel": {
        const result = await cancelPayout(db, actor, readFields(form, PaymentIdFields).paymentId);
        return redirectWithToast(backTo(back), { type: "success", message: result.message });
      }
      default:
        return actionError(unknownIntent());
    }
  } catch (error) {
    return actionError(error);
  }
}

/** A loader's refusal (unknown worker, bad id) as the HTTP answer the error boundary shows, never a 500. */
export function loaderError(error: unknown): never {
  if (isAppError(error)) throw new Response(error.message, { status: error.status });
  throw error;
}
