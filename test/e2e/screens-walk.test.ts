import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Theme } from "../../app/theme.server";
import { ADMIN } from "../helpers/app";
import { allowRefusal, loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { COLOUR_RULES, layoutFaults, LATIN_ALLOWED, readPage, screenshot, seriousViolations } from "../helpers/screen-checks";
import { adminScreens, seedScreens, setTheme } from "../helpers/screens";

/**
 * The one walk of every screen (issues 9 and 17): every page as an admin, as a manager (with a topic, and one still
 * choosing it) and logged out, in both themes, with JavaScript on and off, at 1280 and 390 px. Each page is opened
 * once per setting, and every check made there runs on it (test/helpers/screen-checks.ts), so a screen's load is
 * paid once:
 *  - the screen checks (readPage), on every page of the walk: no 5xx and no error screen; one page title (h1); no
 *    English words where the UI is Russian (SPEC's verbatim English and the seeded data aside); no emoji that need a
 *    colour emoji font (Debian's Chromium has none: they show as empty boxes); no table with a header and no rows;
 *  - the layout checks (layoutFaults), on every admin page (JavaScript on and off) and manager page (JavaScript on):
 *    no sideways scroll, no control outside the window or clipped by a box not meant to scroll it, no text cut
 *    without an ellipsis and a title; desk width is a 1280 px laptop (decision 039);
 *  - axe-core (seriousViolations) with JavaScript on at 1280 px on the pages the accessibility test always read
 *    (every admin screen and dialog, the manager's pages, login, recovery, the topic choice), and at 390 px on
 *    /leadpanel, /payments and /loadedbases: no serious or critical violation.
 * Where nobody looks at the screenshots (CI), the dark theme is opened only where axe-core reads the page, for the
 * rules colours decide (COLOUR_RULES): it changes colours alone (test/core/dark-theme.test.ts holds that), so its
 * words, boxes and roles are the light theme's.
 * The checks that need a page in a certain state (a dialog open, data added) are in test/e2e/a11y.test.ts and
 * test/e2e/layout.test.ts.
 *
 * Each visit leaves a full-page screenshot in SCREENS_DIR (default: the system temp folder's `screens`, outside the
 * repository) for a person to look at; CI, where nobody looks, takes none unless SCREENS_DIR is set.
 */
const SHOTS = !process.env.CI || !!process.env.SCREENS_DIR;
const DIR = process.env.SCREENS_DIR || path.join(os.tmpdir(), "screens");
/** SCREENS_ONLY=<regexp>: walk only the addresses it matches (to look at a few screens again after a change). */
const ONLY = process.env.SCREENS_ONLY ? new RegExp(process.env.SCREENS_ONLY) : null;

let e: E2E;
let seeded: Awaited<ReturnType<typeof seedScreens>>;

beforeAll(async () => {
  if (SHOTS) fs.mkdirSync(DIR, { recursive: true });
  // A PBX address nothing answers on (as the layout test's app had): only the CSP's connect-src names it.
  e = await startE2E({ env: { SIP_WS_URL: "ws://127.0.0.1:9/ws", SIP_DOMAIN: "pbx.invalid" } });
  seeded = await seedScreens(e);
});
afterAll(async () => {
  await e?.close();
});

const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

/**
 * A page of the walk and the checks made on it besides the screen checks (`screen: false` leaves those out):
 * `layout` with JavaScript on and off, or "js" with it on only; `axe` at the widths listed (JavaScript on).
 */
interface Stop {
  url: string;
  screen?: boolean;
  layout?: boolean | "js";
  axe?: number[];
}

async function visit(page: Page, stop: Stop, label: string, javaScript: boolean, width: number, found: string[], coloursOnly: boolean) {
  const { url } = stop;
  const response = await page.goto(url);
  const status = response?.status() ?? 0;
  if (status >= 500) found.push(`${label} ${url}: answered ${status}`);
  if (javaScript) {
    await waitForHydration(page);
    await page.waitForLoadState("networkidle").catch(() => {});
  }
  if (stop.screen !== false && !coloursOnly) {
    if (SHOTS) {
      const slug = `${label} ${url}`
        .replace(/[^\p{L}\p{N}]+/gu, "_")
        .replace(/^_|_$/g, "")
        .slice(0, 120);
      await screenshot(page, path.join(DIR, `${slug}.png`));
    }
    const seen = await readPage(page);
    const latin = seen.latin.filter((w) => !LATIN_ALLOWED.has(w.toLowerCase()) && !/^op\d*$/i.test(w));
    if (latin.length) found.push(`${label} ${url}: English words ${latin.join(", ")}`);
    if (seen.emoji.length) found.push(`${label} ${url}: emoji ${seen.emoji.join(" ")}`);
    if (seen.h1 !== 1) found.push(`${label} ${url}: ${seen.h1} page titles (h1)`);
    if (seen.emptyTables) found.push(`${label} ${url}: ${seen.emptyTables} empty table(s) saying nothing`);
    if (seen.errorScreen) found.push(`${label} ${url}: the error screen`);
  }
  if (!coloursOnly && (stop.layout === true || (stop.layout === "js" && javaScript))) {
    found.push(...new Set((await layoutFaults(page)).map((f) => `${label} ${url}: ${f}`)));
  }
  if (javaScript && stop.axe?.includes(width)) {
    // The dark theme changes colours alone: its pass reads the rules colours decide (the light pass read them all).
    found.push(...(await seriousViolations(page, coloursOnly ? COLOUR_RULES : undefined)).map((v) => `${label} ${url}: ${v}`));
  }
}

async function walk(who: "admin" | "manager" | "newcomer" | "guest", stops: () => Stop[]) {
  const found: string[] = [];
  for (const javaScript of [true, false]) {
    // A Russian browser, as the people using it have (the file picker says «Файл не выбран»).
    const context = await e.browser.newContext({ baseURL: e.baseUrl, javaScriptEnabled: javaScript, viewport: WIDTHS[0], locale: "ru-RU" });
    const page = await context.newPage();
    const credentials = who === "admin" ? ADMIN : who === "manager" ? seeded.manager : who === "newcomer" ? seeded.newcomer : null;
    if (credentials) await loginThroughPage(page, credentials);
    for (const theme of ["light", "dark"] as Theme[]) {
      await setTheme(context, e.baseUrl, theme);
      // The dark theme changes colours only (its classes are text, border, background and ring colours: no size,
      // display or content), so the page's words and boxes are the light theme's. Where nobody looks at screenshots,
      // it is opened only for what colours decide: axe-core's contrast.
      const coloursOnly = theme === "dark" && !SHOTS;
      for (const size of WIDTHS) {
        await page.setViewportSize(size);
        for (const stop of stops().filter((s) => !ONLY || ONLY.test(s.url))) {
          const axe = javaScript && !!stop.axe?.includes(size.width);
          const touched = coloursOnly ? axe : stop.screen !== false || stop.layout === true || axe || (javaScript && stop.layout === "js");
          if (touched)
            await visit(page, stop, `${who} ${theme} ${size.width} ${javaScript ? "js" : "nojs"}`, javaScript, size.width, found, coloursOnly);
        }
      }
    }
    await context.close();
  }
  return found;
}

const DESK = [1280];

/** The manager's pages: the walk's, the layout's (/payments, his 403) and axe's (all but /callbacks). */
const MANAGER_STOPS = (): Stop[] => [
  { url: "/leadpanel", layout: "js", axe: DESK },
  { url: "/", layout: "js", axe: DESK },
  { url: "/profile", layout: "js", axe: DESK },
  { url: "/callbacks", layout: "js" },
  { url: `/scripts/view/${seeded.ids.script}`, layout: "js", axe: DESK },
  { url: "/payments", screen: false, layout: "js", axe: DESK },
  { url: "/no-such-page", layout: "js", axe: DESK },
];

/**
 * The admin's pages: every screen and dialog (test/helpers/screens.ts), all checks; axe-core reads all of them but
 * the searches with a term, /callbacks and a base's delete dialog, at desk width, and three at phone width.
 * /access-log and /quality are read by axe-core only (as the accessibility test did).
 */
function adminStops(): Stop[] {
  const notRead = new Set(["/callbacks", `/loadedbases?deleteBase=${seeded.ids.base}`]);
  const phone = new Set(["/leadpanel", "/payments", "/loadedbases"]);
  return [
    ...adminScreens(seeded.ids).map((url) => ({
      url,
      layout: true,
      axe: notRead.has(url) || url.startsWith("/searchlead?") ? [] : phone.has(url) ? [1280, 390] : DESK,
    })),
    { url: "/access-log", screen: false, axe: DESK },
    { url: "/quality", screen: false, axe: DESK },
  ];
}

describe("the screen walk: screen, layout and axe-core checks on every page (screenshots in SCREENS_DIR)", () => {
  it("logged out: login and recovery", async () => {
    expect(await walk("guest", () => ["/auth", "/auth/recovery"].map((url) => ({ url, axe: DESK })))).toEqual([]);
  }, 120_000);

  it("a manager choosing a topic", async () => {
    expect(await walk("newcomer", () => [{ url: "/getFilters", axe: DESK }])).toEqual([]);
  }, 120_000);

  it("a manager at work", async () => {
    // The walk includes /payments (403 for a manager) and the 404 page, whose answers the browser logs.
    allowRefusal(403, 404);
    expect(await walk("manager", MANAGER_STOPS)).toEqual([]);
  }, 300_000);

  it("an admin, every screen and dialog", async () => {
    // The walk includes the 404 page, whose answer the browser logs.
    allowRefusal(404);
    expect(await walk("admin", adminStops)).toEqual([]);
  }, 900_000);
});
