// Run by the browser (the lead panel checks a report before it asks) and the server (the press's action, core's
// press and the application it forwards): the client card's text and SPEC §5's report messages, declared once.

/** The client card: template fields with the values a manager typed. */
export interface CardFieldValue {
  label: string;
  value: string;
}

/** SPEC §5: only fields with non-empty values, as "label: value" lines. */
export function clientCardText(fields: CardFieldValue[]): string {
  return fields
    .filter((f) => f.value.trim() !== "")
    .map((f) => `${f.label}: ${f.value.trim()}`)
    .join("\n");
}

export const CARD_EMPTY = "Заполните карточку клиента";
export const NO_REPORT_TEXT = "Нет текста для отправки в отчет";

/**
 * The report status check before the confirmation (SPEC §5): a template whose fields are all empty gives
 * Заполните карточку клиента; a card with no text at all (no fields) gives Нет текста для отправки в отчет.
 */
export function reportCardProblem(fields: CardFieldValue[]): string | null {
  if (fields.length > 0 && fields.every((f) => f.value.trim() === "")) return CARD_EMPTY;
  if (clientCardText(fields) === "") return NO_REPORT_TEXT;
  return null;
}
