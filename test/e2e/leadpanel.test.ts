import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applications, leadEvents, links, settings, templates } from "../../db/schema";
import { reloadUser, createUser } from "../helpers/app";
import type { Page } from "playwright-core";
import { loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
  await e.db.update(settings).set({ rateWithPassportCents: 2000, rateWithoutPassportCents: 1000 }).where(eq(settings.id, 1));
  await e.db.insert(links).values([
    { name: "CRM", link: "https://crm.example/", isActive: true },
    { name: "Старая ссылка", link: "https://old.example/", isActive: false },
  ]);
});
afterAll(async () => {
  await e?.close();
});

/** Toasts pause while hovered (SPEC §9): move the pointer off them, as a person would, and let them go. */
async function clearToasts(page: Page) {
  await page.mouse.move(5, 700);
  await page.waitForFunction(() => document.querySelectorAll("[data-rht-toaster] [role=status]").length === 0, null, {
    timeout: 10_000,
  });
}

/** A manager, a base of three contacts and a topic with a two-field template. */
async function workSetup(name: string) {
  const manager = await createUser(e.db, { displayName: name });
  const { base, contacts } = await createBase(e.db, { count: 3 });
  const [template] = await e.db
    .insert(templates)
    .values({
      name: "Анкета",
      templateFields: JSON.stringify([
        { label: "Сумма", type: "text" },
        { label: "Комментарий", type: "textarea" },
      ]),
    })
    .returning();
  const s = await statusesByText(e.db);
  const filter = await createFilterRow(e.db, {
    name: `Тематика ${name}`,
    managerIds: [manager.user.id],
    databaseIds: [base.id],
    statusIds: [s["Перезвонить"].id],
    templateId: template.id,
  });
  return { manager, base, contacts, filter };
}

