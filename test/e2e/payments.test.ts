import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { ADMIN, bearer, createUser, reloadUser } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { allowRefusal, type E2E, loginThroughPage, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { sendReport, setRatesCents } from "../helpers/money";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? "").replace(/\s/g, " ");
const row = (login: string) => `[data-testid="worker-${login}"]`;

describe("earning, the popup and a payout, with JavaScript", () => {
  it("a manager's report raises his balance and the popup; the admin pays him out and sees it in the history", async () => {
    await setRatesCents(e.db, 750, 300);
    const manager = await createUser(e.db, { login: "earner", displayName: "Сергей" });
    const managerPage = await e.newPage();
    await managerPage.clock.install();
    await loginThroughPage(managerPage, manager);
    await waitForHydration(managerPage);
    expect(await text(managerPage, "[data-testid=balance]")).toBe("0,00 $");

    // He sends a report through the real lead flow (the API his lead panel uses), with a passport.
    const { base } = await createBase(e.db, { count: 2 });
    const s = await statusesByText(e.db);
    const filter = await createFilterRow(e.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [s["Перезвонить"].id] });
    const token = await e.tokenFor(manager);
    const lead = await e.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(bearer(token));
    expect(lead.status).toBe(200);
    const pressed = await e.request.put("/api/v1/status/update-and-get-lead").set(bearer(token)).send({
      statusText: "Заявка",
      contactId: lead.body.id,
      userId: manager.user.id,
      passport: "АВ123456",
      filterId: filter.id,
      clientInfo: "Имя: Пётр\nТелефон: +380501112233",
    });
    expect(pressed.status).toBe(200);
    await managerPage.clock.fastForward(30_000);
    const popup = managerPage.locator("[data-testid=balance-popup]");
    await parsed(popup);
    expect((await popup.textContent())?.replace(/\s/g, " ")).toContain("Вам начислено 7,50 $");
    expect(await text(managerPage, "[data-testid=balance]")).toBe("7,50 $");
    await managerPage.click("text=Отлично");
    await popup.waitFor({ state: "detached" });
    await expect.poll(async () => (await reloadUser(e.db, manager.user.id)).notify).toBe(false);

    const admin = await e.newPage();
    await loginThroughPage(admin, ADMIN);
    await admin.goto("/payments");
    await waitForHydration(admin);
    expect(await text(admin, "[data-testid=count-with-passport]")).toContain("1");
    expect(await text(admin, `${row("earner")} td:nth-child(4)`)).toBe("7,50 $");

    await admin.click(`${row("earner")} >> text=Выплата`);
    const dialog = admin.locator("[data-testid=pay-dialog]");
    await dialog.waitFor();
    expect(await dialog.locator("input[name=amount]").inputValue()).toBe("7.5");
    await dialog.locator("button[type=submit]").click();
    await admin.getByText("Выплата проведена").first().waitFor();
    await dialog.waitFor({ state: "detached" });
    // That worker's payout and history buttons are green and disabled for the rest of the visit.
    const paidButtons = admin.locator(`${row("earner")} [data-paid=true]`);
    expect(await paidButtons.count()).toBe(2);
    expect(await paidButtons.first().isDisabled()).toBe(true);
    expect(await paidButtons.first().getAttribute("class")).toContain("bg-green-600");
    expect(await text(admin, `${row("earner")} td:nth-child(4)`)).toBe("0,00 $");
    expect((await reloadUser(e.db, manager.user.id)).balanceCents).toBe(0);

    // A new visit: the history lists the payout, and a click shows the report it covered.
    await admin.goto("/payments");
    await waitForHydration(admin);
    await admin.click(`${row("earner")} >> text=История`);
    const history = admin.locator("[data-testid=history-dialog]");
    await history.waitFor();
    const payout = history.locator("[data-testid=payout-list] a").first();
    expect((await payout.textContent())?.replace(/\s/g, " ")).toContain("7,50 $");
    await payout.click();
    const details = history.locator("[data-testid=payout-details]");
    await parsed(details);
    const detailText = (await details.textContent())?.replace(/\s/g, " ") ?? "";
    expect(detailText).toContain("Имя: Пётр");
    expect(detailText).toContain("Телефон: +380501112233");
    expect(detailText).toContain("7,50 $");
    await details.locator("text=Закрыть").click();
    await details.waitFor({ state: "detached" });
    expect(admin.url()).toContain("/payments/history/");
  });

  it("warns in the browser before sending a zero payout or an empty addition", async () => {
    const worker = await createUser(e.db, { login: "warned", balanceCents: 1000 });
    const admin = await e.newPage();
    await loginThroughPage(admin, ADMIN);
    await admin.goto("/payments?q=warned");
    await waitForHydration(admin);
    await admin.click(`${row("warned")} >> text=Выплата`);
    await admin.fill("[data-testid=pay-dialog] input[name=amount]", "0");
    await admin.click("[data-testid=pay-dialog] button[type=submit]");
    await admin.getByText("Сумма выплаты не может быть 0").first().waitFor();
    await admin.keyboard.press("Escape");
    await admin.locator("[data-testid=pay-dialog]").waitFor({ state: "detached" });

    await admin.click(`${row("warned")} >> text=Добавить`);
    await admin.click("[data-testid=balance-dialog] button[type=submit]");
    await admin.getByText("Введите число в поле").first().waitFor();
    await admin.fill("[data-testid=balance-dialog] input[name=amount]", "2,5");
    await admin.click("[data-testid=balance-dialog] button[type=submit]");
    await admin.getByText("Баланс обновлен").first().waitFor();
    expect((await reloadUser(e.db, worker.user.id)).balanceCents).toBe(1250);

    // «Обнулить» asks in a dialog before it resets (issue 17); Esc leaves the balance alone.
    await admin.click(`${row("warned")} >> text=Обнулить`);
    await admin.locator("[data-testid=balance-dialog]").getByText("Отменить это нельзя.").waitFor();
    await admin.keyboard.press("Escape");
    await admin.locator("[data-testid=balance-dialog]").waitFor({ state: "detached" });
    expect((await reloadUser(e.db, worker.user.id)).balanceCents).toBe(1250);
    await admin.click(`${row("warned")} >> text=Обнулить`);
    await admin.click("[data-testid=balance-dialog] button[type=submit]");
    await admin.getByText("Баланс обнулен").first().waitFor();
    expect((await reloadUser(e.db, worker.user.id)).balanceCents).toBe(0);
  });
});

