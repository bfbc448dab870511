import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls } from "../../db/schema";
import { ADMIN, createUser, reloadUser } from "../helpers/app";
import { allowRefusal, loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

const onlineRow = (login: string) => `[data-testid="online-row-${login}"]`;

describe("who is online and forced logout", () => {
  it("a manager who logs in appears live on /users; the admin forces him out and his page lands on /auth", async () => {
    const admin = await e.newPage();
    await loginThroughPage(admin, ADMIN);
    await admin.goto("/users");
    await waitForHydration(admin);
    expect(await admin.locator(onlineRow("live-manager")).count()).toBe(0);

    const m = await createUser(e.db, { login: "live-manager", displayName: "Живой" });
    const manager = await e.newPage();
    await loginThroughPage(manager, m);
    await waitForHydration(manager);
    const managerPath = new URL(manager.url()).pathname;
    expect(managerPath).not.toBe("/auth");

    // No reload on the admin's side: the hub pushes the new list once the manager's socket is up.
    await admin.locator(onlineRow("live-manager")).waitFor({ timeout: 10_000 });
    const cells = await admin.locator(`${onlineRow("live-manager")} td`).allTextContents();
    expect(cells[0]).toBe("live-manager");
    expect(cells[1]).toBe("Живой");
    expect(cells[2]).toMatch(/^\d\d\.\d\d\.\d{4}, \d\d:\d\d:\d\d$/);

    // «Завершить сессию» asks first, in a dialog; Отмена leaves him in, only the dialog's button logs him out.
    await admin.click(`${onlineRow("live-manager")} [data-testid=force-logout]`);
    const dialog = admin.getByRole("alertdialog", { name: "Завершить сессию менеджера Живой?" });
    await dialog.waitFor();
    await dialog.getByRole("link", { name: "Отмена" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(new URL(manager.url()).pathname).toBe(managerPath);
    await admin.click(`${onlineRow("live-manager")} [data-testid=force-logout]`);
    await dialog.getByRole("button", { name: "Завершить сессию" }).click();
    await admin.getByText("Сессия менеджера Живой закрыта").first().waitFor();
    await manager.waitForURL("**/auth", { timeout: 10_000 });
    await admin.locator(onlineRow("live-manager")).waitFor({ state: "detached" });
    expect((await reloadUser(e.db, m.user.id)).isOnline).toBe(false);

    // The session is gone for good: the pages send him back to /auth.
    await manager.goto("/leadpanel");
    expect(new URL(manager.url()).pathname).toBe("/auth");
  });

  it("without JavaScript, /users shows a fresh list on reload and the force-logout form works", async () => {
    const m = await createUser(e.db, { login: "nojs-online", displayName: "Без скриптов" });
    const manager = await e.newPage();
    await loginThroughPage(manager, m);
    await waitForHydration(manager);

    const admin = await e.newPage({ javaScript: false });
    await loginThroughPage(admin, ADMIN);
    // His socket connects 1 s after the page has a session; reload until he shows up.
    for (let i = 0; i < 20 && (await admin.locator(onlineRow("nojs-online")).count()) === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      await admin.goto("/users");
    }
    expect(await admin.locator(onlineRow("nojs-online")).count()).toBe(1);

    // The link opens the question on the page; he is still online until its button is pressed.
    await admin.click(`${onlineRow("nojs-online")} [data-testid=force-logout]`);
    await admin.getByText("Завершить сессию менеджера Без скриптов?").waitFor();
    expect(await admin.locator(onlineRow("nojs-online")).count()).toBe(1);
    await admin.click("[data-testid=force-logout-confirm] [data-testid=confirm-yes]");
    await admin.getByText("Сессия менеджера Без скриптов закрыта").first().waitFor();
    expect(await admin.locator(onlineRow("nojs-online")).count()).toBe(0);
    await manager.waitForURL("**/auth", { timeout: 10_000 });
  });

  it("offers page sizes 5, 10 and 20 and is closed to managers", async () => {
    // The manager gets the 403 page, which the browser logs.
    allowRefusal(403);
    const admin = await e.newPage({ javaScript: false });
    await loginThroughPage(admin, ADMIN);
    await admin.goto("/users");
    expect(await admin.locator("[data-testid=page-size] option").allTextContents()).toEqual(["5", "10", "20"]);

    const m = await createUser(e.db, { login: "no-users-page", gettingFilter: 1 });
    const manager = await e.newPage({ javaScript: false });
    await loginThroughPage(manager, m);
    expect((await manager.goto("/users"))?.status()).toBe(403);
  });
});

/** Screenshots for a look (SCREENS_DIR=/tmp/shots npx vitest run test/e2e/presence.test.ts -t screenshots). */
describe.runIf(process.env.SCREENS_DIR)("screenshots", () => {
  it("/users with a manager in a call and «Завершить сессию» asking, at 390 and 1440, light and dark, with JavaScript and without", async () => {
    const m = await createUser(e.db, { login: "olga", displayName: "Ольга" });
    const manager = await e.newPage();
    await loginThroughPage(manager, m);
    await waitForHydration(manager);
    // In a call the proxy logged, answered: «Разговор», with «Слушать» and «Подсказать» offered.
    await e.db
      .insert(calls)
      .values({ userId: m.user.id, number: "380501112233", direction: "out", byProxy: true, sipCallId: "screens@browser", answeredAt: new Date() });
    for (const javaScript of [true, false]) {
      for (const theme of ["light", "dark"]) {
        for (const width of [390, 1440]) {
          const admin = await e.newPage({ javaScript });
          if (theme === "dark") await admin.context().addCookies([{ name: "theme", value: "ImRhcmsi", url: e.baseUrl }]);
          await admin.setViewportSize({ width, height: width <= 390 ? 844 : 900 });
          await loginThroughPage(admin, ADMIN);
          for (let i = 0; i < 20; i++) {
            await admin.goto("/users");
            if (javaScript) await waitForHydration(admin);
            if ((await admin.locator(`${onlineRow("olga")} [data-testid=agent-state]`).textContent())?.includes("Разговор")) break;
            await new Promise((r) => setTimeout(r, 500));
          }
          const name = `users-${javaScript ? "js" : "nojs"}-${width}-${theme}`;
          await admin.screenshot({ path: `${process.env.SCREENS_DIR}/${name}.png`, fullPage: true });
          await admin.click(`${onlineRow("olga")} [data-testid=force-logout]`);
          await admin.getByText("Завершить сессию менеджера Ольга?").waitFor();
          await new Promise((r) => setTimeout(r, 400));
          await admin.screenshot({ path: `${process.env.SCREENS_DIR}/${name}-confirm.png`, fullPage: true });
          await admin.close();
        }
      }
    }
  }, 240_000);
});