describe("a manager works leads", () => {
  it("with JavaScript: topic choice, three leads with one report through the dialog, then the empty state", async () => {
    const { manager, contacts, filter } = await workSetup("Анна");
    const page = await e.newPage();
    await loginThroughPage(page, manager);
    // No topic yet: the layout sends the manager to /getFilters.
    await page.waitForURL((url) => url.pathname === "/getFilters");
    await page.getByText("Выберите тематику:").waitFor();
    await waitForHydration(page);
    await page.getByRole("button", { name: filter.name }).click();
    await page.waitForURL((url) => url.pathname === "/leadpanel");
    await page.getByText("Тематика выбрана").first().waitFor();
    expect((await reloadUser(e.db, manager.user.id)).gettingFilter).toBe(filter.id);

    const leadName = page.locator("[data-testid=lead-name]");
    expect(await leadName.textContent()).toBe(contacts[0].name);
    expect(await page.locator("[data-testid=lead-phone]").textContent()).toBe(contacts[0].phone);
    expect(await page.getByPlaceholder("Введите паспорт").count()).toBe(1);
    expect(await page.locator("[data-testid=lead-links]").textContent()).toBe("CRM");
    expect(await page.locator("[data-testid=call-button]").textContent()).toBe("Позвонить");
    // Status buttons in SPEC order: technical first, report last; text colour by brightness.
    const buttons = await page.locator("[data-testid=status-buttons] button").allTextContents();
    expect(buttons).toEqual(["Недозвон", "Занято", "Перезвонить", "Отказ", "Заявка"]);
    expect(await page.getByRole("button", { name: "Отказ" }).evaluate((b) => getComputedStyle(b).color)).toBe("rgb(255, 255, 255)");

    await clearToasts(page);
    await page.getByRole("button", { name: "Отказ" }).click();
    await expect.poll(() => leadName.textContent()).toBe(contacts[1].name);

    // A report with an empty card is refused in the browser.
    await page.getByRole("button", { name: "Заявка" }).click();
    await page.getByText("Заполните карточку клиента").first().waitFor();
    await page.getByLabel("Сумма").fill("15000");
    await page.getByLabel("Комментарий").fill("Перезвонить после 18:00");
    await page.getByPlaceholder("Введите паспорт").fill("АА123456");
    await clearToasts(page);
    await page.getByRole("button", { name: "Заявка" }).click();
    const dialog = page.locator("[data-testid=report-confirm]");
    await dialog.getByText("Вы точно хотите отправить заявку? Проверьте, что б все поля в шаблоне, были заполнены!").waitFor();
    await dialog.getByRole("button", { name: "Закрыть" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await leadName.textContent()).toBe(contacts[1].name);
    await page.getByRole("button", { name: "Заявка" }).click();
    await dialog.getByRole("button", { name: "Да, я уверен!" }).click();
    await page.getByText("Данные отправлены").first().waitFor();
    await expect.poll(() => leadName.textContent()).toBe(contacts[2].name);
    // The card is cleared for the next lead.
    expect(await page.getByLabel("Сумма").inputValue()).toBe("");

    const [application] = await e.db.select().from(applications).where(eq(applications.contactId, contacts[1].id));
    expect(application).toMatchObject({
      applicationText: "Сумма: 15000\nКомментарий: Перезвонить после 18:00",
      withPassport: true,
      amountCents: 2000,
      phone: contacts[1].phone,
    });

    // The balance rose: the header's congratulation popup shows the amount; the manager closes it.
    const popup = page.locator("[data-testid=balance-popup]");
    await popup.waitFor();
    expect(await popup.textContent()).toContain("20");
    await popup.getByRole("button", { name: "Отлично" }).click();
    await popup.waitFor({ state: "detached" });

    await clearToasts(page);
    await page.getByRole("button", { name: "Недозвон" }).click();
    await page.getByText("Для вас нет доступных лидов").waitFor();
    const events = await e.db.select().from(leadEvents).where(eq(leadEvents.userId, manager.user.id)).orderBy(leadEvents.id);
    expect(events.map((ev) => ev.statusText)).toEqual(["Не интересно", "Заявка", "Не дозвонился"]);
    expect((page as Page & { consoleErrors?: string[] }).consoleErrors).toEqual([]);
  });

  it("without JavaScript: status presses and the report confirmation are plain posts", async () => {
    const { manager, contacts, filter } = await workSetup("Борис");
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, manager);
    expect(new URL(page.url()).pathname).toBe("/getFilters");
    await page.getByRole("button", { name: filter.name }).click();
    await page.waitForURL((url) => url.pathname === "/leadpanel");
    await page.getByText("Тематика выбрана").first().waitFor();
    const leadName = page.locator("[data-testid=lead-name]");
    expect(await leadName.textContent()).toBe(contacts[0].name);

    await page.getByRole("button", { name: "Перезвонить" }).click();
    await page.waitForLoadState();
    expect(await leadName.textContent()).toBe(contacts[1].name);

    await page.getByRole("button", { name: "Заявка" }).click();
    await page.getByText("Заполните карточку клиента").first().waitFor();
    await page.getByLabel("Сумма").fill("700");
    await page.getByRole("button", { name: "Заявка" }).click();
    const confirm = page.locator("[data-testid=report-confirm]");
    await confirm.getByText("Вы точно хотите отправить заявку? Проверьте, что б все поля в шаблоне, были заполнены!").waitFor();
    expect(await confirm.locator("pre").textContent()).toBe("Сумма: 700");
    await confirm.getByRole("button", { name: "Да, я уверен!" }).click();
    await page.getByText("Данные отправлены").first().waitFor();
    expect(await leadName.textContent()).toBe(contacts[2].name);
    expect((await reloadUser(e.db, manager.user.id)).balanceCents).toBe(1000);

    await page.getByRole("button", { name: "Отказ" }).click();
    // The base ran out except the contact marked Перезвонить, which this topic works again.
    expect(await leadName.textContent()).toBe(contacts[0].name);
    await page.getByRole("button", { name: "Отказ" }).click();
    await page.getByText("Для вас нет доступных лидов").waitFor();

    // Сменить тематику: back to topic choice.
    await page.getByRole("button", { name: "Сменить тематику" }).click();
    expect(new URL(page.url()).pathname).toBe("/getFilters");
    await page.goto("/leadpanel");
    expect(new URL(page.url()).pathname).toBe("/getFilters");
  });
});
