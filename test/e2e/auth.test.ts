import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, createUser } from "../helpers/app";
import { allowRefusal, loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { setTheme } from "../helpers/screens";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

describe.each([true, false])("login and logout with JavaScript %s", (javaScript) => {
  it("logs in to /leadpanel, shows the layout, and logs out to /auth", async () => {
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    expect(new URL(page.url()).pathname).toBe("/leadpanel");
    await expect(page.locator("[data-testid=sidebar]").textContent()).resolves.toContain("УПРАВЛЕНИЕ");
    await expect(page.locator("[data-testid=profile-link]").textContent()).resolves.toBe("Администратор");

    await page.goto("/profile");
    // /profile's own «Выйти» (the header and the phone menu have one too: the menu's is hidden at desk width).
    await Promise.all([page.waitForURL("**/auth"), page.locator("#content").getByRole("button", { name: "Выйти" }).click()]);
    // The session is gone: the layout sends us back to /auth.
    await page.goto("/leadpanel");
    expect(new URL(page.url()).pathname).toBe("/auth");
  });

  // Issue 41: a manager's name leads to Главная, which had no «Выйти»: the header has it at desk width, the phone menu
  // at 390, for everyone; a POST form, so it works without JavaScript too.
  it.each([1440, 390])("lets a manager log out from any page at %i px", async (width) => {
    const manager = await createUser(e.db, { login: `leaving-${width}-${javaScript}`, displayName: "Ольга Уходящая" });
    const page = await e.newPage({ javaScript });
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    await loginThroughPage(page, manager);
    await page.goto("/callbacks");
    if (javaScript) await waitForHydration(page);
    if (width === 390) {
      expect(await page.getByTestId("header-logout").isVisible()).toBe(false);
      await page.locator("header label[for=menu-toggle]").click();
    }
    const logout = page.getByRole("button", { name: "Выйти", exact: true });
    await expect(logout.count()).resolves.toBe(1);
    await Promise.all([page.waitForURL("**/auth"), logout.click()]);
    await page.goto("/callbacks");
    expect(new URL(page.url()).pathname).toBe("/auth");
    if (process.env.SCREENS_DIR && width === 390) {
      // The phone menu with «Выйти», for a look.
      await loginThroughPage(page, manager);
      for (const theme of ["light", "dark"] as const) {
        await setTheme(page.context(), e.baseUrl, theme);
        await page.goto("/callbacks");
        await page.locator("header label[for=menu-toggle]").click();
        await page.screenshot({ path: `${process.env.SCREENS_DIR}/logout-menu-390-${theme}-js-${javaScript}.png` });
        await page.setViewportSize({ width: 1440, height: 900 });
        await page.goto("/callbacks");
        await page.screenshot({ path: `${process.env.SCREENS_DIR}/logout-header-1440-${theme}-js-${javaScript}.png` });
        await page.setViewportSize({ width: 390, height: 844 });
      }
    }
  });

  it("shows the server's message for a wrong password", async () => {
    // The wrong password is answered 401, which the browser logs.
    allowRefusal(401);
    const page = await e.newPage({ javaScript });
    await page.goto("/auth");
    if (javaScript) await waitForHydration(page);
    await page.fill("#login", ADMIN.login);
    await page.fill("#password", "wrong-password");
    await page.fill("#accessKey", ADMIN.accessKey);
    await page.click("button[type=submit]");
    await expect(page.getByText("Неверный логин или пароль").first().waitFor()).resolves.toBeUndefined();
    expect(new URL(page.url()).pathname).toBe("/auth");
  });

  it("shows Укажите логин for an empty login", async () => {
    // Without JavaScript the empty login is refused by the server (400; with it the page stops it and sends
    // nothing); the wrong password after it is a 401 both ways.
    allowRefusal(401);
    if (!javaScript) allowRefusal(400);
    const page = await e.newPage({ javaScript });
    await page.goto("/auth");
    if (javaScript) await waitForHydration(page);
    await page.click("button[type=submit]");
    await expect(page.getByText("Укажите логин").first().waitFor()).resolves.toBeUndefined();

    // Filled in at once and refused by the server: its answer stands alone, not beside the stale field message.
    await page.fill("#login", ADMIN.login);
    await page.fill("#password", "wrong-password");
    await page.fill("#accessKey", ADMIN.accessKey);
    await page.click("button[type=submit]");
    await page.getByText("Неверный логин или пароль").first().waitFor();
    expect(await page.getByText("Укажите логин").count()).toBe(0);
  });
});

describe("layout", () => {
  it("hides the admin group from a manager", async () => {
    const manager = await createUser(e.db, { login: "e2e-manager", displayName: "Олег" });
    const page = await e.newPage();
    await loginThroughPage(page, manager);
    const sidebar = await page.locator("[data-testid=sidebar]").textContent();
    expect(sidebar).toContain("Клиенты");
    expect(sidebar).not.toContain("УПРАВЛЕНИЕ");
    expect(sidebar).not.toContain("Главная");
    // A manager's profile link goes to / (SPEC Layout).
    expect(await page.locator("[data-testid=profile-link]").getAttribute("href")).toBe("/");
  });

  it("keeps the dark theme across a reload, with no flash of the light one", async () => {
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    await waitForHydration(page);
    await page.click("[data-testid=theme-toggle]");
    await page.waitForFunction(() => document.documentElement.classList.contains("dark"));
    // The server renders the class itself: check the HTML before any script runs.
    const html = await (await page.request.get("/leadpanel")).text();
    expect(html).toMatch(/<html lang="ru" class="dark"/);
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.className)).toBe("dark");
    // Nothing was blocked by the Content-Security-Policy: a block is a console error, which fails the test.
  });

  it("shows the 404 page for an unknown path", async () => {
    // The unknown path is answered 404, which the browser logs.
    allowRefusal(404);
    const page = await e.newPage({ javaScript: false });
    const response = await page.goto("/no-such-page");
    expect(response?.status()).toBe(404);
    await expect(page.getByText("Страница не найдена").waitFor()).resolves.toBeUndefined();
    await expect(page.getByText("Извините, запрашиваемая страница не существует").waitFor()).resolves.toBeUndefined();
  });
});
