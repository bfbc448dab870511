import { eq } from "drizzle-orm";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filterScripts, links, scripts, templates, users } from "../../db/schema";
import { themeHeader, type Theme } from "../../app/theme.server";
import { ADMIN, createUser } from "../helpers/app";
import { loginThroughPage, startE2E, waitForHydration, mappingGrid, type E2E } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { seriousViolations } from "../helpers/screen-checks";
import { buildXlsx } from "../helpers/xlsx";

const XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/**
 * Issue 9, accessibility: axe-core in Chromium on what a screen shows only after a person acts (the menu open on a
 * phone, the import's mapping and result, the lead panel's dialogs) and the contrast of the status toggles, in the
 * light and the dark theme. No serious or critical violation is allowed. Every screen as it opens is read by the
 * screen walk (test/e2e/screens-walk.test.ts), with the same check (test/helpers/screen-checks.ts).
 */

let e: E2E;
let manager: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  e = await startE2E();
  manager = await createUser(e.db, { login: "a11y-manager", displayName: "Ольга" });
  const { base } = await createBase(e.db, { name: "База Север", count: 5 });
  const [template] = await e.db
    .insert(templates)
    .values({
      name: "Анкета",
      isActive: true,
      templateFields: JSON.stringify([
        { label: "Сумма", type: "text" },
        { label: "Комментарий", type: "textarea" },
      ]),
    })
    .returning();
  const [script] = await e.db
    .insert(scripts)
    .values({ name: "Приветствие", content: "<p>Здравствуйте! <strong>Меня зовут</strong> Ольга.</p>" })
    .returning();
  await e.db.insert(links).values([
    { name: "CRM", link: "https://crm.example/", isActive: true },
    { name: "Архив", link: "https://old.example/", isActive: false },
  ]);
  const s = await statusesByText(e.db);
  const filter = await createFilterRow(e.db, {
    name: "Кредиты",
    managerIds: [manager.user.id],
    databaseIds: [base.id],
    statusIds: [s["Перезвонить"].id],
    templateId: template.id,
  });
  await e.db.insert(filterScripts).values({ filterId: filter.id, scriptId: script.id });
  await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
});
afterAll(async () => {
  await e?.close();
});

/** A context whose pages take axe-core as an injected script (bypassCSP: the app's CSP wants a nonce). */
async function contextFor(theme: Theme, viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  const context = await e.browser.newContext({ baseURL: e.baseUrl, bypassCSP: true, viewport });
  const cookie = (await themeHeader(theme)).split(";")[0];
  const [name, value] = [cookie.slice(0, cookie.indexOf("=")), cookie.slice(cookie.indexOf("=") + 1)];
  await context.addCookies([{ name, value, url: e.baseUrl }]);
  return context;
}

async function visit(page: Page, path: string) {
  await page.goto(path);
  await waitForHydration(page);
  await page.waitForLoadState("networkidle").catch(() => {});
}

