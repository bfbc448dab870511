import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { filters, statuses, users } from "../../db/schema";
import { ADMIN, createUser } from "../helpers/app";
import { allowRefusal, loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createBase, createFilterRow } from "../helpers/leads";
import { shoot } from "../sip/call-page";

let e: E2E;
let manager: { login: string; password: string; accessKey: string };
beforeAll(async () => {
  e = await startE2E();
  const made = await createUser(e.db, { displayName: "Порядок Статусов" });
  const { base } = await createBase(e.db, { count: 2 });
  const filter = await createFilterRow(e.db, { managerIds: [made.user.id], databaseIds: [base.id], statusIds: [] });
  await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, made.user.id));
  manager = made;
});
afterAll(async () => {
  await e?.close();
});

async function openStatuses(javaScript: boolean) {
  const page = await e.newPage({ javaScript });
  await loginThroughPage(page, ADMIN);
  await page.goto("/edit-statuses");
  if (javaScript) await waitForHydration(page);
  return page;
}

const rowByText = (page: Page, text: string) =>
  page.locator("[data-testid=status-row]").filter({ has: page.locator(`input[aria-label="Текст статуса"][value="${text}"]`) });

async function rowIds(page: Page, scope: string) {
  return page.locator(`${scope} [data-testid=status-row]`).evaluateAll((rows) => rows.map((r) => Number(r.getAttribute("data-status-id"))));
}

/** The visible rows' ids and the digit each shows (null: none). */
async function keyedRows(page: Page) {
  return page
    .locator("[data-testid=visible-statuses] [data-testid=status-row]")
    .evaluateAll((rows) =>
      rows.map((r) => [r.getAttribute("data-status-id"), r.querySelector("[data-testid=status-key] kbd")?.textContent ?? null] as const),
    );
}

/** A manager's lead panel, as he opens it: the status buttons' ids, in the row's order. */
async function panelOrder(javaScript: boolean) {
  const panel = await e.newPage({ javaScript });
  await loginThroughPage(panel, manager);
  await panel.goto("/leadpanel");
  if (javaScript) await waitForHydration(panel);
  const ids = await panel.locator("[data-testid=status-buttons] button").evaluateAll((list) => list.map((b) => Number(b.getAttribute("value"))));
  await panel.context().close();
  return ids;
}

async function rowTexts(page: Page, scope: string) {
  return page.locator(`${scope} input[aria-label="Текст статуса"]`).evaluateAll((inputs) => inputs.map((i) => (i as HTMLInputElement).value));
}

/** Waits for a navigation the click causes (a full page load without JS, a client-side one with it). */
async function clickAndSettle(page: Page, selector: ReturnType<Page["locator"]>) {
  await selector.click();
  await page.waitForLoadState("networkidle");
}

