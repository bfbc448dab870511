import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { filters, templates } from "../../db/schema";
import { ADMIN, createUser } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { createBase } from "../helpers/leads";
import { setTheme } from "../helpers/screens";

let e: E2E;
let managerLabel: string;
beforeAll(async () => {
  e = await startE2E();
  const manager = await createUser(e.db, { login: "topic-manager", displayName: "Светлана" });
  managerLabel = `Светлана (${manager.login})`;
  await createBase(e.db, { name: "Одесса март", count: 2 });
  await createBase(e.db, { name: "Харьков", count: 2 });
  await e.db.insert(templates).values({ name: "Кредитная анкета", templateFields: JSON.stringify([{ label: "Сумма", type: "text" }]) });
});
afterAll(async () => {
  await e?.close();
});

/** An admin on /loadedbases (JavaScript on) with «Добавить тематику»'s dialog open. */
async function newTopicDialog() {
  const page = await e.newPage();
  await loginThroughPage(page, ADMIN);
  await page.goto("/loadedbases");
  await waitForHydration(page);
  await page.click("[data-testid=add-filter]");
  const dialog = page.locator("[role=dialog][data-testid=filter-dialog]");
  await dialog.waitFor();
  return { page, dialog };
}

describe("an admin builds a filter from /loadedbases", () => {
  it("with JavaScript: the modal, the SPEC messages, Фильтр сохранен, and the activation toggle", async () => {
    const { page, dialog } = await newTopicDialog();

    await dialog.getByRole("button", { name: "Сохранить" }).click();
    // Checked in the browser by the action's own schema (decision 063): each message under its field, nothing sent.
    await dialog.locator("[data-field-error]", { hasText: "Введите имя фильтра" }).waitFor();
    expect(await dialog.getByLabel("Название").getAttribute("aria-invalid")).toBe("true");
    await dialog.getByLabel("Название").fill("Кредиты Одесса");
    await dialog.getByRole("button", { name: "Сохранить" }).click();
    await page.getByText("Виберите 1 менеджера").first().waitFor();

    await dialog.getByLabel(managerLabel).check();
    await dialog.locator("[data-testid=choice-databases]").getByRole("button", { name: "Выбрать все" }).click();
    await expect.poll(() => dialog.locator("[data-testid=choice-databases] input:checked").count()).toBe(2);
    await dialog.getByRole("button", { name: "Сохранить" }).click();
    await page.getByText("Виберите 1 статус").first().waitFor();
    await dialog.getByRole("checkbox", { name: "Перезвонить", exact: true }).check();
    await dialog.getByLabel("Шаблон").selectOption({ label: "Кредитная анкета" });
    await dialog.getByRole("button", { name: "Сохранить" }).click();

    await page.getByText("Фильтр сохранен").first().waitFor();
    await page.waitForURL((url) => url.pathname === "/loadedbases");
    const card = page.locator("[data-testid=filter-card]", { hasText: "Кредиты Одесса" });
    await parsed(card);
    expect(await card.textContent()).toContain("Одесса март, Харьков");
    expect(await card.textContent()).toContain("Кредитная анкета");
    expect(await card.getByRole("switch").textContent()).toBe("Активирован");

    await card.getByRole("switch").click();
    await card.getByRole("switch", { name: "Деактивирован" }).waitFor();
    await page.waitForFunction(() => !document.querySelector("[data-testid=filter-card] form[data-state=loading]"));
    await expect.poll(async () => (await e.db.select().from(filters).where(eq(filters.name, "Кредиты Одесса")))[0]?.isActive).toBe(false);
    await page.reload();
    expect(await page.locator("[data-testid=filter-card]", { hasText: "Кредиты Одесса" }).getByRole("switch").textContent()).toBe("Деактивирован");
  });

  it("without JavaScript: the form is a page section; Выбрать все, save, edit and toggle are plain posts", async () => {
    // The incomplete forms are sent back with their message as 400 answers, which the browser logs.
    allowRefusal(400);
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, ADMIN);
    await page.goto("/loadedbases/filters/new");
    const form = page.locator("[data-testid=filter-dialog]");
    await form.getByLabel("Название").fill("Без скриптов");
    await form.getByRole("button", { name: "Сохранить" }).click();
    // Without JavaScript the answer is parsed as it streams in: the form is posted once it is whole.
    await parsed(page.getByText("Виберите 1 менеджера").first());
    // The typed name survives the round trip.
    expect(await page.locator("[data-testid=filter-dialog]").getByLabel("Название").inputValue()).toBe("Без скриптов");

    // Each Выбрать все is a post answered by the whole form again: the next click waits until the new page is all
    // parsed, or on a busy machine it posted the half that had streamed in so far (and the save was refused).
    for (const list of ["managers", "databases"]) {
      const answered = page.waitForEvent("domcontentloaded");
      await page.locator(`[data-testid=choice-${list}]`).getByRole("button", { name: "Выбрать все" }).click();
      await answered;
    }
    await page.locator("[data-testid=filter-dialog]").getByRole("checkbox", { name: "Отказ", exact: true }).check();
    await page.locator("[data-testid=filter-dialog]").getByRole("button", { name: "Сохранить" }).click();
    await page.waitForURL((url) => url.pathname === "/loadedbases");
    await page.getByText("Фильтр сохранен").first().waitFor();
    const card = page.locator("[data-testid=filter-card]", { hasText: "Без скриптов" });
    expect(await card.textContent()).toContain("Светлана");

    await card.getByRole("link", { name: "Изменить тематику Без скриптов" }).click();
    await page.locator("[data-testid=filter-dialog]").getByLabel("Название").fill("Без скриптов 2");
    await page.locator("[data-testid=choice-databases]").getByRole("button", { name: "Очистить" }).click();
    await page.locator("[data-testid=filter-dialog]").getByRole("button", { name: "Сохранить" }).click();
    // Without JavaScript the answer is parsed as it streams in: the form is posted once it is whole.
    await parsed(page.getByText("Виберите 1 базу данных").first());
    await page.locator("[data-testid=filter-dialog]").getByLabel("Харьков").check();
    await page.locator("[data-testid=filter-dialog]").getByRole("button", { name: "Сохранить" }).click();
    await page.waitForURL((url) => url.pathname === "/loadedbases");
    const renamed = page.locator("[data-testid=filter-card]", { hasText: "Без скриптов 2" });
    expect(await renamed.textContent()).toContain("Базы: Харьков");

    await renamed.getByRole("switch").click();
    await page.waitForURL((url) => url.pathname === "/loadedbases");
    expect(await page.locator("[data-testid=filter-card]", { hasText: "Без скриптов 2" }).getByRole("switch").textContent()).toBe("Деактивирован");
  });

  it("keeps the filter pages from a manager (403), and sends him to /getFilters from /leadpanel", async () => {
    // The manager gets the 403 page, which the browser logs.
    allowRefusal(403);
    const manager = await createUser(e.db, { login: "nosy-manager" });
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, manager);
    expect(new URL(page.url()).pathname).toBe("/getFilters");
    await page.getByText("Выберите тематику:").waitFor();
    const response = await page.goto("/loadedbases/filters/new");
    expect(response?.status()).toBe(403);
    await page.getByText("Доступ запрещён").waitFor();
  });
});

