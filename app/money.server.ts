import type { ActionFunctionArgs } from "@remix-run/node";
import { actorOf, requireAdminUser } from "./auth.server";
import { actionError } from "./errors.server";
import { readFormBody } from "./forms.server";
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
function backTo(form: FormData, extra: Record<string, string> = {}) {
  const params = new URLSearchParams(String(form.get("back") ?? ""));
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

/**
 * Every form of /payments and its dialogs posts here (with JavaScript or without): one intent each, the core
 * rule, then a redirect with a one-time toast. Refusals answer the core's status and Russian message.
 */
export async function paymentsAction({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = String(form.get("intent") ?? "");
  try {
    switch (intent) {
      case "rates": {
        await setRates(db, actor, { withPassport: form.get("withPassport"), withoutPassport: form.get("withoutPassport") });
        return redirectWithToast(backTo(form), { type: "success", message: "Ставки сохранены" });
      }
      case "payout": {
        const userId = String(form.get("userId") ?? "");
        const result = await processPayout(db, actor, { userId, amount: form.get("amount") });
        return redirectWithToast(backTo(form, { paid: String(userId) }), { type: "success", message: result.message });
      }
      case "add":
      case "rem":
      case "def": {
        const result = await adjustBalance(db, actor, { userId: form.get("userId"), kind: intent, amount: form.get("amount") ?? "" });
        return redirectWithToast(backTo(form), { type: "success", message: result.message });
      }
      case "cancel": {
        const result = await cancelPayout(db, actor, form.get("paymentId"));
        return redirectWithToast(backTo(form), { type: "success", message: result.message });
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
