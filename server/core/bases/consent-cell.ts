/**
 * A spreadsheet cell mapped to «Согласие на звонки» (issue 43): whether, and since when, the client agreed to be
 * called (38-FZ art. 18 needs a subscriber's prior consent for advertising calls). Readable forms:
 * - a date: «15.01.2026», «15.01.26», «2026-01-15», with a time after it or not: consent since that day (00:00 UTC);
 * - yes: «да», «есть», «согласен», «согласна», «yes», «y», «true», «1», «+», «✓»: consent since the import;
 * - no: «нет», «отказ», «no», «n», «false», «0», «-»: no consent.
 * An empty cell is no consent; anything else is unreadable (no consent, counted in the import's report).
 */
export type ConsentCell = { readable: true; since: Date | null } | { readable: false };

const YES = new Set(["да", "есть", "согласен", "согласна", "согласие", "yes", "y", "true", "1", "+", "✓", "✔"]);
const NO = new Set(["нет", "отказ", "no", "n", "false", "0", "-", "—"]);
const DOTTED = /^(\d{1,2})\.(\d{1,2})\.(\d{2}|\d{4})(?:\s.*)?$/;
const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T\s].*)?$/;

function dayOf(year: number, month: number, day: number): Date | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : null;
}

export function readConsentCell(cell: string, importedAt: Date): ConsentCell {
  const text = cell.trim().toLowerCase();
  if (!text || NO.has(text)) return { readable: true, since: null };
  if (YES.has(text)) return { readable: true, since: importedAt };
  const dotted = DOTTED.exec(text);
  const iso = ISO.exec(text);
  const date = dotted
    ? dayOf(dotted[3].length === 2 ? 2000 + Number(dotted[3]) : Number(dotted[3]), Number(dotted[2]), Number(dotted[1]))
    : iso
      ? dayOf(Number(iso[1]), Number(iso[2]), Number(iso[3]))
      : null;
  return date ? { readable: true, since: date } : { readable: false };
}
