/**
 * SPEC /edit-statuses: a button's text is black or white by the colour's brightness, luma weights 299, 587
 * and 114 (ITU-R BT.601), threshold 128: at or above it the background is light and the text black. The one copy
 * of the rule: the status editor's preview and the lead panel's buttons both read it.
 */
export const LUMA_THRESHOLD = 128;

/** A #rgb or #rrggbb colour's channels; black for anything else. */
function channels(hex: string): [number, number, number] {
  const match = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(hex.trim());
  if (!match) return [0, 0, 0];
  const digits = match[1].length === 3 ? [...match[1]].map((c) => c + c).join("") : match[1];
  const value = parseInt(digits, 16);
  return [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff];
}

export function luma(hex: string): number {
  const [r, g, b] = channels(hex);
  return (r * 299 + g * 587 + b * 114) / 1000;
}

export function textColorFor(background: string): "#000000" | "#ffffff" {
  return luma(background) >= LUMA_THRESHOLD ? "#000000" : "#ffffff";
}

/** WCAG 2.x relative luminance of a #rrggbb colour (0 black … 1 white). */
export function relativeLuminance(hex: string): number {
  const linear = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  const [r, g, b] = channels(hex);
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}

/** WCAG contrast ratio of two #rrggbb colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * What a status button may sit on, per theme: the page (slate-100 / slate-950) and a card (white / slate-800).
 * tailwind.css and the layout test's measure follow the same colours.
 */
const SURFACES = { light: ["#f1f5f9", "#ffffff"], dark: ["#020617", "#1e293b"] } as const;
/** WCAG 1.4.11: a control's shape needs 3:1 against what is around it. */
const EDGE_CONTRAST = 3;

/**
 * The edge a status button needs so its shape shows in each theme (issue 31: #111827 was 1.14:1 on the dark
 * page and the button vanished): a ring in a contrasting slate where its colour fades into the surface, in that
 * theme only. Its text colour stays SPEC's (textColorFor).
 */
export function statusEdgeClass(color: string): string {
  const fades = (theme: keyof typeof SURFACES) => SURFACES[theme].some((surface) => contrastRatio(color, surface) < EDGE_CONTRAST);
  const light = fades("light");
  const dark = fades("dark");
  return [light ? "ring-1 ring-slate-500" : "", dark ? "dark:ring-1 dark:ring-slate-300" : light ? "dark:ring-0" : ""].filter(Boolean).join(" ");
}

/** WCAG 1.4.3: normal-size text needs 4.5:1 against its background. */
export const TEXT_CONTRAST = 4.5;

/**
 * Decision 078: SPEC's black-or-white rule stays, but on some colours (pure red, mid greys) neither reaches 4.5:1
 * with the text it picks. The status editor says so beside the preview, with the ratio, so the admin can choose a
 * colour every manager reads; nothing is refused.
 */
export function weakTextContrast(color: string): number | null {
  const ratio = contrastRatio(color, textColorFor(color));
  // To a tenth, never shown as the 4.5 it misses.
  return ratio < TEXT_CONTRAST ? Math.min(Math.round(ratio * 10) / 10, 4.4) : null;
}
