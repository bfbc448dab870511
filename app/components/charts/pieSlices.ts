/** SPEC §9: at most 8 named slices, the rest folded into Другое. */
export const NAMED_SLICES = 8;
export const OTHER_LABEL = "Другое";

export interface PieSlice {
  label: string;
  value: number;
  /** Rounded percent of the whole (SPEC: values are rounded percentages). */
  percent: number;
  color: string;
}

const OTHER_COLOR = "#64748b";

/**
 * Largest first; the ninth and later become one Другое slice. Zero and negative values are left out. Each slice
 * keeps the colour it came with (a status's own colour, issue 17 point 6): rank never picks a colour.
 */
export function pieSlices(entries: Array<{ label: string; value: number; color: string }>): PieSlice[] {
  const positive = entries.filter((e) => e.value > 0).sort((a, b) => b.value - a.value || a.label.localeCompare(b.label, "ru"));
  const total = positive.reduce((sum, e) => sum + e.value, 0);
  if (total === 0) return [];
  const named = positive.slice(0, NAMED_SLICES);
  const rest = positive.slice(NAMED_SLICES).reduce((sum, e) => sum + e.value, 0);
  const slices = named.map((e) => ({ label: e.label, value: e.value, color: e.color }));
  if (rest > 0) slices.push({ label: OTHER_LABEL, value: rest, color: OTHER_COLOR });
  return slices.map((s) => ({ ...s, percent: Math.round((s.value / total) * 100) }));
}
