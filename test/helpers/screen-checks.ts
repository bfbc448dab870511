import fs from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import type { Theme } from "../../app/theme.server";

/**
 * What the screen tests check on a page as it stands, one function per kind of check, so that the one walk of every
 * screen (test/e2e/screens-walk.test.ts) runs them all on each page it opens, and the focused tests of a11y and
 * layout run the same ones:
 *  - `readPage` (issue 17, the walk): English words, emoji, page titles, empty tables, the error screen;
 *  - `layoutFaults` (issue 17, layout): sideways scroll, controls outside the window or clipped, text cut silently;
 *  - `seriousViolations` (issue 9, accessibility): axe-core's serious and critical violations.
 */

/**
 * Latin words the interface may show: SPEC's verbatim English (the dashboard title, the template field types),
 * units, and the seeded data (logins, links). Anything else in Latin letters is an untranslated string.
 */
export const LATIN_ALLOWED = new Set(
  [
    "Statistics",
    "for",
    "Today",
    "Text",
    "TextArea",
    "USD",
    "SIP",
    "CRM",
    "API",
    "https",
    "http",
    "example",
    "crm",
    "old",
    "very",
    "long",
    "path",
    "the",
    "archive",
    "query",
    "admin",
    "layout",
    "manager",
    "with",
    "login",
    "operator",
    "kyiv",
    "night",
    "shift",
    "newcomer",
    "Telegram",
    "amoCRM",
    "xlsx",
    "xls",
    "ods",
    "csv",
    "Excel",
    "LibreOffice",
    "Enter",
    "Ctrl",
    "Shift",
    "Esc",
    "Tab",
    "UTF",
    "Windows",
    "UTC",
    // TRUNK_CALLER_ID, the setting the topic form names as the default number clients see (decision 083).
    "TRUNK",
    "CALLER",
    // The seeded managers' passwords (shown cut to 5 characters, SPEC §2) and access keys (test/helpers/app.ts).
    "Passw",
    "KEY",
  ].map((w) => w.toLowerCase()),
);

export interface Finding {
  latin: string[];
  emoji: string[];
  h1: number;
  emptyTables: number;
  errorScreen: boolean;
}

/** What the page shows a person, read from the rendered DOM (visible text, labels, placeholders, titles). */
export function readPage(page: Page): Promise<Finding> {
  return page.evaluate(() => {
    const visible = (el: Element) => {
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none") return false;
      const r = el.getBoundingClientRect();
      return r.width > 1 && r.height > 1;
    };
    const texts: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      // A script's text and a field's contents are what someone wrote, not the interface; <code> holds what a machine
      // reads (event names, secrets, a receiver's raw answer) and lang="en" a name that stays English.
      if (!parent || parent.closest("script, style, noscript, textarea, code, [lang=en], [data-testid=script-viewer] .script-html")) continue;
      if (node.textContent!.trim() && visible(parent)) texts.push(node.textContent!);
    }
    for (const el of Array.from(document.querySelectorAll("[placeholder], [title], [aria-label], option"))) {
      if (el.tagName !== "OPTION" && !visible(el)) continue;
      for (const attr of ["placeholder", "title", "aria-label"]) {
        const value = el.getAttribute(attr);
        if (value) texts.push(value);
      }
      if (el.tagName === "OPTION") texts.push(el.textContent ?? "");
    }
    const all = texts.join("\n");
    // URLs, e-mail addresses and IANA time zones (Europe/Moscow: the topic's zone, shown with its Russian name) are
    // data, not words of the interface.
    const data = /\S+:\/\/\S+|\S+@\S+|\b(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)\/[\w+\-/]+/g;
    const words = all.replace(data, " ").match(/[A-Za-z]{3,}/g) ?? [];
    const emoji = all.match(/[\p{Emoji_Presentation}\uFE0F]/gu) ?? [];
    const emptyTables = Array.from(document.querySelectorAll("table")).filter(
      (t) => visible(t) && t.tHead && t.tBodies.length > 0 && Array.from(t.tBodies).every((b) => b.rows.length === 0),
    ).length;
    return {
      latin: [...new Set(words)],
      emoji: [...new Set(emoji)],
      h1: Array.from(document.querySelectorAll("h1")).filter(visible).length,
      emptyTables,
      errorScreen: /Произошла ошибка|Application Error|Unexpected Server Error/.test(document.body.innerText),
    };
  });
}

/**
 * The screenshots are for people to look at; the checks read the page itself. Chromium now and then fails a
 * full-page capture ("Unable to capture screenshot") while it repaints: try again, then keep the viewport.
 */
export async function screenshot(page: Page, file: string) {
  for (const fullPage of [true, true, false]) {
    try {
      await page.screenshot({ path: file, fullPage });
      return;
    } catch (error) {
      if (!fullPage) throw error;
      await page.waitForTimeout(250);
    }
  }
}