describe.each([true, false])("deleting a topic with JavaScript %s", (javaScript) => {
  it("asks first (a dialog, or a section of the page), Отмена keeps it, Удалить deletes it", async () => {
    const name = `Удаляемая ${javaScript}`;
    const [topic] = await e.db.insert(filters).values({ name }).returning();
    const stored = async () => (await e.db.select().from(filters).where(eq(filters.id, topic.id))).length;
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto(`/loadedbases/filters/${topic.id}`);
    if (javaScript) await waitForHydration(page);

    await page.getByRole("link", { name: "Удалить тематику" }).click();
    const question = page.locator("[role=alertdialog][data-testid=delete-topic]");
    await (await parsed(question)).getByText(`Тематика «${name}» будет удалена`).waitFor();
    expect(await question.getByRole("heading", { name: "Удалить тематику?" }).count()).toBe(1);
    await question.getByRole("link", { name: "Отмена" }).click();
    await question.waitFor({ state: "detached" });
    await parsed(page.locator("[data-testid=filter-dialog]"));
    expect(await stored()).toBe(1);

    await page.getByRole("link", { name: "Удалить тематику" }).click();
    await parsed(question);
    await question.getByRole("button", { name: "Удалить" }).click();
    await page.getByText("Тематика удалена").first().waitFor();
    await page.waitForURL((url) => url.pathname === "/loadedbases");
    expect(await stored()).toBe(0);
    expect(await page.locator("[data-testid=filter-card]", { hasText: name }).count()).toBe(0);
  });
});

