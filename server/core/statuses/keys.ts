import { sortStatuses } from "./order";

/**
 * Issue 31: which digit presses which status on the lead panel. The admin may give a status a digit 1-9 on
 * /edit-statuses (`hotkey`); the digits nobody was given go to the other visible statuses in the default key
 * order: report statuses first (the status that earns money must have a key), then technical, then normal,
 * each by its order. Statuses past the ninth digit have none. Hidden statuses have none (their digit is kept for
 * when they show again, unless another status takes it).
 */
export const KEY_DIGITS = [1, 2, 3, 4, 5, 6, 7, 8, 9] as const;

interface Keyed {
  id: number;
  order: number;
  isReportStatus: boolean;
  isTechnical: boolean;
  hotkey: number | null;
}

/** Report, technical, normal; then order, then id. */
export function keyOrderGroup(status: Pick<Keyed, "isReportStatus" | "isTechnical">): number {
  if (status.isReportStatus) return 0;
  if (status.isTechnical) return 1;
  return 2;
}

export const byDefaultKeyOrder = (a: Keyed, b: Keyed) => keyOrderGroup(a) - keyOrderGroup(b) || a.order - b.order || a.id - b.id;

/**
 * The visible statuses in the lead panel's order, each with its digit (or null). The order is the one of every
 * status list (order.ts: technical, normal, report), not the digits': «Заявка» is last in the row and keeps 1
 * (decision 085), and the button shows its digit.
 */
export function withKeys<T extends Keyed>(visible: T[]): Array<T & { key: number | null }> {
  const taken = new Map<number, T>();
  // Two statuses given one digit (a race of two admins): the one saved first in the default order keeps it.
  for (const status of [...visible].sort(byDefaultKeyOrder)) {
    if (status.hotkey !== null && status.hotkey >= 1 && status.hotkey <= 9 && !taken.has(status.hotkey)) taken.set(status.hotkey, status);
  }
  const keyed = new Set(taken.values());
  const free = KEY_DIGITS.filter((digit) => !taken.has(digit));
  const rest = visible.filter((status) => !keyed.has(status)).sort(byDefaultKeyOrder);
  rest.slice(0, free.length).forEach((status, i) => taken.set(free[i], status));
  const keyOf = new Map([...taken].map(([digit, status]) => [status, digit]));
  return sortStatuses(visible.map((status) => ({ ...status, key: keyOf.get(status) ?? null })));
}

/**
 * Issue 31: two statuses with one button text («Отказ» for «Не интересно» and for «Отказ») showed two alike
 * buttons in different colours. Where button texts repeat, each such button says its status's text as well.
 */
export function withButtonLabels<T extends { text: string; buttonText: string }>(list: T[]): Array<T & { label: string }> {
  const shown = (status: T) => (status.buttonText || status.text).trim();
  const seen = new Map<string, number>();
  for (const status of list) seen.set(shown(status).toLowerCase(), (seen.get(shown(status).toLowerCase()) ?? 0) + 1);
  return list.map((status) => {
    const label = shown(status);
    const repeated = (seen.get(label.toLowerCase()) ?? 0) > 1 && status.text.trim().toLowerCase() !== label.toLowerCase();
    return { ...status, label: repeated ? `${label} · ${status.text.trim()}` : label };
  });
}
