import fs from "node:fs";
import { createRequire } from "node:module";
import { eq, sql } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { queryRows } from "../../db/client";
import { users } from "../../db/schema";
import { themeHeader, type Theme } from "../../app/theme.server";
import { ADMIN, bearer, createUser, reloadUser } from "../helpers/app";
import { loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

/**
 * Breaks from the header (issue 18, decision 038), in Chromium: with JavaScript the toggle works without a page
 * load, its timer runs, the lead panel stops handing out leads and /users shows the state live; without
 * JavaScript the same toggle is a plain form post and every page is right on reload.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

/** A manager in a topic of `count` fresh contacts, the topic chosen. */
async function manager(login: string, count = 4) {
  const m = await createUser(e.db, { login, displayName: `Менеджер ${login}` });
  const { base } = await createBase(e.db, { count });
  const s = await statusesByText(e.db);
  const filter = await createFilterRow(e.db, { managerIds: [m.user.id], databaseIds: [base.id], statusIds: [s["Перезвонить"].id] });
  await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, m.user.id));
  return m;
}

const toggle = (page: Page) => page.getByTestId("break-toggle");
/** The toggle's label, without its timer. */
const toggleLabel = (page: Page) => toggle(page).locator("span").first().textContent();
const leadId = async (page: Page) => Number(await page.locator("[data-testid=lead-form] input[name=contactId]").inputValue());
const stateCell = (page: Page, login: string) => page.locator(`[data-testid="online-row-${login}"] [data-testid=agent-state]`);

async function statusOf(contactId: number): Promise<string | null> {
  const [row] = await queryRows<{ text: string | null }>(
    e.db,
    sql`select s.text from contacts c left join statuses s on s.id = c.status_id where c.id = ${contactId}`,
  );
  return row.text;
}

