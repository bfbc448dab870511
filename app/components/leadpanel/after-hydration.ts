/**
 * Decision 091, the slow link: what the lead panel draws only after it is interactive, one chunk fetched once it
 * is instead of before: the press's dialogs (callback time, report confirmation: opened by a press the page's
 * script sends) and the autodial strip (it waits for the softphone, which starts after hydration too); and the
 * questions a press without JavaScript is asked. The server has this module from the start and draws a question
 * into the page as before; a page that hydrates with one (a press posted before the page's script ran) waits for
 * this chunk to hydrate (app/lib/lazy-module.ts, lazyComponent). app/routes/_app.leadpanel.tsx loads it.
 */
// Loaded after the layout, and shares its modules: one chunk with them (app/layout-chunk.ts, decision 090).
import "../../layout-chunk";

export { AutodialBar } from "../leads/AutodialBar";
export { NoScriptQuestion } from "./NoScriptQuestion";
export { PressDialogs } from "./PressDialogs";
