import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { templates, users } from "../../db/schema";
import { createUser } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

describe("issue 17: messages never get in the way", () => {
  it("the congratulation popup after a paid report does not catch the next status press (1440 and 390 wide)", async () => {
    const manager = await createUser(e.db, { displayName: "Вера" });
    const { base, contacts } = await createBase(e.db, { count: 4 });
    const [template] = await e.db.insert(templates).values({ name: "Анкета", templateFields: "[]" }).returning();
    const s = await statusesByText(e.db);
    const filter = await createFilterRow(e.db, {
      name: "Тематика Вера",
      managerIds: [manager.user.id],
      databaseIds: [base.id],
      statusIds: [s["Перезвонить"].id],
      templateId: template.id,
    });
    await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
    const page = await e.newPage();
    await loginThroughPage(page, manager);
    await waitForHydration(page);
    const leadName = page.locator("[data-testid=lead-name]");
    for (const [width, height, next] of [
      [1440, 900, 1],
      [390, 844, 2],
    ] as const) {
      await page.setViewportSize({ width, height });
      // Let the header's own balance poll finish first: reading the balance clears its notify flag.
      await page.waitForLoadState("networkidle");
      // A credit arrived (as after a report): the header's poll shows the popup on the next page load.
      await e.db.update(users).set({ notify: true, lastNotifyCents: 2000 }).where(eq(users.id, manager.user.id));
      await page.goto("/leadpanel");
      await waitForHydration(page);
      const popup = page.locator("[data-testid=balance-popup]");
      await parsed(popup);
      const said = (await popup.textContent())?.replace(/\s/g, " ");
      expect(said).toContain("Поздравляем!");
      expect(said).toContain("Вам начислено 20,00 $");
      const popupBox = (await popup.boundingBox()) as Box;
      expect(overlaps(popupBox, (await page.locator("[data-testid=status-buttons]").boundingBox()) as Box)).toBe(false);
      expect(overlaps(popupBox, (await page.locator("[data-testid=lead-form]").boundingBox()) as Box)).toBe(false);

      // The press lands where a person would click: at the button, whatever lies on top of it.
      const button = (await page.getByRole("button", { name: "Недозвон" }).boundingBox()) as Box;
      await page.mouse.click(button.x + button.width / 2, button.y + button.height / 2);
      await expect.poll(() => leadName.textContent()).toBe(contacts[next].name);
      // The popup stays until the manager closes it.
      await popup.getByRole("button", { name: "Отлично" }).click();
      await popup.waitFor({ state: "detached" });
    }
  });

  it("a wrong password then the right one: no stale error beside «Авторизирован» on the next page", async () => {
    // The wrong password is answered 401, which the browser logs.
    allowRefusal(401);
    const user = await createUser(e.db, { displayName: "Глеб" });
    const page = await e.newPage();
    await page.goto("/auth");
    await waitForHydration(page);
    await page.fill("#login", user.login);
    await page.fill("#password", "не-тот-пароль");
    await page.fill("#accessKey", user.accessKey);
    await page.click("button[type=submit]");
    await page.getByText("Неверный логин или пароль").first().waitFor();
    await page.fill("#password", user.password);
    await Promise.all([page.waitForURL((url) => !url.pathname.startsWith("/auth")), page.click("button[type=submit]")]);
    await page.getByText("Авторизирован").first().waitFor();
    expect(await page.getByText("Неверный логин или пароль").count()).toBe(0);
  });
});
