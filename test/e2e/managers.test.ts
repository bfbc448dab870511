import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, createUser, reloadUser } from "../helpers/app";
import { allowRefusal, loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { users } from "../../db/schema";
import { eq } from "drizzle-orm";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

async function adminOnManagers(javaScript: boolean): Promise<Page> {
  const page = await e.newPage({ javaScript });
  await loginThroughPage(page, ADMIN);
  await page.goto("/managers");
  if (javaScript) await waitForHydration(page);
  return page;
}

const row = (page: Page, login: string) => page.locator(`[data-testid="manager-row-${login}"]`);
const byLogin = async (login: string) => (await e.db.select().from(users).where(eq(users.login, login)))[0];

describe("/managers with JavaScript on", () => {
  it("creates a manager with generated password, access key and SIP, who can then log in", async () => {
    const page = await adminOnManagers(true);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));

    // The access key is generated in the browser as soon as the page runs.
    const accessKey = await page.locator("#add-accessKey").inputValue();
    expect(accessKey).toMatch(/^[A-Za-z0-9]{16}$/);

    // SIP generation needs the login first.
    await page.click("[data-testid=generate-sip]");
    await page.getByText("Заполните логин, для генерации SIPa").first().waitFor();

    await page.fill("#add-login", "olga");
    await page.fill("#add-displayName", "Ольга");
    await page.click("[data-testid=generate-password]");
    const password = await page.locator("#add-password").inputValue();
    expect(password).toHaveLength(16);
    await page.selectOption("#add-sipPrefix", "5000");
    await page.click("[data-testid=generate-sip]");
    await page.waitForFunction(() => (document.querySelector("#add-sipLogin") as HTMLInputElement).value !== "");
    expect(await page.locator("#add-sipLogin").inputValue()).toBe("5001");
    expect(await page.locator("#add-sipPassword").inputValue()).toMatch(/^[A-Za-z0-9]{12}$/);

    await page.click("[data-testid=create-manager]");
    await page.getByText("Менеджер olga создан").first().waitFor();
    await row(page, "olga").waitFor();
    expect(await row(page, "olga").locator("[data-testid=cell-password]").textContent()).toBe(`${password.slice(0, 5)}•••`);
    expect(await row(page, "olga").locator("[data-testid=access-key]").textContent()).toBe(accessKey);
    // No full reload, and the form is empty again with a fresh access key.
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(await page.locator("#add-login").inputValue()).toBe("");
    expect(await page.locator("#add-accessKey").inputValue()).not.toBe(accessKey);

    const olga = await e.newPage();
    await loginThroughPage(olga, { login: "olga", password, accessKey });
    expect(new URL(olga.url()).pathname).not.toBe("/auth");
    expect((await byLogin("olga")).sipLogin).toBe("5001");
  });

  it("shows Пожалуйста, заполните все поля and sends nothing when a field is missing", async () => {
    const page = await adminOnManagers(true);
    const before = (await e.db.select().from(users)).length;
    await page.fill("#add-login", "halfdone");
    await page.click("[data-testid=create-manager]");
    await page.getByText("Пожалуйста, заполните все поля").first().waitFor();
    expect((await e.db.select().from(users)).length).toBe(before);
  });

  it("shows the server's message for a taken login", async () => {
    // The taken login is refused with a 409, which the browser logs.
    allowRefusal(409);
    const page = await adminOnManagers(true);
    await page.fill("#add-login", "admin");
    await page.fill("#add-password", "whatever-1");
    await page.fill("#add-displayName", "Двойник");
    await page.click("[data-testid=create-manager]");
    await page.getByText("Такой логин уже занят").first().waitFor();
  });

  it("edits a cell in place: click, type, the check icon saves", async () => {
    await createUser(e.db, { login: "cell-edit", displayName: "Старое имя" });
    const page = await adminOnManagers(true);
    await row(page, "cell-edit").locator("[data-testid=cell-displayName] button").click();
    const input = row(page, "cell-edit").locator("[data-testid=cell-displayName] input[name=value]");
    await input.fill("Новое имя");
    await row(page, "cell-edit").locator("[data-testid=cell-displayName] button[aria-label=Сохранить]").click();
    await page.getByText("Изменения сохранены").first().waitFor();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="manager-row-cell-edit"] [data-testid=cell-displayName]')?.textContent === "Новое имя",
    );
    expect((await byLogin("cell-edit")).displayName).toBe("Новое имя");
  });

  // Issue 41: at 390 px the row «Изменить» opens was off screen (the page went back to its top).
  it("shows the row being edited at 390 px", async () => {
    for (let i = 0; i < 4; i++) await createUser(e.db, { login: `far-row-${i}` });
    const page = await adminOnManagers(true);
    await page.setViewportSize({ width: 390, height: 844 });
    const last = page.locator("[data-testid^=manager-row-]").last();
    const login = (await last.getAttribute("data-testid"))!.replace("manager-row-", "");
    await last.getByRole("link", { name: `Изменить ${login}` }).click();
    const field = row(page, login).locator("input[name=telegram]");
    await field.waitFor();
    await expect.poll(async () => (await field.boundingBox())!.y).toBeGreaterThan(56);
    const at = (await field.boundingBox())!;
    expect(at.y + at.height).toBeLessThanOrEqual(844);
    if (process.env.SCREENS_DIR) await page.screenshot({ path: `${process.env.SCREENS_DIR}/managers-edit-390-light-js-true.png` });
  });

  it("toggles the admin flag only after the confirmation dialog", async () => {
    const m = await createUser(e.db, { login: "to-promote" });
    const page = await adminOnManagers(true);
    const toggle = row(page, "to-promote").locator("[data-testid=admin-toggle]");
    await toggle.click();
    await page.locator("[data-testid=confirm-dialog]").waitFor();
    await page.click("[data-testid=confirm-dialog] >> text=Отмена");
    await page.locator("[data-testid=confirm-dialog]").waitFor({ state: "detached" });
    expect((await reloadUser(e.db, m.user.id)).isAdmin).toBe(false);

    await toggle.click();
    await page.click("[data-testid=confirm-dialog] [data-testid=confirm-yes]");
    await page.getByText("to-promote теперь администратор").first().waitFor();
    await page.waitForFunction(
      () => document.querySelector('[data-testid="manager-row-to-promote"] [data-testid=admin-toggle]')?.getAttribute("aria-checked") === "true",
    );
    expect((await reloadUser(e.db, m.user.id)).isAdmin).toBe(true);
  });

  it("changing your own admin flag updates your session user at once", async () => {
    const second = await createUser(e.db, { login: "self-admin", isAdmin: true, displayName: "Второй админ" });
    const page = await e.newPage();
    await loginThroughPage(page, second);
    await page.goto("/managers");
    await waitForHydration(page);
    await row(page, "self-admin").locator("[data-testid=admin-toggle]").click();
    await page.click("[data-testid=confirm-dialog] [data-testid=confirm-yes]");
    // Off the admin page: to /leadpanel, or on to /getFilters for a manager with no topic yet.
    await page.waitForURL((url) => url.pathname === "/leadpanel" || url.pathname === "/getFilters");
    await page.getByText("self-admin больше не администратор").first().waitFor();
    expect(await page.locator("[data-testid=sidebar]").textContent()).not.toContain("УПРАВЛЕНИЕ");
  });

  it("deletes a manager after confirmation", async () => {
    await createUser(e.db, { login: "to-delete" });
    const page = await adminOnManagers(true);
    await row(page, "to-delete").locator("[data-testid=delete-manager]").click();
    await page.click("[data-testid=confirm-dialog] [data-testid=confirm-yes]");
    await page.getByText("Менеджер удалён").first().waitFor();
    await row(page, "to-delete").waitFor({ state: "detached" });
    expect(await byLogin("to-delete")).toBeUndefined();
  });

  it("pages the table by 5, 10 and 50", async () => {
    for (let i = 0; i < 6; i++) await createUser(e.db, { login: `pager-${i}` });
    const total = (await e.db.select().from(users)).length;
    const page = await adminOnManagers(true);
    const rows = page.locator("[data-testid=managers-table] tbody tr");
    await expect.poll(() => rows.count()).toBe(Math.min(10, total));
    await page.selectOption("[data-testid=page-size]", "5");
    await page.waitForURL("**/managers?size=5");
    await expect.poll(() => rows.count()).toBe(5);
    await page.selectOption("[data-testid=page-size]", "50");
    await page.waitForURL("**/managers?size=50");
    await expect.poll(() => rows.count()).toBe(total);
    expect(await page.locator("[data-testid=page-size] option").allTextContents()).toEqual(["5", "10", "50"]);
  });
});

