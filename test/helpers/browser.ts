import type { AddressInfo } from "node:net";
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from "playwright-core";
import { expect } from "vitest";
import { createTestApp, type TestApp } from "./app";
import { CHROMIUM_ARGS, CHROMIUM_PATH, FULL_CHROMIUM_PATH } from "./chromium";
import { watchBrowser } from "./page-errors";

export { allowPageError, allowRefusal } from "./page-errors";

export interface E2E extends TestApp {
  baseUrl: string;
  browser: Browser;
  /** A fresh browser context (its own cookies); javaScriptEnabled false for the no-JS runs. */
  newPage(options?: { javaScript?: boolean }): Promise<Page>;
}

/** `full`: full Chromium instead of the headless shell, where the shell falls short (test/helpers/chromium.ts says where). */
interface BrowserKind {
  full?: boolean;
}

/**
 * Debian's headless Chromium (its headless shell, or the full browser for `full`) with the tests' flags (and
 * `extraArgs`), every page of it watched: a console error in one fails the test (test/helpers/page-errors.ts).
 */
export async function launchBrowser(extraArgs: string[] = [], { full = false }: BrowserKind = {}): Promise<Browser> {
  const executablePath = full ? FULL_CHROMIUM_PATH : CHROMIUM_PATH;
  return watchBrowser(await chromium.launch({ executablePath, args: [...CHROMIUM_ARGS, ...extraArgs], headless: true }));
}

/** The real app listening on a loopback port, and a headless Chromium to drive it. */
export async function startE2E(options: { env?: Record<string, string> } & BrowserKind = {}): Promise<E2E> {
  const t = await createTestApp({ web: true, env: options.env });
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = t.app.server.address() as AddressInfo;
  const browser = await launchBrowser([], { full: options.full });
  const contexts: BrowserContext[] = [];
  return {
    ...t,
    baseUrl: `http://127.0.0.1:${port}`,
    browser,
    async newPage({ javaScript = true } = {}) {
      const context = await browser.newContext({ javaScriptEnabled: javaScript, baseURL: `http://127.0.0.1:${port}` });
      contexts.push(context);
      const page = await context.newPage();
      // DEBUG_HTTP=1: every answer of 400 or more the page gets, with what it sent.
      if (process.env.DEBUG_HTTP)
        page.on("response", (r) => r.status() >= 400 && console.log("HTTP", r.status(), r.request().method(), r.url(), r.request().postData()));
      return page;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => {});
      await browser.close();
      await t.close();
    },
  };
}

/** Fills the login form and submits it; resolves once the browser has left /auth. */
export async function loginThroughPage(page: Page, credentials: { login: string; password: string; accessKey: string }) {
  await page.goto("/auth");
  await page.fill("#login", credentials.login);
  await page.fill("#password", credentials.password);
  await page.fill("#accessKey", credentials.accessKey);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith("/auth")), page.click("button[type=submit]")]);
}

/**
 * Waits until React has hydrated the page and run the effects of the location the address bar shows. After a
 * client-side navigation the address changes before the new page's effects run (a key pressed in between was lost
 * under load), so root.tsx marks the router's key of the location it has shown, and history.state has the current one.
 */
export async function waitForHydration(page: Page) {
  await page.waitForFunction(() => {
    const marks = document.documentElement.dataset;
    const current = (history.state as { key?: string } | null)?.key ?? "default";
    return marks.hydrated === "true" && marks.shown === current;
  });
}

/**
 * Waits for an element, then for its page to be parsed to the end. Without JavaScript a form post's answer is parsed
 * as it streams in: an element can be in the page, and visible, before its text is (seen under load: an empty
 * banner read right after it appeared).
 */
export async function parsed(locator: Locator): Promise<Locator> {
  await locator.waitFor();
  await locator.page().waitForLoadState("domcontentloaded");
  return locator;
}

/**
 * The import's mapping grid, once the whole of it is in the page. Without JavaScript the page after Загрузить is
 * parsed as it streams in, so the grid can exist with only its first cards; the Сохранить button comes after the
 * grid, so its presence means every card is there.
 */
export async function mappingGrid(page: Page) {
  await page.getByRole("button", { name: "Сохранить", exact: true }).waitFor();
  return page.getByTestId("mapping-table");
}

/**
 * Holds the page's data requests (the router's loads and revalidations, single fetch's `.data`) until the returned
 * function lets them go, and stops holding new ones then. What the page shows meanwhile came some other way: not
 * from the layout's 15 s refresh (or a refresh that would meet a database the test has broken on purpose).
 */
export async function holdPageData(page: Page): Promise<() => Promise<void>> {
  const pageData = /\.data(\?|$)/;
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(pageData, async (route) => {
    await released;
    await route.continue().catch(() => {});
  });
  return async () => {
    release();
    await page.unroute(pageData);
  };
}

/**
 * Records every message the page shows from now on (toasts and banners: role status or alert), however briefly, for
 * messagesSeen: a 2 s toast can come and go between two polls of a test on a loaded machine. One document only
 * (a full page load drops it); client-side navigations keep it.
 */
export async function recordMessages(page: Page) {
  await page.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __messagesSeen: string[] }).__messagesSeen = seen;
    const read = () => {
      for (const el of Array.from(document.querySelectorAll('[role="status"], [role="alert"]'))) {
        const text = el.textContent?.trim();
        if (text && !seen.includes(text)) seen.push(text);
      }
    };
    new MutationObserver(read).observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}

/**
 * Clicks `locator` (forced: a greyed aria-disabled button a person can still press) once its box has stood still
 * for three checks 100 ms apart: a click lands where the element was when Playwright measured it, and on a loaded
 * machine a chunk rendered after hydration can move it in between (CI, stop 52: a press that said nothing). Says
 * what the press landed on when that is not the element.
 */
export async function pressWhenStill(locator: Locator) {
  let last = "";
  let still = 0;
  await expect
    .poll(
      async () => {
        const box = JSON.stringify(await locator.boundingBox());
        still = box === last ? still + 1 : 0;
        last = box;
        return still;
      },
      { timeout: 10_000, interval: 100, message: "the element kept moving" },
    )
    .toBeGreaterThanOrEqual(2);
  await locator.evaluate((el) => {
    const seen: { on?: string } = {};
    document.addEventListener(
      "click",
      (event) => {
        const target = event.target as Element;
        seen.on = el.contains(target) ? "" : (target.closest("[data-testid]")?.getAttribute("data-testid") ?? target.outerHTML.slice(0, 80));
      },
      { capture: true, once: true },
    );
    (window as unknown as { __pressLanded: typeof seen }).__pressLanded = seen;
  });
  await locator.click({ force: true });
  const on = await locator.page().evaluate(() => (window as unknown as { __pressLanded?: { on?: string } }).__pressLanded?.on);
  expect(on, `the press landed on ${on}, not on the element`).toBe("");
}

/** The messages recordMessages saw, in the order they first showed. */
export const messagesSeen = (page: Page) => page.evaluate(() => (window as unknown as { __messagesSeen?: string[] }).__messagesSeen ?? []);

/**
 * Does `act`, then waits until the page has shown a message `said` matches, recorded from before the act: a 2 s
 * toast waited for by a locator was missed on a loaded machine (CI, stop 51; a whole run, 2026-12-01).
 */
export async function saysAfter(page: Page, act: () => Promise<unknown>, said: RegExp, timeout = 15_000) {
  await recordMessages(page);
  await act();
  await expect
    .poll(async () => (await messagesSeen(page)).some((message) => said.test(message)), { timeout, message: `the page did not say ${said}` })
    .toBe(true);
}
