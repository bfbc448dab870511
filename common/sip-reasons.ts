/**
 * Why the other side or the network refused a call, in words a manager understands, by the SIP code of the final
 * answer. One table for the softphone's toast («Ошибка вызова: абонент занят», app/lib/softphone/machine.ts) and
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

/**
 * The telephony stack's own refusals (decision 049), by the reason phrase Kamailio sends with them: the app's
 * policy check refused the call, or the carrier never answered. They win over the code's meaning (a 403 from the
 * proxy is not the carrier's «вызов запрещён»).
 */
export const PROXY_REFUSALS = {
  "Do Not Call": "номер в списке «Не звонить»",
  "On Break": "вы на перерыве",
  "Not Signed In": "вы не вошли в систему",
  "Outside Calling Hours": "у клиента сейчас нерабочее время",
  "Contact Limit": "лимит звонков клиенту исчерпан",
  "No Consent": "у клиента нет согласия на звонки",
  "Call Policy Unavailable": "сервер приложения недоступен",
  "Carrier Not Responding": "оператор связи не отвечает",
  // A call in that rang nobody (issue 42, server/core/telephony/inbound.ts), and a manager whose softphone was offline.
  "Managers Busy": "все менеджеры заняты",
  "No Managers": "нет менеджеров на линии",
  "Nobody Answered": "менеджеры не ответили",
  "Not Registered": "софтфон менеджера не подключён",
} as const satisfies Record<string, string>;
export type ProxyRefusal = keyof typeof PROXY_REFUSALS;

/**
 * Why a call to a do-not-call client is not made: «Позвонить» disabled on his card, and the call log's refusal of
 * a softphone's report of such a call; the words the softphone's toast gives the proxy's «Do Not Call».
 */
export const DO_NOT_CALL_REFUSAL = `Позвонить нельзя: ${PROXY_REFUSALS["Do Not Call"]}`;

/** The manager's words for a failed call: the proxy's own refusal by its reason phrase, else by the code. */
export function failureReason(code: number, phrase?: string): string | undefined {
  if (phrase && Object.hasOwn(PROXY_REFUSALS, phrase)) return PROXY_REFUSALS[phrase as ProxyRefusal];
  return SIP_FAILURE_REASONS[code];
}
