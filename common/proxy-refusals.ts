/*
 * The telephony stack's refusals in the manager's words: their own module (sip-reasons.ts re-exports them) so the
 * lead panel takes them with the layout's chunk, without the SIP codes' table only the running softphone reads
 * (decision 090).
 */

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
