import fs from "node:fs";
import path from "node:path";
import { builtAssetFile } from "#server/http/build-files";
import { criticalStylesheet, stylesheetIndex } from "#server/http/critical-stylesheet";

/**
 * Decision 090, the slow link: the stylesheet inside the first document a browser gets, linked in every later one.
 *
 * Inlined, it arrives with the document, in the 300 ms the browser then waits for the first bytes of the modules
 * it asked for (the link is otherwise idle then); linked, it is one more response sharing the link with those
 * modules. Decision 093: only the part the page uses is inlined (~3-5 KB of the ~8 compressed), and the page links
 * the whole file once interactive. The `css` cookie names the stylesheet a browser has been sent whole (its file
 * name changes with its content), so the next document links it, from the browser's cache.
 */
const COOKIE = "css";
const YEAR_S = 365 * 24 * 3600;

let read: { href: string; css: string | null } | null = null;

/** The built stylesheet's text (BUILD_DIR as server/web.ts reads it), once; null if it cannot be read. */
export function stylesheetText(href: string): string | null {
  if (read?.href !== href) {
    const file = builtAssetFile(href);
    let css: string | null = null;
    try {
      css = fs.readFileSync(file, "utf8");
    } catch {
      // Linked, as before, if the build has no such file.
    }
    read = { href, css };
  }
  return read.css;
}

/** Whether this document inlines the stylesheet, and the cookie that says it was sent (null: linked). */
export function stylesheetChoice(request: Request, href: string): { inline: boolean; setCookie: string | null } {
  const key = path.basename(href, ".css");
  const sent = (request.headers.get("Cookie") ?? "").split(/;\s*/).some((pair) => pair === `${COOKIE}=${key}`);
  if (sent || stylesheetText(href) === null) return { inline: false, setCookie: null };
  return { inline: true, setCookie: `${COOKIE}=${key}; Path=/; Max-Age=${YEAR_S}; SameSite=Lax` };
}

/** What a document that inlines a part of the stylesheet holds in its <style> until the part is chosen. */
export const STYLESHEET_PART = "/*the page's part of the stylesheet*/";

/**
 * Decision 093: for a document that inlines the stylesheet (above) and a build with its index, the function that
 * chooses the part of it for the rendered document (`html`) and the modules it loads before it is interactive;
 * null where the document links the stylesheet, or inlines it whole (no index).
 */
export function stylesheetPart(request: Request, href: string): ((html: string, modules: string[]) => string) | null {
  if (!stylesheetChoice(request, href).inline || !stylesheetIndex(href)) return null;
  return (html, modules) => criticalStylesheet(href, html, modules) ?? stylesheetText(href) ?? "";
}