describe("contact limits in the topic form (issue 43)", () => {
  it("with JavaScript: 230-ФЗ is one choice and the card says so; an own limit of 0 is stopped in the browser", async () => {
    const { page, dialog } = await newTopicDialog();
    await dialog.getByLabel("Название").fill("Взыскание");
    await dialog.getByLabel(managerLabel).check();
    await dialog.getByLabel("Харьков").check();
    await dialog.getByRole("checkbox", { name: "Перезвонить", exact: true }).check();
    const limits = dialog.locator("[data-testid=contact-limits]");
    expect(await limits.getByLabel("В день, не больше").isDisabled()).toBe(true);
    await limits.getByRole("radio", { name: "Свои ограничения:" }).check();
    expect(await limits.getByLabel("В день, не больше").isDisabled()).toBe(false);
    await limits.getByLabel("В день, не больше").fill("0");
    await dialog.getByRole("button", { name: "Сохранить" }).click();
    // The browser checks it with core's own schema: the message under the field, nothing sent.
    await limits.locator("[data-field-error]", { hasText: "Звонков клиенту в день: целое число от 1 до 1000" }).waitFor();
    expect(await limits.getByLabel("В день, не больше").getAttribute("aria-invalid")).toBe("true");

    await limits.getByRole("radio", { name: /По закону 230-ФЗ/ }).check();
    // 230-FZ's numbers are the law's: the own ones cannot be typed meanwhile.
    expect(await limits.getByLabel("В день, не больше").isDisabled()).toBe(true);
    await dialog.getByRole("button", { name: "Сохранить" }).click();
    await page.getByText("Фильтр сохранен").first().waitFor();
    const card = page.locator("[data-testid=filter-card]", { hasText: "Взыскание" });
    await parsed(card);
    expect(await card.textContent()).toContain("по 230-ФЗ: 1 в день, 2 в неделю, 8 в месяц (разговоры)");
    const [saved] = await e.db.select().from(filters).where(eq(filters.name, "Взыскание"));
    expect(saved).toMatchObject({ contactLimitDay: 1, contactLimitWeek: 2, contactLimitMonth: 8, contactLimitCounts: "connected" });
  });
});

