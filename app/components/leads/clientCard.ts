// The lead panel's report question and the status buttons' text colour. The card's text and SPEC §5's report check
// are in common/client-card.ts (the press's action and core read them too).
export const REPORT_CONFIRM = "Вы точно хотите отправить заявку? Проверьте, что б все поля в шаблоне, были заполнены!";

/** SPEC /edit-statuses: black or white text by brightness (luma weights 299, 587, 114; threshold 128). */
export function textColorFor(hex: string): "#000000" | "#ffffff" {
  const match = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(hex.trim());
  if (!match) return "#000000";
  const digits = match[1].length === 3 ? [...match[1]].map((c) => c + c).join("") : match[1];
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(digits.slice(i, i + 2), 16));
  return (r * 299 + g * 587 + b * 114) / 1000 >= 128 ? "#000000" : "#ffffff";
}
