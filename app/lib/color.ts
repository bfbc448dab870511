/**
 * SPEC /edit-statuses: a button's text is black or white by the colour's brightness, luma weights 299, 587
 * and 114 (ITU-R BT.601), threshold 128: at or above it the background is light and the text black.
 */
export const LUMA_THRESHOLD = 128;

export function luma(hex: string): number {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  if (!match) return 0;
  const value = parseInt(match[1], 16);
  const r = (value >> 16) & 0xff;
  const g = (value >> 8) & 0xff;
  const b = value & 0xff;
  return (r * 299 + g * 587 + b * 114) / 1000;
}

export function textColorFor(background: string): "#000000" | "#ffffff" {
  return luma(background) >= LUMA_THRESHOLD ? "#000000" : "#ffffff";
}

/** WCAG 2.x relative luminance of a #rrggbb colour (0 black … 1 white). */
export function relativeLuminance(hex: string): number {
  const match = /^#?([0-9a-f]{6})$/i.exec(hex.trim());
  const value = match ? parseInt(match[1], 16) : 0;
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel((value >> 16) & 0xff) + 0.7152 * channel((value >> 8) & 0xff) + 0.0722 * channel(value & 0xff);
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
