import fs from "node:fs";
import path from "node:path";

/**
 * Decision 090, the slow link: the stylesheet inside the first document a browser gets, linked in every later one.
 *
 * Inlined, its ~8 KB arrive with the document, in the 300 ms the browser then waits for the first bytes of the
 * modules it asked for (the link is otherwise idle then); linked, it is one more response sharing the link with
 * those modules. The `css` cookie names the stylesheet a browser has been sent whole (its file name changes with
 * its content); a page that inlined it has the browser fetch the file into its cache once interactive, so the next
 * document links it.
 */
const COOKIE = "css";
const YEAR_S = 365 * 24 * 3600;

let read: { href: string; css: string | null } | null = null;

/** The built stylesheet's text (BUILD_DIR as server/web.ts reads it), once; null if it cannot be read. */
export function stylesheetText(href: string): string | null {
  if (read?.href !== href) {
    const file = path.resolve(process.env.BUILD_DIR || "build", "assets", href.replace(/^\/build\//, ""));
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
