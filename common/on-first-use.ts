/**
 * A value made on its first use, not when its module loads (the app's Intl formatters). The modules' top level
 * runs before a page is interactive, and a renderer's first Intl objects are dear: the four formatters of the
 * layout's modules took ~35 ms of the lead panel's module evaluation (74 → 39 ms, median of 12 traced slow-link
 * loads, Chromium 156 on 2 cores), and the lead panel formats no date or sum before it is interactive.
 */
export function onFirstUse<T>(make: () => T): () => T {
  let made: T | undefined;
  return () => (made ??= make());
}
