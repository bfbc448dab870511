/** The client card: template fields with the values a manager typed. Shared by the browser and the action. */
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
export const REPORT_CONFIRM =
  "Вы точно хотите отправить заявку? Проверьте, что б все поля в шаблоне, были заполнены!";

/**
 * The report status check before the confirmation (SPEC §5): a template whose fields are all empty gives
 * Заполните карточку клиента; a card with no text at all (no fields) gives Нет текста для отправки в отчет.
 */
export function reportCardProblem(fields: CardFieldValue[]): string | null {
  if (fields.length > 0 && fields.every((f) => f.value.trim() === "")) return CARD_EMPTY;
  if (clientCardText(fields) === "") return NO_REPORT_TEXT;
  return null;
}

/** SPEC /edit-statuses: black or white text by brightness (luma weights 299, 587, 114; threshold 128). */
export function textColorFor(hex: string): "#000000" | "#ffffff" {
  const match = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(hex.trim());
  if (!match) return "#000000";
  const digits = match[1].length === 3 ? [...match[1]].map((c) => c + c).join("") : match[1];
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
  return (r * 299 + g * 587 + b * 114) / 1000 >= 128 ? "#000000" : "#ffffff";
}
