/**
 * What the autodial strip says (decision 058): only the strip reads it, and the strip is fetched after the lead
 * panel is interactive (decision 091), so these live apart from the rule in app/lib/autodial.ts.
 */

/** What a screen reader hears once when a countdown starts (the visible seconds are not announced). */
export function countdownAnnouncement(seconds: number, client: string): string {
  return `Автонабор: звонок ${client ? `клиенту ${client} ` : ""}начнётся через ${seconds} ${secondsWord(seconds)}. Пропустить — клавиша S, пауза — клавиша P.`;
}

/** 1 секунду, 3 секунды, 5 секунд. */
export function secondsWord(n: number): string {
  const last = n % 10;
  const lastTwo = n % 100;
  if (last === 1 && lastTwo !== 11) return "секунду";
  if (last >= 2 && last <= 4 && (lastTwo < 12 || lastTwo > 14)) return "секунды";
  return "секунд";
}