describe.each([true, false])("/edit-statuses with JavaScript %s", (javaScript) => {
  it("creates, edits, hides and unhides, toggles and deletes a status", async () => {
    const page = await openStatuses(javaScript);
    expect(await page.locator("h1").textContent()).toBe("Статусы");
    await expect.poll(() => page.getByText("Скрытых статусов нет").count()).toBe(1);
    const before = await page.locator("[data-testid=status-row]").count();
    // With JavaScript every step happens without a full page load: this marker would be lost by one.
    if (javaScript) await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));

    // Issue 41: «Добавить статус» opens a draft row, «Новый статус» in #f59e0b, its name field focused; nothing
    // is saved (a manager would see it) until its «Сохранить». «Отмена» drops it.
    const saved = async () => (await e.db.select().from(statuses)).length;
    const inDb = await saved();
    await clickAndSettle(page, page.getByRole("link", { name: "Добавить статус" }));
    const draft = page.locator("[data-testid=status-draft]");
    await expect.poll(() => draft.locator('input[aria-label="Текст статуса"]').inputValue()).toBe("Новый статус");
    expect(await draft.locator('input[name="color"]').inputValue()).toBe("#f59e0b");
    if (javaScript) expect(await draft.locator('input[aria-label="Текст статуса"]').evaluate((field) => field === document.activeElement)).toBe(true);
    expect(await page.locator("[data-testid=status-row]").count()).toBe(before);
    expect(await saved()).toBe(inDb);
    await clickAndSettle(page, draft.getByRole("link", { name: "Отмена" }));
    await expect.poll(() => draft.count()).toBe(0);
    expect(await saved()).toBe(inDb);

    await clickAndSettle(page, page.getByRole("link", { name: "Добавить статус" }));
    await draft.locator('input[aria-label="Текст статуса"]').fill(`Автоответчик ${javaScript}`);
    await draft.locator('input[aria-label="Текст кнопки"]').fill(`АО ${javaScript}`);
    await draft.locator('input[name="color"]').fill("#1e3a8a");
    await clickAndSettle(page, draft.getByRole("button", { name: "Сохранить" }));
    await page.getByText("Статус успешно создан").first().waitFor();
    await expect.poll(() => page.locator("[data-testid=status-row]").count()).toBe(before + 1);
    await expect.poll(() => draft.count()).toBe(0);
    expect(await saved()).toBe(inDb + 1);

    const row = rowByText(page, `Автоответчик ${javaScript}`);
    await expect.poll(() => row.count()).toBe(1);
    await expect.poll(() => row.locator('input[aria-label="Текст кнопки"]').inputValue()).toBe(`АО ${javaScript}`);
    await expect.poll(() => row.locator('input[aria-label="Текст статуса"]').getAttribute("readonly")).toBe("");
    // Dark blue: white text on the preview.
    await expect.poll(() => row.locator("[data-testid=status-preview]").evaluate((b) => getComputedStyle(b).color)).toBe("rgb(255, 255, 255)");

    // Hide: it moves to Скрытые статусы; unhide brings it back.
    await clickAndSettle(page, row.getByRole("checkbox", { name: "Скрыть" }));
    await expect.poll(() => rowTexts(page, "[data-testid=hidden-statuses]")).toEqual([`Автоответчик ${javaScript}`]);
    await expect.poll(() => rowTexts(page, "[data-testid=visible-statuses]")).not.toContain(`Автоответчик ${javaScript}`);
    await expect.poll(() => page.getByText("Скрытых статусов нет").count()).toBe(0);
    await page.locator("[data-testid=hidden-statuses] summary").click();
    await clickAndSettle(page, rowByText(page, `Автоответчик ${javaScript}`).getByRole("checkbox", { name: "Скрыть" }));
    await expect.poll(() => rowTexts(page, "[data-testid=visible-statuses]")).toContain(`Автоответчик ${javaScript}`);
    await expect.poll(() => page.getByText("Скрытых статусов нет").count()).toBe(1);

    // Issue 41 (decision 085): the list is in the lead panel's order, technical first, normal, report last, each
    // row with its button's digit; a switched flag moves the row to its group, there and on the panel, and no digit.
    const order = () => rowIds(page, "[data-testid=visible-statuses]");
    const digits = async () => Object.fromEntries(await keyedRows(page));
    const kinds = async () =>
      page.locator("[data-testid=visible-statuses] [data-testid=status-row]").evaluateAll((rows) => rows.map((r) => r.getAttribute("data-kind")));
    const rank = { технический: 0, обычный: 1, отчётный: 2 } as Record<string, number>;
    const inGroups = async () => {
      const listed = (await kinds()).map((k) => rank[k ?? ""] ?? -1);
      return listed.every((r, i) => r >= 0 && (i === 0 || listed[i - 1] <= r));
    };
    expect(await inGroups()).toBe(true);
    expect(await order()).toEqual(await panelOrder(javaScript));
    await shoot(page, `edit-statuses-order${javaScript ? "" : "-nojs"}`);
    const shown = await digits();
    expect(Object.values(shown).filter((d) => d !== null)).toContain("1");
    await page.setViewportSize({ width: 1280, height: 420 });
    const own = rowByText(page, `Автоответчик ${javaScript}`);
    for (const [button, kind] of [
      ["Технический статус", "технический"],
      ["Технический статус", "обычный"],
      ["Отчётный статус", "отчётный"],
    ] as const) {
      await clickAndSettle(page, own.getByRole("button", { name: button }));
      await expect.poll(() => own.getAttribute("data-kind")).toBe(kind);
      await expect.poll(inGroups).toBe(true);
      // The moved row is brought into view, in a window as short as a phone's.
      await expect
        .poll(() => own.evaluate((row) => row.getBoundingClientRect().top >= 0 && row.getBoundingClientRect().bottom <= window.innerHeight))
        .toBe(true);
      expect(await digits()).toEqual(shown);
      expect(await order()).toEqual(await panelOrder(javaScript));
    }
    // Deleting asks first (issue 17).
    await clickAndSettle(page, rowByText(page, `Автоответчик ${javaScript}`).getByRole("link", { name: "Удалить" }));
    const question = page.locator("[data-testid=delete-status]");
    await question.getByText(`Статус «Автоответчик ${javaScript}» будет удалён. Отменить это нельзя.`).waitFor();
    expect(await rowByText(page, `Автоответчик ${javaScript}`).count()).toBe(1);
    await clickAndSettle(page, question.getByRole("button", { name: "Удалить" }));
    await page.getByText("Статус удалён").first().waitFor();
    await expect.poll(() => rowByText(page, `Автоответчик ${javaScript}`).count()).toBe(0);
    await expect.poll(() => page.locator("[data-testid=status-row]").count()).toBe(before);
    if (javaScript) expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);
  });
});