describe("weekend hours and days off in the topic form (issue 43)", () => {
  it("with JavaScript: a wrong date is stopped in the browser at its field; the weekend window and the days off are saved", async () => {
    const { page, dialog } = await newTopicDialog();
    await dialog.getByLabel("Название").fill("Праздничная");
    await dialog.getByLabel(managerLabel).check();
    await dialog.getByLabel("Харьков").check();
    await dialog.getByRole("checkbox", { name: "Перезвонить", exact: true }).check();
    const weekend = dialog.locator("[data-testid=weekend-hours]");
    await weekend.getByLabel("С", { exact: true }).fill("10:00");
    await dialog.getByLabel("Дополнительные выходные дни (даты через запятую)").fill("31.12.2026, 30.02.2027");
    await dialog.getByRole("button", { name: "Сохранить" }).click();
    // Core's rules in the browser: each message under its field, nothing sent (the window's own check comes once
    // its fields are right).
    await dialog.locator("[data-field-error]", { hasText: "Неверная дата «30.02.2027»" }).waitFor();
    expect(await dialog.getByLabel("Дополнительные выходные дни (даты через запятую)").getAttribute("aria-invalid")).toBe("true");
    await dialog.getByLabel("Дополнительные выходные дни (даты через запятую)").fill("31.12.2026, 08.01.2027");
    await dialog.getByRole("button", { name: "Сохранить" }).click();
    await weekend
      .locator("[data-field-error]", { hasText: "Время звонков в выходные: укажите и начало, и конец, или оставьте оба поля пустыми (как в будни)" })
      .waitFor();
    expect(await e.db.select().from(filters).where(eq(filters.name, "Праздничная"))).toEqual([]);

    await weekend.getByLabel("До", { exact: true }).fill("18:00");
    await dialog.getByRole("button", { name: "Сохранить" }).click();
    await page.getByText("Фильтр сохранен").first().waitFor();
    const [saved] = await e.db.select().from(filters).where(eq(filters.name, "Праздничная"));
    expect(saved).toMatchObject({ weekendFrom: "10:00:00", weekendUntil: "18:00:00" });
    expect(saved.daysOff).toHaveLength(2);
    const card = page.locator("[data-testid=filter-card]", { hasText: "Праздничная" });
    await parsed(card);
    expect(await card.textContent()).toContain("в выходные и праздники 10:00–18:00; доп. выходных: 2");
  });
});

/** Screenshots for a look (SCREENS_DIR=/tmp/shots npx vitest run test/e2e/filters.test.ts -t screenshots). */
describe.runIf(process.env.SCREENS_DIR)("screenshots", () => {
  it("the topic form's contact limits and the card, at 390 and 1440, light and dark", async () => {
    const shots = process.env.SCREENS_DIR!;
    const [topic] = await e.db.select().from(filters).where(eq(filters.name, "Взыскание"));
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    for (const theme of ["light", "dark"] as const) {
      await setTheme(page.context(), e.baseUrl, theme);
      for (const width of [390, 1440]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.goto(`/loadedbases/filters/${topic.id}`);
        await waitForHydration(page);
        const limits = page.locator("[data-testid=contact-limits]");
        await limits.scrollIntoViewIfNeeded();
        await limits.screenshot({ path: `${shots}/topic-limits-${width}-${theme}.png` });
        const hours = page.locator("[data-testid=calling-hours]");
        await hours.scrollIntoViewIfNeeded();
        await hours.screenshot({ path: `${shots}/topic-hours-${width}-${theme}.png` });
        await page.goto("/loadedbases");
        await page
          .locator("[data-testid=filter-card]", { hasText: "Взыскание" })
          .screenshot({ path: `${shots}/topic-card-limits-${width}-${theme}.png` });
      }
    }
  }, 120_000);

  it("the topic form and the cards, at 390 and 1440, light and dark, with and without JavaScript", async () => {
    const shots = process.env.SCREENS_DIR!;
    for (const javaScript of [true, false]) {
      const page = await e.newPage({ javaScript });
      await loginThroughPage(page, ADMIN);
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page.context(), e.baseUrl, theme);
        for (const width of [390, 1440]) {
          await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
          await page.goto("/loadedbases/filters/new");
          if (javaScript) await waitForHydration(page);
          const statuses = page.locator("[data-testid=choice-statuses]");
          await statuses.getByRole("button", { name: "Выбрать все" }).click();
          if (!javaScript) await page.waitForLoadState();
          await page.locator("[data-testid=choice-statuses]").scrollIntoViewIfNeeded();
          await page.screenshot({ path: `${shots}/topic-form-${width}-${theme}-js-${javaScript}.png` });
          await page.locator("[data-testid=retry-rules]").scrollIntoViewIfNeeded();
          await page.screenshot({ path: `${shots}/topic-retry-${width}-${theme}-js-${javaScript}.png` });
          await page.goto("/loadedbases");
          await page.locator("[data-testid=filter-card]").first().scrollIntoViewIfNeeded();
          await page.screenshot({ path: `${shots}/topic-cards-${width}-${theme}-js-${javaScript}.png` });
        }
      }
    }
  }, 180_000);
});