describe("/managers with JavaScript off", () => {
  it("pages the table with the same pager: the size through «Показать», then the page links", async () => {
    for (let i = 0; i < 6; i++) await createUser(e.db, { login: `nojs-pager-${i}` });
    const total = (await e.db.select().from(users)).length;
    const page = await adminOnManagers(false);
    const rows = page.locator("[data-testid=managers-table] tbody tr");
    await page.selectOption("[data-testid=page-size]", "5");
    await Promise.all([page.waitForURL("**/managers?size=5"), page.getByRole("button", { name: "Показать" }).click()]);
    expect(await rows.count()).toBe(5);
    const pager = page.getByTestId("pager");
    expect(await pager.locator("[aria-current=page]").textContent()).toBe("1");
    await Promise.all([page.waitForURL("**/managers?size=5&page=2"), pager.getByRole("link", { name: "Следующая страница" }).click()]);
    expect(await page.getByTestId("pager").locator("[aria-current=page]").textContent()).toBe("2");
    expect(await rows.count()).toBe(Math.min(5, total - 5));
    expect(await page.getByTestId("pager-bar").textContent()).toContain(`Всего: ${total}`);
  });

  it("creates a manager: the server generates the password and the access key", async () => {
    const page = await adminOnManagers(false);
    await page.fill("#add-login", "nojs");
    await page.fill("#add-displayName", "Без скриптов");
    await page.click("[data-testid=generate-password]");
    const password = await page.locator("#add-password").inputValue();
    expect(password).toHaveLength(16);
    expect(await page.locator("#add-login").inputValue()).toBe("nojs");
    await page.click("[data-testid=generate-sip]");
    expect(await page.locator("#add-sipLogin").inputValue()).toBe("9001");
    expect(await page.locator("#add-password").inputValue()).toBe(password);

    await page.click("[data-testid=create-manager]");
    await page.getByText("Менеджер nojs создан").first().waitFor();
    await row(page, "nojs").waitFor();
    const created = await byLogin("nojs");
    expect(created.accessKey).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(created.sipLogin).toBe("9001");
    expect(created.passwordHint).toBe(password.slice(0, 5));
  });

  it("shows the messages: missing fields, SIP without a login, a taken login", async () => {
    // The refused forms are 400 and 409 answers, which the browser logs.
    allowRefusal(400, 409);
    const page = await adminOnManagers(false);
    await page.click("[data-testid=create-manager]");
    await page.getByText("Пожалуйста, заполните все поля").first().waitFor();
    await page.click("[data-testid=generate-sip]");
    await page.getByText("Заполните логин, для генерации SIPa").first().waitFor();
    await page.fill("#add-login", "admin");
    await page.fill("#add-password", "pw");
    await page.fill("#add-displayName", "Копия");
    await page.click("[data-testid=create-manager]");
    await page.getByText("Такой логин уже занят").first().waitFor();
    expect(await page.locator("#add-displayName").inputValue()).toBe("Копия");
  });

  it("edits a row with the edit-row form and its check icon", async () => {
    await createUser(e.db, { login: "row-edit", telegram: "@old" });
    const page = await adminOnManagers(false);
    await row(page, "row-edit").getByRole("link", { name: "Изменить row-edit" }).click();
    await row(page, "row-edit").locator("input[name=telegram]").fill("@new");
    await row(page, "row-edit").locator("button[aria-label=Сохранить]").click();
    await page.getByText("Изменения сохранены").first().waitFor();
    expect((await byLogin("row-edit")).telegram).toBe("@new");
    expect(await row(page, "row-edit").locator("[data-testid=cell-telegram]").textContent()).toBe("@new");
  });

  it("toggles the admin flag and deletes through confirmation forms", async () => {
    const m = await createUser(e.db, { login: "nojs-flag" });
    const page = await adminOnManagers(false);
    await row(page, "nojs-flag").locator("[data-testid=admin-toggle]").click();
    await page.getByText("Сделать nojs-flag администратором?").waitFor();
    await page.click("role=alertdialog >> [data-testid=confirm-yes]");
    await page.getByText("nojs-flag теперь администратор").first().waitFor();
    expect((await reloadUser(e.db, m.user.id)).isAdmin).toBe(true);

    await row(page, "nojs-flag").locator("[data-testid=delete-manager]").click();
    await page.click("role=alertdialog >> [data-testid=confirm-yes]");
    await page.getByText("Менеджер удалён").first().waitFor();
    expect(await reloadUser(e.db, m.user.id)).toBeUndefined();
  });
});