describe("the luma rule on the preview button", () => {
  it("puts black text on a light colour and white on a dark one, live while editing", async () => {
    const page = await openStatuses(true);
    const row = rowByText(page, "Перезвонить");
    await row.getByRole("link", { name: "Редактировать" }).click();
    const preview = row.locator("[data-testid=status-preview]");
    await row.locator('input[name="color"]').fill("#fde68a");
    await expect.poll(() => preview.evaluate((b) => getComputedStyle(b).color)).toBe("rgb(0, 0, 0)");
    await row.locator('input[name="color"]').fill("#111827");
    await expect.poll(() => preview.evaluate((b) => getComputedStyle(b).color)).toBe("rgb(255, 255, 255)");
    // Decision 078: on pure red SPEC's white text reads at 4.0:1; the row says so as the colour is picked.
    const hint = row.locator("[data-testid=status-contrast-hint]");
    expect(await hint.count()).toBe(0);
    await row.locator('input[name="color"]').fill("#ff0000");
    await expect.poll(() => hint.textContent()).toContain("контраст 4,0:1, нужно 4,5:1");
    expect(await preview.evaluate((b) => getComputedStyle(b).color)).toBe("rgb(255, 255, 255)");
    await row.scrollIntoViewIfNeeded();
    await shoot(page, "status-contrast-hint");
    await row.locator('input[name="color"]').fill("#2563eb");
    await expect.poll(() => hint.count()).toBe(0);
  });

  it("gives a manager the 403 page, not the statuses", async () => {
    // The manager gets the 403 page, which the browser logs.
    allowRefusal(403);
    // A manager with a topic (without one he is sent to /getFilters first).
    const [topic] = await e.db.insert(filters).values({ name: "Тематика менеджера" }).returning();
    const manager = await createUser(e.db, { login: "statuses-e2e-manager", gettingFilter: topic.id });
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, manager);
    const response = await page.goto("/edit-statuses");
    expect(response?.status()).toBe(403);
    await expect.poll(() => page.locator("[data-testid=status-row]").count()).toBe(0);
  });
});