describe("a topic's trunk number for calls in (issue 42), with and without JavaScript", () => {
  for (const javaScript of [true, false]) {
    it(`JavaScript ${javaScript ? "on" : "off"}: a number that is none refused under its field in Russian, a real one saved and shown with its plus`, async () => {
      const [topic] = await e.db
        .insert(filters)
        .values({ name: `Линия ${javaScript ? "с JS" : "без JS"}` })
        .returning();
      const page = await e.newPage({ javaScript });
      await loginThroughPage(page, ADMIN);
      const form = page.locator("[data-testid=filter-form]");
      // One field, two uses (decision 083): the number calls in reach and the topic's calls out show.
      const number = form.getByLabel("Номер линии: входящие и номер, который видят клиенты");
      const message = form.locator("[data-testid=filter-inbound] [data-field-error]");
      /** The topic's form, its lists ticked (SPEC asks for them first), the number typed and Сохранить pressed. */
      const send = async (typed: string) => {
        await page.goto(`/loadedbases/filters/${topic.id}`);
        if (javaScript) await waitForHydration(page);
        for (const name of ["databases", "managers", "statuses"]) await form.locator(`input[name=${name}]`).first().check();
        await number.fill(typed);
        await form.getByRole("button", { name: "Сохранить" }).click();
      };
      // The region's check is the server's (PHONE_REGION): with JavaScript too the form is sent and answered 400.
      allowRefusal(400);
      await page.goto(`/loadedbases/filters/${topic.id}`);
      const underIt = form.locator("#filter-inbound-empty");
      expect(await underIt.textContent()).toBe("Пусто — общий номер линии (TRUNK_CALLER_ID)");
      expect((await number.getAttribute("aria-describedby"))!.split(" ")).toContain("filter-inbound-empty");
      await send("12345");
      await expect
        .poll(() => message.textContent())
        .toMatch(/^Номер линии \(входящие и номер, который видят клиенты\): «12345» — неполный или несуществующий номер телефона/);
      expect(await number.getAttribute("aria-invalid")).toBe("true");
      expect((await e.db.select().from(filters).where(eq(filters.id, topic.id)))[0].inboundNumber).toBe("");
      if (process.env.SCREENS_DIR) {
        for (const theme of ["light", "dark"] as const) {
          await setTheme(page.context(), e.baseUrl, theme);
          for (const width of [390, 1440]) {
            await page.setViewportSize({ width, height: 900 });
            await send("12345");
            await message.waitFor();
            await page.locator("[data-testid=filter-inbound]").scrollIntoViewIfNeeded();
            await page.screenshot({ path: `${process.env.SCREENS_DIR}/topic-inbound-${width}-${theme}-js-${javaScript}.png` });
          }
        }
      }
      await send("044 123 00 42");
      await page.waitForURL(/\/loadedbases$/);
      expect((await e.db.select().from(filters).where(eq(filters.id, topic.id)))[0].inboundNumber).toBe("380441230042");
      await page.goto(`/loadedbases/filters/${topic.id}`);
      expect(await number.inputValue()).toBe("+380441230042");
      // Freed for the other run of this test, which saves the same number.
      await e.db.update(filters).set({ isActive: false }).where(eq(filters.id, topic.id));
    });
  }
});