describe.each(["light", "dark"] as Theme[])("axe-core, %s theme", (theme) => {
  it("the switched-on toggles of /edit-statuses (★ report, ⚙ technical) stand out and read clearly", async () => {
    // Issue 17: in the dark theme an "on" toggle was a faint tint. WCAG AA: the icon on its button at least
    // 4.5:1 (as for text), and the button against the card behind it at least 3:1 (a state must be visible).
    const context = await contextFor(theme);
    const page = await context.newPage();
    await loginThroughPage(page, ADMIN);
    await visit(page, "/edit-statuses");
    const toggles = await page.locator("[data-testid=status-row] button[aria-pressed=true]").evaluateAll((buttons) => {
      type Rgba = [number, number, number, number];
      const parse = (c: string): Rgba => {
        const [r, g, b, a = 1] = (c.match(/[\d.]+/g) ?? ["0", "0", "0", "0"]).map(Number);
        return [r, g, b, a];
      };
      const over = (top: Rgba, under: Rgba): Rgba => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1) as Rgba;
      /** The colour a box's background shows: its own over its ancestors'. */
      const background = (el: Element | null): Rgba => {
        const layers: Rgba[] = [];
        for (let box = el; box; box = box.parentElement) {
          const c = parse(getComputedStyle(box).backgroundColor);
          if (c[3] > 0) layers.push(c);
          if (c[3] === 1) break;
        }
        return layers.reduceRight<Rgba>((under, top) => over(top, under), [255, 255, 255, 1]);
      };
      const luminance = ([r, g, b]: Rgba) =>
        [r, g, b]
          .map((v) => (v / 255 <= 0.03928 ? v / 255 / 12.92 : ((v / 255 + 0.055) / 1.055) ** 2.4))
          .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
      const ratio = (a: Rgba, b: Rgba) => {
        const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
        return Math.round(((l1 + 0.05) / (l2 + 0.05)) * 100) / 100;
      };
      return buttons.map((button) => {
        const own = background(button);
        return {
          label: button.getAttribute("aria-label"),
          icon: ratio(over(parse(getComputedStyle(button).color), own), own),
          button: ratio(own, background(button.closest("[data-testid=status-row]"))),
        };
      });
    });
    await context.close();
    expect(toggles.map((t) => t.label).sort()).toEqual(["Отчётный статус", "Технический статус", "Технический статус"]);
    const weak = toggles.filter((t) => t.icon < 4.5 || t.button < 3);
    expect(weak).toEqual([]);
  });

  it("the mobile layout (below 1100 px), the menu open", async () => {
    // The pages themselves at 390 px, menu closed, are read by the screen walk (test/e2e/screens-walk.test.ts).
    const context = await contextFor(theme, { width: 390, height: 844 });
    const page = await context.newPage();
    await loginThroughPage(page, ADMIN);
    await visit(page, "/loadedbases");
    await page.locator("header label[for=menu-toggle]").click();
    await page.locator("[data-testid=sidebar]").waitFor();
    const found = (await seriousViolations(page)).map((v) => `menu open: ${v}`);
    await context.close();
    expect(found).toEqual([]);
  }, 120_000);

  it("the import's column mapping and its result", async () => {
    const context = await contextFor(theme);
    const page = await context.newPage();
    await loginThroughPage(page, ADMIN);
    await visit(page, "/importbase");
    await page.fill("#base-name", `Импорт ${theme}`);
    const file = await buildXlsx([
      ["Телефон", "ФИО", "Город"],
      ["0501234567", "Иванов Иван", "Киев"],
      ["0671112233", "Петрова Мария", "Львов"],
    ]);
    await page.setInputFiles("#base-file", { name: "клиенты.xlsx", mimeType: XLSX_MIME, buffer: file });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await mappingGrid(page);
    const found = (await seriousViolations(page)).map((v) => `mapping: ${v}`);
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();
    await page.getByTestId("import-result").waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `result: ${v}`));
    await context.close();
    expect(found).toEqual([]);
  }, 120_000);

  it("a manager's dialogs: the script viewer, the report confirmation, the panel's keys", async () => {
    // His pages themselves are read by the screen walk (test/e2e/screens-walk.test.ts).
    const context = await contextFor(theme);
    const page = await context.newPage();
    await loginThroughPage(page, manager);
    const found: string[] = [];
    // The script viewer the side menu opens (a modal with JavaScript, with its toast).
    await visit(page, "/leadpanel");
    await page.locator("summary", { hasText: "Скрипты" }).click();
    await page.locator("[data-testid=sidebar-script]").first().click();
    await page.getByRole("dialog").getByText("Меня зовут").waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `script viewer: ${v}`));

    // The report confirmation on the lead panel (a modal with JavaScript).
    await visit(page, "/leadpanel");
    await page.getByLabel("Сумма").fill("15000");
    await page.getByRole("button", { name: "Заявка" }).click();
    await page.locator("[data-testid=report-confirm]").waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `/leadpanel (report dialog): ${v}`));
    // The list of the panel's keys (issue 18: «?»).
    await page.keyboard.press("Escape");
    await page.locator("[data-testid=report-confirm]").waitFor({ state: "detached" });
    await page.keyboard.press("Shift+Slash");
    await page.locator("[data-testid=keys-dialog]").waitFor();
    found.push(...(await seriousViolations(page)).map((v) => `/leadpanel (keys dialog): ${v}`));
    await context.close();
    expect(found).toEqual([]);
  }, 120_000);
});
