import type { ActionFunctionArgs } from "@remix-run/node";
import { actorOf, requireAdminUser } from "./auth.server";
import { actionError } from "./errors.server";
import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod";
import { formIntent, formRefused, formReply, readFields, readFormBody } from "./forms.server";
import { adjustSchema, payoutSchema, ratesSchema } from "../common/schemas/money";
import { idSchema } from "../common/validation";
import { redirectWithToast } from "./toast.server";
import { badRequest, isAppError } from "../server/core/errors";
import { adjustBalance } from "../server/core/money/balance";
import { cancelPayout, processPayout } from "../server/core/money/payouts";
import { setRates } from "../server/core/money/rates";

// Server code reaches route modules only through *.server.ts files (the browser bundle empties them).
export { readBalance } from "../server/core/money/balance";
export { paymentStats, payoutDetails, payoutHistory } from "../server/core/money/payouts";
export { getRates } from "../server/core/money/rates";

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
 * redirect with a one-time toast. A refused amount answers next to its field; other refusals answer the core's status
 * and Russian message.
 */
export async function paymentsAction({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
  // A form with amounts: its schema, then core; its answer goes to the form of that name. Core is given the fields as
  // sent (the schema turns dollars into cents, so its output is not its input again).
  const submit = async <T,>(name: string, schema: z.ZodType, fieldOf: Record<string, string>, run: (fields: Record<string, unknown>, value: Record<string, unknown>) => Promise<T>) => {
    const submission = parseWithZod(form, { schema });
    if (submission.status !== "success") return { answer: formReply(name, submission) };
    try {
      return { done: await run(submission.payload, submission.value as Record<string, unknown>) };
    } catch (error) {
      return { answer: formRefused(name, submission, error, fieldOf) };
    }
  };
  try {
    const { back } = readFields(form, BackField);
    switch (intent) {
      case "rates": {
        const result = await submit("rates", ratesSchema, {}, (value) => setRates(db, actor, value));
        if ("answer" in result) return result.answer;
        return redirectWithToast(backTo(back), { type: "success", message: "Ставки сохранены" });
      }
      case "payout": {
        const result = await submit("payout", payoutSchema, { payout_over_balance: "amount" }, (fields, value) =>
          processPayout(db, actor, fields).then((done) => ({ ...done, userId: String(value.userId) })),
        );
        if ("answer" in result) return result.answer;
        return redirectWithToast(backTo(back, { paid: result.done.userId }), { type: "success", message: result.done.message });
      }
      case "add":
      case "rem":
      case "def": {
        // The dialog's button is the change's kind.
        form.set("kind", intent);
        const result = await submit("balance", adjustSchema, { amount_too_large: "amount" }, (value) => adjustBalance(db, actor, value));
        if ("answer" in result) return result.answer;
        return redirectWithToast(backTo(back), { type: "success", message: result.done.message });
      }
      case "cancel": {
        const result = await cancelPayout(db, actor, readFields(form, PaymentIdFields).paymentId);
        return redirectWithToast(backTo(back), { type: "success", message: result.message });
      }
      default:
        return actionError(badRequest("Неизвестное действие", "bad_intent"));
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
