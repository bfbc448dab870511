/**
 * The call log's side of a refused call: its reason in the log's words and its outcome. The words themselves are
 * shared with the softphone (common/sip-reasons.ts).
 */
import type { CallOutcome } from "../../../db/schema/calls";
import { failureReason, type ProxyRefusal } from "../../../common/sip-reasons";

const capitalised = (text: string) => text[0].toUpperCase() + text.slice(1);

/** The call log's reason for a SIP final response (its digit class when the code itself has no entry). */
export function sipReason(code: number, phrase?: string): string {
  const reason =
    failureReason(code, phrase) ??
    (code === 401 || code === 407
      ? "ошибка авторизации телефона"
      : code >= 600
        ? "вызов отклонён"
        : code >= 500
          ? "ошибка сервера телефонии"
          : `вызов не состоялся (код ${code})`);
  return capitalised(reason);
}

/** The outcome of a call refused with this code: busy and no-answer are the ones a manager plans around. */
export function outcomeOfSipCode(code: number): CallOutcome {
  if (code === 486 || code === 600) return "busy";
  if (code === 480 || code === 408) return "no_answer";
  if (code === 487) return "cancelled";
  return "failed";
}

/**
 * The refusals of our own call check (decision 049): the call never left for the carrier, so it is no attempt at
 * the client (the day's call numbers, decision 060; the contact limits, decision 075). Typed by the proxy's
 * phrases, so a renamed phrase breaks the build here, not the numbers.
 */
export const OWN_POLICY_REFUSALS: ProxyRefusal[] = [
  "Not Signed In",
  "On Break",
  "Do Not Call",
  "Outside Calling Hours",
  "Contact Limit",
  "No Consent",
];
/** Their reasons as the call log writes them. */
export const OWN_POLICY_REASONS = OWN_POLICY_REFUSALS.map((phrase) => sipReason(403, phrase));
