import { PROXY_REFUSALS, type ProxyRefusal } from "./proxy-refusals";

export { DO_NOT_CALL_REFUSAL, PROXY_REFUSALS, type ProxyRefusal } from "./proxy-refusals";

/**
 * Why the other side or the network refused a call, in words a manager understands, by the SIP code of the final
 * answer. One table for the softphone's toast («Ошибка вызова: абонент занят», app/lib/softphone/transition.ts) and
 * the call log's reason («Абонент занят», server/core/calls/sip-reasons.ts). The browser bundle runs it.
 */
export const SIP_FAILURE_REASONS: Record<number, string> = {
  403: "вызов запрещён",
  404: "номер не найден",
  408: "абонент не отвечает",
  410: "номер не существует",
  480: "абонент недоступен",
  484: "неполный номер",
  486: "абонент занят",
  487: "вызов отменён",
  488: "несовместимые кодеки",
  500: "ошибка сервера телефонии",
  502: "ошибка оператора связи",
  503: "оператор связи недоступен",
  504: "оператор связи не отвечает",
  600: "абонент занят",
  603: "вызов отклонён",
  604: "номер не существует",
};

/** The manager's words for a failed call: the proxy's own refusal by its reason phrase, else by the code. */
export function failureReason(code: number, phrase?: string): string | undefined {
  if (phrase && Object.hasOwn(PROXY_REFUSALS, phrase)) return PROXY_REFUSALS[phrase as ProxyRefusal];
  return SIP_FAILURE_REASONS[code];
}
