import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databases } from "../../db/schema";
import { ADMIN, bearer } from "../helpers/app";
import { type E2E, loginThroughPage, parsed, startE2E, waitForHydration } from "../helpers/browser";
import type { Locator, Page } from "playwright-core";
import { setTheme } from "../helpers/screens";
import { buildXlsx } from "../helpers/xlsx";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
  const token = await e.adminToken();
  // Seven bases of 1..7 contacts: "База 1" .. "База 7".
  for (let n = 1; n <= 7; n++) {
    const rows = [["ФИО", "Телефон"], ...Array.from({ length: n }, (_, i) => [`Клиент ${n}-${i}`, `0${50 + n}000000${i}`])];
    const res = await e.request
      .post("/api/v1/database/import")
      .set(bearer(token))
      .field("name", `База ${n}`)
      .field("mappings", JSON.stringify(["name", "phone"]))
      .attach("file", await buildXlsx(rows), "b.xlsx");
    if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  }
});
afterAll(async () => {
  await e?.close();
});

const names = (page: import("playwright-core").Page) => page.locator("[data-testid=base-row] td:first-child").allTextContents();

describe.each([true, false])("client search with JavaScript %s", (javaScript) => {
  it("finds a phone written another way, pages a name search by 5, and says Ничего не найдено", async () => {
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/searchlead");
    if (javaScript) await waitForHydration(page);
    expect(await page.locator("#database option").first().textContent()).toBe("Выберите базу");

    await page.fill("#term", "+380 (53) 000-00-02");
    await page.getByRole("button", { name: "Найти" }).click();
    const hit = page.getByTestId("search-hit");
    await hit.first().waitFor();
    expect(await hit.count()).toBe(1);
    // One compact table row per hit (issue 17): name, the phone in the region's format, status, base, place, extras.
    const cells = await hit.locator("td").allTextContents();
    expect(cells.slice(0, 6)).toEqual(["Клиент 3-2", "05300 00002", "Без статуса", "База 3", "—", ""]);
    // The history stays one click away, folded in the row's last cell.
    expect(await hit.locator("td summary").textContent()).toBe("История клиента (0)");
    expect((await hit.boundingBox())!.height).toBeLessThan(80);

    await page.fill("#term", "клиент 7-");
    await page.selectOption("#database", { label: "База 7" });
    await page.getByRole("button", { name: "Найти" }).click();
    await page.waitForURL(/term=/);
    await expect.poll(() => page.getByTestId("search-hit").count()).toBe(5);
    const pager = page.getByTestId("pager");
    expect(await pager.getByRole("link").evaluateAll((links) => links.map((l) => l.textContent || l.getAttribute("aria-label")))).toEqual([
      "1",
      "2",
      "Следующая страница",
    ]);
    await pager.getByRole("link", { name: "2" }).click();
    await page.waitForURL(/page=2/);
    await expect.poll(() => page.getByTestId("search-hit").locator("td:nth-child(4)").allTextContents()).toEqual(["База 7", "База 7"]);

    await page.fill("#term", "Никого нет");
    await page.getByRole("button", { name: "Найти" }).click();
    await page.getByTestId("nothing-found").waitFor();
    expect(await page.getByTestId("nothing-found").textContent()).toBe("Ничего не найдено");
  });
});

/** The whole of `box` is inside the window as it stands (nothing to scroll to). */
async function expectInWindow(page: Page, box: Locator) {
  const at = (await box.boundingBox())!;
  const view = page.viewportSize()!;
  expect(at.y, "top of the question").toBeGreaterThanOrEqual(0);
  expect(at.y + at.height, "bottom of the question").toBeLessThanOrEqual(view.height);
  expect(at.x + at.width, "right edge of the question").toBeLessThanOrEqual(view.width);
}

describe.each([true, false])("the base table with JavaScript %s", (javaScript) => {
  it("pages by 5, sorts, searches, shows the status columns, and deletes after confirmation", async () => {
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/loadedbases");
    if (javaScript) await waitForHydration(page);
    const table = page.getByTestId("bases-table");
    await table.waitFor();
    const header = await table.locator("thead th").allTextContents();
    expect(header.slice(4, 9)).toEqual(["Недозвон", "Занято", "Перезвонить", "Отказ", "Заявка"]);
    expect(await page.getByRole("link", { name: "Добавить базу" }).getAttribute("href")).toBe("/importbase");
    expect(await page.getByTestId("bases-scroll").evaluate((el) => getComputedStyle(el).maxHeight)).toBe("500px");

    // Default: newest first, 5 per page.
    const deleted = javaScript ? "База 7" : "База 6";
    const firstPage = await names(page);
    expect(firstPage).toHaveLength(5);

    await page.getByTestId("sort-contactsCount").click();
    await page.waitForURL(/sort=contactsCount/);
    // The JavaScript run goes first and deletes База 7; the run without it then deletes База 6.
    await expect
      .poll(() => names(page))
      .toEqual(javaScript ? ["База 7", "База 6", "База 5", "База 4", "База 3"] : ["База 6", "База 5", "База 4", "База 3", "База 2"]);
    await page.getByTestId("sort-contactsCount").click();
    await page.waitForURL(/dir=asc/);
    await expect.poll(async () => (await names(page))[0]).toBe("База 1");

    await page.selectOption("[data-testid=bases-size]", "10");
    if (!javaScript) await page.getByRole("button", { name: "Показать" }).click();
    await page.waitForURL(/size=10/);
    await expect.poll(async () => (await names(page)).length).toBe(javaScript ? 7 : 6);

    await page.fill("#bases-q", "за 3");
    if (!javaScript) await page.getByRole("button", { name: "Показать" }).click();
    await page.waitForURL(/q=/);
    await expect.poll(() => names(page)).toEqual(["База 3"]);
    const cells = await page.locator("[data-testid=base-row] td").allTextContents();
    expect(cells[2]).toBe("3");
    expect(cells[3]).toBe("3");

    await page.goto("/loadedbases");
    if (javaScript) await waitForHydration(page);
    await page.getByRole("link", { name: `Удалить базу ${deleted}` }).click();
    const dialog = page.getByTestId("delete-base");
    await parsed(dialog);
    expect(await dialog.textContent()).toContain(`База «${deleted}» будет удалена`);
    // Issue 41: the question stands in the window, its button visible (without JavaScript it rendered at ~1030 px
    // of a 900 px window, so «Удалить» seemed to do nothing).
    await expectInWindow(page, dialog);
    if (process.env.SCREENS_DIR) {
      const [row] = await e.db.select().from(databases).where(eq(databases.name, deleted));
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page.context(), e.baseUrl, theme);
        for (const width of [390, 1440]) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
          await page.goto(`/loadedbases?deleteBase=${row.id}`);
          if (javaScript) await waitForHydration(page);
          await expectInWindow(page, dialog);
          await page.screenshot({ path: `${process.env.SCREENS_DIR}/delete-base-${width}-${theme}-js-${javaScript}.png` });
        }
      }
    }
    await dialog.getByRole("button", { name: "Удалить" }).click();
    await page.getByText(`База «${deleted}» удалена`).first().waitFor();
    await expect.poll(async () => (await e.db.select().from(databases).where(eq(databases.name, deleted))).length).toBe(0);
    expect(await names(page)).not.toContain(deleted);
  });
});