describe("a break from the header", () => {
  it("with JavaScript: no page load, a running timer, no new lead, the state live on /users; ending it brings the next lead", async () => {
    const m = await manager("break-js");
    const admin = await e.newPage();
    await loginThroughPage(admin, ADMIN);
    await admin.goto("/users");
    await waitForHydration(admin);

    const page = await e.newPage();
    await loginThroughPage(page, m);
    await page.goto("/leadpanel");
    await waitForHydration(page);
    const first = await leadId(page);
    expect(first).toBeGreaterThan(0);
    await expect(toggleLabel(page)).resolves.toBe("Перерыв");
    await stateCell(admin, "break-js").getByText("Работает с лидом").waitFor({ timeout: 15_000 });
    // A marker that a page load would wipe.
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

    await toggle(page).click();
    await page.getByRole("button", { name: "Закончить перерыв" }).first().waitFor();
    await page.getByText("Перерыв начат: новые лиды не выдаются").first().waitFor();
    // The lead he holds stays on screen, with the break's notice above it.
    const notice = page.getByTestId("break-notice");
    await notice.getByText("Этот клиент остаётся за вами", { exact: false }).waitFor();
    expect(await leadId(page)).toBe(first);
    // The timer counts.
    const timer = page.getByTestId("break-elapsed");
    const before = await timer.textContent();
    expect(before).toMatch(/^0:0\d$/);
    await page.waitForFunction((text) => document.querySelector("[data-testid=break-elapsed]")?.textContent !== text, before, { timeout: 5000 });
    // The admin's list says so without a reload.
    await stateCell(admin, "break-js").getByText("Перерыв").waitFor({ timeout: 15_000 });

    // A status on the held lead is saved; no next lead although three contacts are free.
    await page.getByRole("button", { name: "Отказ" }).click();
    await notice.getByText("Новые лиды не выдаются, пока вы не закончите перерыв.").waitFor();
    expect(await page.getByTestId("lead-form").count()).toBe(0);
    expect(await page.getByTestId("no-leads").count()).toBe(0);
    expect(await statusOf(first)).toBe("Отказ");

    // Ending it from the panel: the next lead comes in, still without a page load.
    await notice.getByRole("button", { name: "Закончить перерыв" }).click();
    await page.getByTestId("lead-form").waitFor();
    expect(await leadId(page)).not.toBe(first);
    await page
      .getByText(/^Перерыв закончен, он длился \d+:\d\d$/)
      .first()
      .waitFor();
    await expect(toggleLabel(page)).resolves.toBe("Перерыв");
    expect(await page.getByTestId("break-elapsed").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await stateCell(admin, "break-js").getByText("Работает с лидом").waitFor({ timeout: 15_000 });
  });

  it("without JavaScript: the toggle is a form post, and the lead panel and /users are right on reload", async () => {
    const m = await manager("break-nojs");
    // He is online through a realtime socket of his own (a page without JavaScript opens none).
    const socket = new WebSocket(`${e.baseUrl.replace("http", "ws")}/realtime`, { headers: bearer(await e.tokenFor(m)) });
    await new Promise((resolve) => socket.on("open", resolve));
    socket.send(JSON.stringify({ event: "updateStatus" }));
    try {
      const page = await e.newPage({ javaScript: false });
      await loginThroughPage(page, m);
      await page.goto("/leadpanel");
      const first = await leadId(page);

      await toggle(page).click();
      await page.waitForURL("**/leadpanel");
      await page.getByText("Перерыв начат: новые лиды не выдаются").waitFor();
      await expect(toggleLabel(page)).resolves.toBe("Закончить перерыв");
      expect(await page.getByTestId("break-elapsed").textContent()).toMatch(/^0:0\d$/);
      expect(await leadId(page)).toBe(first);

      const admin = await e.newPage({ javaScript: false });
      await loginThroughPage(admin, ADMIN);
      await admin.goto("/users");
      await expect(stateCell(admin, "break-nojs").textContent()).resolves.toBe("Перерыв");

      await page.getByRole("button", { name: "Отказ" }).click();
      await page.getByTestId("break-notice").getByText("Новые лиды не выдаются, пока вы не закончите перерыв.").waitFor();
      expect(await page.getByTestId("lead-form").count()).toBe(0);
      await admin.goto("/users");
      await expect(stateCell(admin, "break-nojs").textContent()).resolves.toBe("Перерыв");

      // The header's button ends it from any page: back on the same page, with the next lead.
      await toggle(page).click();
      await page.waitForURL("**/leadpanel");
      await page.getByText(/^Перерыв закончен, он длился \d+:\d\d$/).waitFor();
      await expect(toggleLabel(page)).resolves.toBe("Перерыв");
      expect(await leadId(page)).not.toBe(first);
      await admin.goto("/users");
      await expect(stateCell(admin, "break-nojs").textContent()).resolves.toBe("Работает с лидом");
    } finally {
      socket.close();
    }
  });

  it("the timer counts from the break's real start: 0:00 right after a second break, the same time after a reload (issue 41 §13)", async () => {
    const m = await manager("break-timer", 2);
    const page = await e.newPage();
    await loginThroughPage(page, m);
    await page.goto("/leadpanel");
    await waitForHydration(page);
    const timer = page.getByTestId("break-elapsed");
    const seconds = async () => {
      const [min, sec] = ((await timer.textContent()) ?? "").split(":").map(Number);
      return min * 60 + sec;
    };
    // A first break, ended: the page has counted from it before (the old timer went on from its figure).
    await toggle(page).click();
    await timer.waitFor();
    await page.getByTestId("break-notice").getByRole("button", { name: "Закончить перерыв" }).click();
    await timer.waitFor({ state: "detached" });
    await page.waitForTimeout(6000);

    await toggle(page).click();
    await timer.waitFor();
    expect(await seconds()).toBeLessThanOrEqual(3);
    await page.waitForTimeout(2000);
    expect(await seconds()).toBeLessThanOrEqual(4);
    // After the layout's refresh (every 15 s) and after a reload it still counts from the same start.
    await page.waitForTimeout(14_000);
    const beforeReload = await seconds();
    expect(beforeReload).toBeGreaterThanOrEqual(15);
    expect(beforeReload).toBeLessThanOrEqual(18);
    await page.reload();
    await waitForHydration(page);
    const afterReload = await seconds();
    expect(Math.abs(afterReload - beforeReload)).toBeLessThanOrEqual(2);
  });

  /** A manager named `displayName` on the lead panel at 390 px, his break just started. */
  async function phoneOnBreak(login: string, displayName: string) {
    const m = await createUser(e.db, { login, displayName });
    const { base } = await createBase(e.db, { count: 2 });
    const filter = await createFilterRow(e.db, { managerIds: [m.user.id], databaseIds: [base.id], statusIds: [] });
    await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, m.user.id));
    const page = await e.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    await loginThroughPage(page, m);
    await page.goto("/leadpanel");
    await waitForHydration(page);
    await toggle(page).click();
    await page.getByTestId("break-elapsed").waitFor();
    return page;
  }

  it("on a phone (390 px) the header keeps every control on screen during a break", async () => {
    const page = await phoneOnBreak("break-phone", "Константинопольская Александра Владиславовна");
    const outside = await page.evaluate(() =>
      [...document.querySelectorAll("header a, header button, header label")]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.left < 0 || r.right > document.documentElement.clientWidth;
        })
        .map((el) => el.textContent),
    );
    expect(outside).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  });

  it("on a phone (390 px) the header holds one row during a break and the manager's first name is whole, not «О…» (issue 41 §13)", async () => {
    const page = await phoneOnBreak("break-name", "Ольга Петренко");
    const header = await page.evaluate(() => {
      const bar = document.querySelector("header")!;
      const link = document.querySelector<HTMLElement>("[data-testid=profile-link]")!;
      // The name's first word as painted: its text node's box, inside the link's.
      const words = document.createRange();
      words.selectNodeContents(link.firstChild!);
      const box = link.getBoundingClientRect();
      return {
        height: bar.getBoundingClientRect().height,
        // Nothing of the row wraps out of it.
        outside: [...bar.querySelectorAll("a, button, label, span")]
          .map((el) => el.getBoundingClientRect())
          .filter((r) => r.height > 0 && r.width > 1 && (r.top < bar.getBoundingClientRect().top || r.bottom > bar.getBoundingClientRect().bottom))
          .length,
        first: link.firstChild!.textContent,
        whole: link.scrollWidth <= link.clientWidth && words.getBoundingClientRect().right <= box.right + 0.5,
        title: link.title,
      };
    });
    expect(header.height).toBe(56);
    expect(header.outside).toBe(0);
    expect(header.first).toBe("Ольга");
    expect(header.whole).toBe(true);
    expect(header.title).toBe("Ольга Петренко");
    // The break's button keeps its name and timer; the help link is there (a «?» named «Помощь»).
    await page.getByRole("link", { name: "Помощь" }).first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  });

  it("passes axe-core on a break, in both themes: the header's toggle, the panel's notice, /users", async () => {
    const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
    const m = await manager("break-axe", 2);
    const found: string[] = [];
    for (const theme of ["light", "dark"] as Theme[]) {
      for (const who of [m, ADMIN]) {
        // bypassCSP: axe-core goes in as an injected script, and the app's CSP wants a nonce.
        const context = await e.browser.newContext({ baseURL: e.baseUrl, bypassCSP: true, viewport: { width: 1280, height: 900 } });
        const cookie = (await themeHeader(theme)).split(";")[0];
        const at = cookie.indexOf("=");
        await context.addCookies([{ name: cookie.slice(0, at), value: cookie.slice(at + 1), url: e.baseUrl }]);
        const page = await context.newPage();
        await loginThroughPage(page, who);
        await page.goto(who === ADMIN ? "/users" : "/leadpanel");
        await waitForHydration(page);
        if (who !== ADMIN && (await toggleLabel(page)) === "Перерыв") {
          await toggle(page).click();
          await page.getByTestId("break-notice").waitFor();
        }
        if (who !== ADMIN) {
          // His page's realtime socket has said he is here (it connects a second after the page), so /users lists him.
          for (let i = 0; i < 100 && !(await reloadUser(e.db, m.user.id)).lastSeen; i++) await page.waitForTimeout(100);
        }
        if (who === ADMIN) await stateCell(page, "break-axe").getByText("Перерыв").waitFor({ timeout: 15_000 });
        await page.addScriptTag({ content: axeSource });
        const violations = (await page.evaluate(async () => {
          const axe = (window as unknown as { axe: { run(ctx: unknown, o: unknown): Promise<{ violations: unknown[] }> } }).axe;
          return (await axe.run(document, { resultTypes: ["violations"] })).violations;
        })) as Array<{ id: string; impact: string; nodes: Array<{ html: string }> }>;
        for (const v of violations.filter((x) => x.impact === "serious" || x.impact === "critical")) {
          found.push(`${theme} ${who.login}: ${v.id} ${v.nodes.map((n) => n.html.slice(0, 120)).join(" | ")}`);
        }
        await context.close();
      }
    }
    expect(found).toEqual([]);
  });

  it("is not offered to an admin who works no topic", async () => {
    const admin = await e.newPage({ javaScript: false });
    await loginThroughPage(admin, ADMIN);
    await admin.goto("/");
    expect(await admin.getByTestId("break-toggle").count()).toBe(0);
  });
});
