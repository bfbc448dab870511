import path from "node:path";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { links, templates, users } from "../../db/schema";
import type { Theme } from "../../app/theme.server";
import { ADMIN, createUser } from "../helpers/app";
import { loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createBase, createFilterRow } from "../helpers/leads";
import { layoutFaults, screenshot } from "../helpers/screen-checks";
import { setTheme } from "../helpers/screens";

/**
 * A long first word at 390 px (issue 41 §13-14): a name of one long word (a topic, a template, a link, a manager's
 * first name) wraps inside its card or is cut with an ellipsis and its whole text in a title; it never runs out of
 * its card, the window, or under the controls beside it.
 */
const TOPIC = "Обзвонпотенциальныхклиентовкиевскогорегиона";
const TEMPLATE = "Анкетанапотребительскийкредитдлявладельцев";
const LINK = "Внутренняясистемаучётаклиентовотдела";
const MANAGER = "Константинопольская-Александровна Петренко";
const WORDS = [TOPIC, TEMPLATE, LINK, MANAGER.split(" ")[0]];

let e: E2E;
let manager: { login: string; password: string; accessKey: string };
beforeAll(async () => {
  e = await startE2E();
  const made = await createUser(e.db, { displayName: MANAGER });
  const { base } = await createBase(e.db, { count: 2 });
  const [template] = await e.db
    .insert(templates)
    .values({ name: TEMPLATE, isActive: true, templateFields: JSON.stringify([{ label: "Сумма", type: "text" }]) })
    .returning();
  const filter = await createFilterRow(e.db, {
    name: TOPIC,
    managerIds: [made.user.id],
    databaseIds: [base.id],
    statusIds: [],
    templateId: template.id,
  });
  await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, made.user.id));
  await e.db.insert(links).values({ name: LINK, link: "https://crm.example/", isActive: true });
  manager = made;
});
afterAll(async () => {
  await e?.close();
});

/** Each element whose own text holds a long word: outside its card or the window, or cut without an ellipsis and a title. */
function wordFaults(page: Page) {
  return page.evaluate((words) => {
    const out: string[] = [];
    const vw = document.documentElement.clientWidth;
    for (const el of Array.from(document.querySelectorAll<HTMLElement>("body *"))) {
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? "")
        .join("");
      const word = words.find((w) => own.includes(w));
      if (!word) continue;
      const r = el.getBoundingClientRect();
      if (r.width < 2 || getComputedStyle(el).visibility === "hidden") continue;
      const name = `<${el.tagName.toLowerCase()}> «${word.slice(0, 20)}…»`;
      const card = el.closest<HTMLElement>(".card, header");
      if (r.right > vw + 1) out.push(`${name} runs out of the window (${Math.round(r.right)} > ${vw})`);
      else if (card && r.right > card.getBoundingClientRect().right + 1) out.push(`${name} runs out of its ${card.tagName.toLowerCase()}`);
      const style = getComputedStyle(el);
      const cut = el.scrollWidth > el.clientWidth + 1 && style.overflowX !== "visible";
      if (cut && (style.textOverflow !== "ellipsis" || !el.closest("[title]"))) out.push(`${name} is cut without an ellipsis and a title`);
      // Nothing it overlaps: the next control in its row starts after it.
      const row = el.parentElement;
      for (const other of Array.from(row?.querySelectorAll<HTMLElement>("a, button, label, input") ?? [])) {
        if (other.contains(el) || el.contains(other)) continue;
        const o = other.getBoundingClientRect();
        if (o.width > 1 && o.left < r.right - 1 && o.right > r.left + 1 && o.top < r.bottom - 1 && o.bottom > r.top + 1)
          out.push(`${name} lies under «${(other.textContent ?? "").trim().slice(0, 20)}»`);
      }
    }
    return out;
  }, WORDS);
}

async function visit(credentials: typeof manager, javaScript: boolean, theme: Theme, pathname: string, width: number) {
  const context = await e.browser.newContext({ baseURL: e.baseUrl, javaScriptEnabled: javaScript, viewport: { width, height: 844 } });
  await setTheme(context, e.baseUrl, theme);
  const page = await context.newPage();
  await loginThroughPage(page, credentials);
  await page.goto(pathname);
  if (javaScript) await waitForHydration(page);
  return { context, page };
}

describe("a long first word at 390 px (issue 41)", () => {
  it("wraps inside its card on /loadedbases, /leadTemplate and the lead panel, and the header's name keeps to its box", async () => {
    const found: string[] = [];
    const themes: Theme[] = process.env.SCREENS_DIR ? ["light", "dark"] : ["light"];
    for (const javaScript of [true, false])
      for (const theme of themes)
        for (const width of process.env.SCREENS_DIR ? [390, 1440] : [390])
          for (const [who, pathname] of [
            [ADMIN, "/loadedbases"],
            [ADMIN, "/leadTemplate"],
            [manager, "/leadpanel"],
          ] as const) {
            const { context, page } = await visit(who, javaScript, theme, pathname, width);
            const label = `${pathname} ${width} ${theme}${javaScript ? "" : " no-JS"}`;
            found.push(...(await wordFaults(page)).map((f) => `${label}: ${f}`));
            found.push(...(await layoutFaults(page)).map((f) => `${label}: ${f}`));
            if (process.env.SCREENS_DIR)
              await screenshot(
                page,
                path.join(process.env.SCREENS_DIR, `long-words${pathname.replace(/\//g, "-")}-${width}-${theme}${javaScript ? "" : "-nojs"}.png`),
              );
            await context.close();
          }
    expect(found).toEqual([]);
  }, 240_000);
});
