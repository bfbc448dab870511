/**
 * What a SIP final response means to a manager, in Russian, and which call outcome it is. Pure (no imports), so
 * the softphone's toast and the call log say the same thing.
 */
import type { CallOutcome } from "../../../db/schema/calls";

const REASONS: Record<number, string> = {
  403: "Вызов запрещён оператором",
  404: "Номер не существует",
  408: "Абонент не отвечает",
  410: "Номер больше не обслуживается",
  480: "Абонент недоступен",
  484: "Неполный номер",
  486: "Абонент занят",
  487: "Вызов отменён",
  488: "Несовместимые настройки звука",
  500: "Ошибка на стороне телефонии",
  502: "Оператор связи не отвечает",
  503: "Телефония недоступна",
  504: "Оператор связи не отвечает",
  600: "Абонент занят",
  603: "Абонент отклонил вызов",
  604: "Номер не существует",
};

/** The Russian reason of a SIP final response (the digit class when the code itself has no entry). */
export function sipReason(code: number): string {
  if (REASONS[code]) return REASONS[code];
  if (code === 401 || code === 407) return "Ошибка авторизации телефона";
  if (code >= 600) return "Абонент отклонил вызов";
  if (code >= 500) return "Ошибка на стороне телефонии";
  return `Вызов не состоялся (код ${code})`;
}

/** The outcome of a call refused with this code: busy and no-answer are the ones a manager plans around. */
export function outcomeOfSipCode(code: number): CallOutcome {
  if (code === 486 || code === 600) return "busy";
  if (code === 480 || code === 408) return "no_answer";
  if (code === 487) return "cancelled";
  return "failed";
}