/** The layout faults of the page as it stands, readable (empty when all is well). */
export function layoutFaults(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const faults: string[] = [];
    const vw = document.documentElement.clientWidth;
    const describe = (el: Element) => {
      const text = (el.getAttribute("aria-label") || el.textContent || (el as HTMLInputElement).name || "").trim().replace(/\s+/g, " ");
      return `<${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}> «${text.slice(0, 40)}»`;
    };
    const visible = (el: Element) => {
      const style = getComputedStyle(el);
      if (style.visibility === "hidden" || style.display === "none") return false;
      const r = el.getBoundingClientRect();
      // Visually hidden helpers (sr-only) are 1 px boxes on purpose.
      return r.width > 1 && r.height > 1;
    };
    const clips = (style: CSSStyleDeclaration) => style.overflowX !== "visible" || style.overflowY !== "visible";

    if (document.documentElement.scrollWidth > vw + 1) {
      faults.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px in a ${vw} px window`);
    }
    // Sideways scrollers: only where meant, and at desk width not even there.
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const style = getComputedStyle(el);
      if (!(style.overflowX === "auto" || style.overflowX === "scroll")) continue;
      if (el.scrollWidth <= el.clientWidth + 1 || !visible(el)) continue;
      if (!el.hasAttribute("data-scroll-x")) faults.push(`${describe(el).slice(0, 60)} scrolls sideways (${el.scrollWidth} > ${el.clientWidth})`);
      // A "wide" frame has a column per data item (a status): it may scroll, its controls must still show.
      else if (vw >= 1100 && el.getAttribute("data-scroll-x") !== "wide")
        faults.push(`a table scrolls sideways at ${vw} px (${el.scrollWidth} > ${el.clientWidth}): ${describe(el).slice(0, 60)}`);
    }
    const controls = document.querySelectorAll("button, a[href], input:not([type=hidden]), select, textarea, summary, label[for]");
    for (const el of Array.from(controls)) {
      if (!visible(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.left < -1 || r.right > vw + 1) {
        // Inside a sideways scroller meant for it (a wide table on a phone) a control may wait to the right.
        const scroller = el.closest("[data-scroll-x]");
        if (!scroller || (vw >= 1100 && scroller.getAttribute("data-scroll-x") === "wide"))
          faults.push(`${describe(el)} lies outside the window (${Math.round(r.left)}..${Math.round(r.right)} of ${vw})`);
      }
      for (let box = el.parentElement; box && box !== document.body; box = box.parentElement) {
        const style = getComputedStyle(box);
        if (!clips(style)) continue;
        const b = box.getBoundingClientRect();
        const scrollsX = style.overflowX === "auto" || style.overflowX === "scroll";
        const scrollsY = style.overflowY === "auto" || style.overflowY === "scroll";
        const outX = r.left < b.left - 1 || r.right > b.right + 1;
        const outY = r.top < b.top - 1 || r.bottom > b.bottom + 1;
        const meantX = scrollsX && box.hasAttribute("data-scroll-x") && !(vw >= 1100 && box.getAttribute("data-scroll-x") === "wide");
        if ((outX && !meantX) || (outY && !scrollsY)) {
          faults.push(`${describe(el)} is clipped by its box ${describe(box).slice(0, 50)}`);
          break;
        }
        // Inside a scroller the rest of the chain is measured against it, not the control.
        if (scrollsX || scrollsY) break;
      }
      // A control's own text spilling out of it.
      if (el.tagName === "BUTTON" || el.tagName === "A" || el.tagName === "LABEL") {
        if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX === "visible" && el.clientWidth > 0) {
          faults.push(`${describe(el)} has text wider than itself`);
        }
      }
    }
    // Text cut short must say so (an ellipsis) and say it whole on hover (a title).
    for (const el of Array.from(document.querySelectorAll("body *"))) {
      const style = getComputedStyle(el);
      if (style.overflowX !== "hidden" && style.overflowX !== "clip") continue;
      if (!visible(el) || el.scrollWidth <= el.clientWidth + 1) continue;
      const ownText = Array.from(el.childNodes).some((n) => n.nodeType === Node.TEXT_NODE && n.textContent!.trim() !== "");
      if (!ownText) continue;
      if (style.textOverflow !== "ellipsis" || !el.closest("[title]")) faults.push(`${describe(el)} is cut without an ellipsis and a title`);
    }
    return faults;
  });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string; html: string }>;
}

/**
 * The themes a check of words and boxes opens: both where a person looks at the screenshots (SCREENS_DIR names
 * their folder), else the light one: the dark theme changes colours alone (test/core/dark-theme.test.ts holds that),
 * so its words and boxes are the light theme's. Checks of colour open both always.
 */
export const LAYOUT_THEMES: Theme[] = process.env.SCREENS_DIR ? ["light", "dark"] : ["light"];

/**
 * The axe-core rules whose outcome colours decide: all a theme that changes colours alone can change (the dark
 * theme, test/core/dark-theme.test.ts), so a page already read whole in the light theme is read for these in the dark.
 */
export const COLOUR_RULES = ["color-contrast", "link-in-text-block"];

/** Runs axe-core on the page as it stands (all rules, or only `rules`); returns the serious and critical violations, readable. */
export async function seriousViolations(page: Page, rules?: string[]): Promise<string[]> {
  // Evaluated through the browser's protocol, which the page's CSP (scripts only with its nonce) does not govern.
  if (!(await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === "object"))) await page.evaluate(axeSource);
  if (!(await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe === "object"))) throw new Error("axe-core did not load");
  const violations = (await page.evaluate(async (rules) => {
    const axe = (window as unknown as { axe: { run(ctx: unknown, options: unknown): Promise<{ violations: unknown[] }> } }).axe;
    const only = rules ? { runOnly: { type: "rule", values: rules } } : {};
    const result = await axe.run(document, { resultTypes: ["violations"], ...only });
    return result.violations;
  }, rules)) as Violation[];
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} — ${n.target.join(" ")} — ${n.html.slice(0, 160)}`));
}
