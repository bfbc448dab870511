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
