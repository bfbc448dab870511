import { asc } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { statuses } from "../../../db/schema";

/**
 * Colours for texts that match no status any more (a deleted or renamed one): picked from the label itself, so
 * the same text has the same colour on every chart and every day, whatever its rank (issue 17, point 6).
 */
const ORPHAN_PALETTE = ["#0891b2", "#7c3aed", "#db2777", "#65a30d", "#0d9488", "#c2410c", "#4f46e5", "#a16207"];

export function orphanStatusColor(text: string): string {
  let hash = 0;
  for (const ch of text) hash = (hash * 31 + (ch.codePointAt(0) ?? 0)) >>> 0;
  return ORPHAN_PALETTE[hash % ORPHAN_PALETTE.length];
}

/**
 * A status's own colour for each recorded status text. A press is recorded with the text or the button text
 * it was sent with (record-status.ts matches text first, then button text, lowest id): the same order here.
 */
export async function statusColorsFor(db: Db, texts: Iterable<string>): Promise<Record<string, string>> {
  const wanted = [...new Set(texts)];
  if (wanted.length === 0) return {};
  const rows = await db
    .select({ text: statuses.text, buttonText: statuses.buttonText, color: statuses.color })
    .from(statuses)
    .orderBy(asc(statuses.id));
  const byText = new Map<string, string>();
  const byButton = new Map<string, string>();
  for (const row of rows) {
    if (!byText.has(row.text)) byText.set(row.text, row.color);
    if (row.buttonText && !byButton.has(row.buttonText)) byButton.set(row.buttonText, row.color);
  }
  return Object.fromEntries(wanted.map((t) => [t, byText.get(t) ?? byButton.get(t) ?? orphanStatusColor(t)]));
}
