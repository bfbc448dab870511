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

/** A card label as compared: lower case, «ё» as «е», spaces collapsed, no trailing colon. */
const comparable = (label: string) =>
  label
    .toLowerCase()
    .replace(/ё/g, "е")
    .replace(/\s+/g, " ")
    .replace(/[:\s]+$/, "")
    .trim();

/** Card field names that mean a base's own columns (the name, phone, city and address the import maps). */
const BASE_COLUMN_NAMES: Record<string, string[]> = {
  name: ["имя", "фио", "фио клиента", "имя клиента", "клиент", "ф.и.о", "ф.и.о."],
  phone: ["телефон", "номер телефона", "телефон клиента"],
  city: ["город", "город клиента"],
  address: ["адрес", "адрес клиента"],
};

/**
 * Issue 41: the value a template field starts with on the lead panel: the client's own, when the field's name is a
 * base column's (the card's row label: «Город», an extra field's import header such as «Сумма долга») or a name for
 * one («ФИО клиента» is the client's name); "" otherwise. Managers stopped retyping the base's data into the card.
 */
export function cardFieldStart(label: string, rows: ReadonlyArray<{ key: string; label: string; value: string }>): string {
  const wanted = comparable(label);
  if (!wanted) return "";
  const row = rows.find((r) => comparable(r.label) === wanted) ?? rows.find((r) => BASE_COLUMN_NAMES[r.key]?.includes(wanted));
  return row?.value.trim() ?? "";
}