describe("/payments with JavaScript off", () => {
  it("pays out, adjusts and resets through plain forms, with the messages as banners", async () => {
    // The zero payout and the empty addition are refused with 400 answers, which the browser logs.
    allowRefusal(400);
    const worker = await createUser(e.db, { login: "nojs-worker" });
    await setRatesCents(e.db, 1000, 500);
    await sendReport(e.db, worker.user.id, { withPassport: false, text: JSON.stringify("Имя: Ольга\nГород: Киев") });
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, ADMIN);
    await page.goto("/payments?q=nojs");

    await page.click(`${row("nojs-worker")} >> text=Выплата`);
    await page.fill("[data-testid=pay-dialog] input[name=amount]", "0");
    await page.click("[data-testid=pay-dialog] button[type=submit]");
    await page.getByText("Сумма выплаты не может быть 0").waitFor();
    await page.fill("[data-testid=pay-dialog] input[name=amount]", "2.50");
    await page.click("[data-testid=pay-dialog] button[type=submit]");
    await page.getByText("Выплата проведена").waitFor();
    expect(new URL(page.url()).search).toBe(`?q=nojs&paid=${worker.user.id}`);
    await expect.poll(() => page.locator(`${row("nojs-worker")} [data-paid=true]`).count()).toBe(2);
    await expect.poll(() => text(page, `${row("nojs-worker")} td:nth-child(4)`)).toBe("2,50 $");

    await page.click(`${row("nojs-worker")} >> text=Снять`);
    await page.click("[data-testid=balance-dialog] button[type=submit]");
    await page.getByText("Введите число в поле").waitFor();
    await page.fill("[data-testid=balance-dialog] input[name=amount]", "1");
    await page.click("[data-testid=balance-dialog] button[type=submit]");
    await page.getByText("Баланс обновлен").waitFor();
    await expect.poll(() => text(page, `${row("nojs-worker")} td:nth-child(4)`)).toBe("1,50 $");
    // «Обнулить» asks first (issue 17): the balance stays until the admin confirms.
    await page.click(`${row("nojs-worker")} >> text=Обнулить`);
    const reset = page.locator("[data-testid=balance-dialog]");
    // Without JavaScript the page is parsed as it streams in: poll until the dialog's whole text is there.
    await expect
      .poll(async () => (await reset.textContent())?.replace(/\s/g, " "))
      .toContain("Баланс nojs-worker (1,50 $) станет 0,00 $. Отменить это нельзя.");
    expect((await reloadUser(e.db, worker.user.id)).balanceCents).toBe(150);
    await reset.getByRole("link", { name: "Отмена" }).click();
    await reset.waitFor({ state: "detached" });
    expect(await text(page, `${row("nojs-worker")} td:nth-child(4)`)).toBe("1,50 $");
    await page.click(`${row("nojs-worker")} >> text=Обнулить`);
    await page.click("[data-testid=balance-dialog] button[type=submit]");
    await page.getByText("Баланс обнулен").waitFor();
    await expect.poll(() => text(page, `${row("nojs-worker")} td:nth-child(4)`)).toBe("0,00 $");

    await page.goto(`/payments/history/${worker.user.id}?q=nojs`);
    await page.locator("[data-testid=payout-list] a").first().click();
    const readDetails = async () => (await page.locator("[data-testid=payout-details]").textContent())?.replace(/\s/g, " ") ?? "";
    await expect.poll(readDetails).toContain("Осталось на балансе после выплаты");
    const details = await readDetails();
    // JSON-encoded text is shown as its lines; the remainder left on the balance closes the sum.
    expect(details).toContain("Имя: Ольга");
    expect(details).not.toContain('"');
    expect(details).toContain("Осталось на балансе после выплаты");

    // Cancelling the payout, after a confirmation, puts its 2,50 $ back on the balance.
    await page.click("text=Отменить выплату");
    await page.click("text=Да, отменить");
    await page.getByText("Выплата отменена").waitFor();
    expect(new URL(page.url()).pathname).toBe("/payments");
    await expect.poll(() => text(page, `${row("nojs-worker")} td:nth-child(4)`)).toBe("2,50 $");
    await page.goto(`/payments/history/${worker.user.id}`);
    await page.getByText("Нет истории выплат").waitFor();

    const empty = await createUser(e.db, { login: "nojs-empty" });
    await page.goto(`/payments/history/${empty.user.id}`);
    await page.getByText("Нет истории выплат").waitFor();
  });

  it("searches by login, sorts by a column click and pages by 5", async () => {
    for (const [login, cents] of [
      ["pg-a", 100],
      ["pg-b", 700],
      ["pg-c", 300],
      ["pg-d", 500],
      ["pg-e", 200],
      ["pg-f", 600],
      ["pg-g", 400],
    ] as const) {
      await createUser(e.db, { login, balanceCents: cents });
    }
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, ADMIN);
    await page.goto("/payments");
    // Each step is a plain navigation (JavaScript is off): wait for the new address before reading the table.
    const step = async (run: () => Promise<void>, search: (s: URLSearchParams) => boolean) => {
      await Promise.all([page.waitForURL((url) => search(url.searchParams)), run()]);
    };
    const logins = () => page.locator("[data-testid=workers] tbody td:first-child").allTextContents();
    await page.fill("input[name=q]", "pg-");
    await step(
      () => page.click("text=Найти"),
      (p) => p.get("q") === "pg-",
    );
    expect(await logins()).toEqual(["pg-a", "pg-b", "pg-c", "pg-d", "pg-e"]);
    await step(
      () => page.click("nav[aria-label=Страницы] >> text=2"),
      (p) => p.get("page") === "2",
    );
    expect(await logins()).toEqual(["pg-f", "pg-g"]);

    await step(
      () => page.click("th >> text=Заработано"),
      (p) => p.get("sort") === "totalEarned" && !p.has("dir"),
    );
    expect(await logins()).toEqual(["pg-a", "pg-e", "pg-c", "pg-g", "pg-d"]);
    await step(
      () => page.click("th >> text=Заработано"),
      (p) => p.get("dir") === "desc",
    );
    expect(await logins()).toEqual(["pg-b", "pg-f", "pg-d", "pg-g", "pg-c"]);
    await step(
      () => page.click("th >> text=Логин"),
      (p) => !p.has("sort") && !p.has("dir"),
    );
    expect(await logins()).toEqual(["pg-a", "pg-b", "pg-c", "pg-d", "pg-e"]);

    await page.selectOption("select[name=size]", "10");
    await step(
      () => page.click("text=Найти"),
      (p) => p.get("size") === "10",
    );
    expect(await logins()).toHaveLength(7);
  });

  it("saves the earning rates", async () => {
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, ADMIN);
    await page.goto("/payments");
    await page.fill("input[name=withPassport]", "12,50");
    await page.fill("input[name=withoutPassport]", "6");
    await page.click("text=Сохранить");
    await page.getByText("Ставки сохранены").waitFor();
    expect(await page.locator("input[name=withPassport]").inputValue()).toBe("12.5");
  });

  it("is closed to managers", async () => {
    // The manager gets the 403 page, which the browser logs.
    allowRefusal(403);
    const manager = await createUser(e.db, { login: "not-admin" });
    // With a topic chosen, so the layout does not send him to /getFilters first.
    const filter = await createFilterRow(e.db, { managerIds: [manager.user.id], databaseIds: [], statusIds: [] });
    await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, manager);
    const response = await page.goto("/payments");
    expect(response?.status()).toBe(403);
    const post = await page.request.post("/payments", { form: { intent: "def", userId: String(manager.user.id) }, headers: { Origin: e.baseUrl } });
    expect(post.status()).toBe(403);
  });
});