describe("/managers for a manager", () => {
  it("is refused with 403", async () => {
    // The manager gets the 403 page, which the browser logs.
    allowRefusal(403);
    const m = await createUser(e.db, { login: "not-admin", gettingFilter: 1 });
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, m);
    const response = await page.goto("/managers");
    expect(response?.status()).toBe(403);
  });
});

describe("/managers with a telephony provider", () => {
  // The provider is the one external system: a fake speaking real HTTP on loopback.
  let provider: http.Server;
  let answer: "ok" | "error" = "ok";
  let p: E2E;
  beforeAll(async () => {
    provider = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const { command, prefix } = JSON.parse(body);
        res.writeHead(200, { "Content-Type": "application/json" });
        if (answer === "error") return res.end(JSON.stringify({ status: "error", message: "no" }));
        res.end(JSON.stringify({ status: "success", data: command === "createNew" ? { extension: prefix + 77, password: "fromProvider1" } : {} }));
      });
    });
    await new Promise<void>((r) => provider.listen(0, "127.0.0.1", () => r()));
    p = await startE2E({ env: { TELEPHONY_API_URL: `http://127.0.0.1:${(provider.address() as AddressInfo).port}/` } });
  });
  afterAll(async () => {
    await p?.close();
    await new Promise((r) => provider?.close(r));
  });

  it("fills the SIP fields from the provider, and shows Proxy API error when it refuses", async () => {
    // The provider's refusal is answered 502, which the browser logs.
    allowRefusal(502);
    const page = await p.newPage();
    await loginThroughPage(page, ADMIN);
    await page.goto("/managers");
    await waitForHydration(page);
    await page.fill("#add-login", "via-provider");
    await page.selectOption("#add-sipPrefix", "2000");
    await page.click("[data-testid=generate-sip]");
    await page.waitForFunction(() => (document.querySelector("#add-sipLogin") as HTMLInputElement).value === "2077");
    expect(await page.locator("#add-sipPassword").inputValue()).toBe("fromProvider1");

    answer = "error";
    await page.fill("#add-sipLogin", "");
    await page.click("[data-testid=generate-sip]");
    await page.getByText("Proxy API error").first().waitFor();
    expect(await page.locator("#add-sipLogin").inputValue()).toBe("");
  });
});
