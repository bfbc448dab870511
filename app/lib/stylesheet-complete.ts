/**
 * Decision 093: a browser's first document inlines only the stylesheet's rules its page can use until the whole
 * file, linked once the page is interactive, is in. What is drawn later from a chunk fetched after hydration
 * (dialogs, toasts, the call's controls) may need the rest: `afterStylesheet` holds its module until then, so it
 * is never drawn unstyled. A page that linked the stylesheet has it whole already.
 */
/** The id of the <style> that holds the inlined stylesheet (app/stylesheet.server.ts, decisions 090 and 093). */
export const INLINE_ID = "stylesheet";

let complete = false;
const waiting: Array<() => void> = [];

/** The whole stylesheet is in (or could not be had: nothing waits for it forever). */
export function stylesheetComplete() {
  complete = true;
  for (const resolve of waiting.splice(0)) resolve();
}

/** `loading`, answered once the whole stylesheet is in as well (at once where it is, and on the server). */
export function afterStylesheet<T>(loading: Promise<T>): Promise<T> {
  if (complete || typeof document === "undefined" || !document.getElementById(INLINE_ID)) return loading;
  return Promise.all([loading, new Promise<void>((resolve) => waiting.push(resolve))]).then(([value]) => value);
}
