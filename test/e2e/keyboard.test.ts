import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applications, leadEvents, templates } from "../../db/schema";
import { ADMIN, createUser, reloadUser } from "../helpers/app";
import { startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { sendReport, setRatesCents } from "../helpers/money";

/**
 * Issue 9: the work of both roles with the keyboard alone (page.keyboard only, no click): log in, choose a
 * topic, press a status, send a report through its confirmation, and process a payout. Every element the Tab
 * key lands on must show where the focus is.
 */
let e: E2E;
beforeAll(async () => {
  e = await startE2E();
  await setRatesCents(e.db, 2000, 1000);
});
afterAll(async () => {
  await e?.close();
});

interface Focused {
  tag: string;
  name: string;
  /** The element draws a focus indicator (an outline or a ring). */
  indicated: boolean;
  inDialog: boolean;
  /** data-testid of the table row holding it, if any. */
  row: string | null;
}

/** What has the focus now: its tag, its accessible-ish name and whether a focus indicator is drawn. */
function focused(page: Page): Promise<Focused> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { tag: "body", name: "", indicated: true, inDialog: false, row: null };
    // A visually hidden control (the menu checkbox) shows its focus on its visible label (the header's ☰; the
    // backdrop and ✕ that also close the menu are labels of it too, hidden while it is closed).
    const box = el.getBoundingClientRect();
    const shown = (label: HTMLLabelElement) => {
      const r = label.getBoundingClientRect();
      return r.width > 1 && r.height > 1;
    };
    const labelled = Array.from((el as HTMLInputElement).labels ?? []).find(shown);
    const drawn = box.width <= 1 && box.height <= 1 && labelled ? labelled : el;
    const style = getComputedStyle(drawn);
    const outlined = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
    const ringed = style.boxShadow !== "none" && style.boxShadow !== "";
    const labels = (el as HTMLInputElement).labels;
    const name =
      el.getAttribute("aria-label") ||
      (labels && labels.length ? (labels[0].textContent ?? "") : "") ||
      el.getAttribute("placeholder") ||
      // Content hidden from screen readers (a status button's keycap) is not part of the name.
      [...el.childNodes]
        .filter((n) => !(n instanceof Element && n.getAttribute("aria-hidden") === "true"))
        .map((n) => n.textContent)
        .join("") ||
      "";
    return {
      tag: el.tagName.toLowerCase(),
      name: name.replace(/\s+/g, " ").trim(),
      indicated: outlined || ringed,
      inDialog: Boolean(el.closest("[role=dialog]")),
      row: el.closest("tr")?.getAttribute("data-testid") ?? null,
    };
  });
}

/**
 * Presses Tab until the focus is on the element `wanted` describes (fails after `max` presses: the control is
 * unreachable). Records every stop that showed no focus indicator in `unmarked`.
 */
async function tabTo(page: Page, wanted: (f: Focused) => boolean, unmarked: string[], max = 80, key: "Tab" | "Shift+Tab" = "Tab"): Promise<Focused> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const f = await focused(page);
    if (!f.indicated) unmarked.push(`${f.tag} «${f.name}»`);
    if (wanted(f)) return f;
  }
  throw new Error(`not reachable with Tab within ${max} presses (focus is on ${JSON.stringify(await focused(page))})`);
}

/** A loaded 2-core machine: state is polled for, generously. */
const SLOW = { timeout: 20_000 };

const named = (tag: string, name: string) => (f: Focused) => f.tag === tag && f.name === name;

/** Logs in on /auth by typing: the login field has the focus when the page opens. */
async function logInByKeyboard(page: Page, credentials: { login: string; password: string; accessKey: string }, unmarked: string[]) {
  await page.goto("/auth");
  await waitForHydration(page);
  await expect.poll(async () => (await focused(page)).name, SLOW).toBe("Логин");
  await page.keyboard.type(credentials.login);
  await tabTo(page, named("input", "Пароль"), unmarked);
  await page.keyboard.type(credentials.password);
  await tabTo(page, named("input", "Ключ доступа"), unmarked);
  await page.keyboard.type(credentials.accessKey);
  await tabTo(page, named("button", "Войти"), unmarked);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith("/auth")), page.keyboard.press("Enter")]);
  await waitForHydration(page);
}

describe("keyboard only", () => {
  it("a manager logs in, chooses a topic, presses a status and sends a report", async () => {
    const manager = await createUser(e.db, { login: "keys-manager", displayName: "Клава" });
    const { base, contacts } = await createBase(e.db, { count: 3 });
    const [template] = await e.db
      .insert(templates)
      .values({ name: "Анкета", templateFields: JSON.stringify([{ label: "Сумма", type: "text" }]) })
      .returning();
    const s = await statusesByText(e.db);
    const filter = await createFilterRow(e.db, {
      name: "Клавиатурная тематика",
      managerIds: [manager.user.id],
      databaseIds: [base.id],
      statusIds: [s["Перезвонить"].id],
      templateId: template.id,
    });
    // A second topic, so that there is a choice (with one, /getFilters enters it by itself: issue 41).
    await createFilterRow(e.db, { name: "Вторая тематика", managerIds: [manager.user.id], databaseIds: [], statusIds: [] });
    const unmarked: string[] = [];
    const page = await e.newPage();
    await logInByKeyboard(page, manager, unmarked);

    // No topic yet: /getFilters. The login button is gone with the page: the focus is on the new page's content,
    // so the next Tab stop is the topic, pressed with Enter.
    await page.waitForURL((url) => url.pathname === "/getFilters");
    await expect.poll(async () => (await focused(page)).tag, SLOW).toBe("main");
    // The topic's button reads its name, then its hours and free clients (issue 41).
    await tabTo(page, (f) => f.tag === "button" && f.name.startsWith(`${filter.name}Часы звонков`), unmarked, 1);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === "/leadpanel");
    const leadName = page.locator("[data-testid=lead-name]");
    await expect.poll(() => leadName.textContent(), SLOW).toBe(contacts[0].name);
    expect((await reloadUser(e.db, manager.user.id)).gettingFilter).toBe(filter.id);

    // The lead panel opened afresh (its address typed): the first Tab stop skips the menu.
    await page.goto("/leadpanel");
    await waitForHydration(page);
    await tabTo(page, named("a", "Перейти к содержимому"), unmarked, 1);
    await page.keyboard.press("Enter");
    await expect.poll(async () => (await focused(page)).tag, SLOW).toBe("main");

    // A status pressed with Space.
    await tabTo(page, named("button", "Отказ"), unmarked, 10);
    await page.keyboard.press("Space");
    await expect.poll(() => leadName.textContent(), SLOW).toBe(contacts[1].name);
    // The next lead's form keeps the focus on the status row, not at the top of the page.
    await expect.poll(() => focused(page), SLOW).toMatchObject({ tag: "button", name: "Отказ" });

    // The card filled by typing, the report pressed with Enter, confirmed in the dialog with the keyboard.
    await tabTo(page, named("input", "Сумма"), unmarked);
    await page.keyboard.type("15000");
    await tabTo(page, named("input", "Паспорт"), unmarked);
    await page.keyboard.type("АА123456");
    // Issue 41: one Tab from the card's last field, «К статусам» takes the focus to the status row.
    await tabTo(page, named("a", "К статусам (или цифры 1–9)"), unmarked, 1);
    await page.keyboard.press("Enter");
    // The row's first status (SPEC's order: technical first, the report last, decision 085); Tab goes along it.
    expect(await focused(page)).toMatchObject({ tag: "button", name: "Недозвон" });
    await tabTo(page, named("button", "Заявка"), unmarked, 8);
    await page.keyboard.press("Enter");
    const dialog = page.locator("[data-testid=report-confirm]");
    await dialog.waitFor();
    // The focus moved into the dialog and stays there (a modal): Tab cycles through its two buttons.
    await expect.poll(async () => (await focused(page)).inDialog, SLOW).toBe(true);
    const cycle: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press("Tab");
      const f = await focused(page);
      expect(f.inDialog).toBe(true);
      if (!f.indicated) unmarked.push(`${f.tag} «${f.name}»`);
      cycle.push(f.name);
    }
    expect(new Set(cycle)).toEqual(new Set(["Закрыть", "Да, я уверен!"]));
    while ((await focused(page)).name !== "Да, я уверен!") await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await page.getByText("Данные отправлены").first().waitFor();
    await expect.poll(() => leadName.textContent(), SLOW).toBe(contacts[2].name);

    const [application] = await e.db.select().from(applications).where(eq(applications.contactId, contacts[1].id));
    expect(application).toMatchObject({ applicationText: "Сумма: 15000", withPassport: true, amountCents: 2000 });
    const events = await e.db.select().from(leadEvents).where(eq(leadEvents.userId, manager.user.id)).orderBy(leadEvents.id);
    expect(events.map((ev) => ev.statusText)).toEqual(["Отказ", "Заявка"]);
    expect(unmarked).toEqual([]);
  });

  it("an admin logs in and pays a worker out from the payouts screen", async () => {
    const worker = await createUser(e.db, { login: "keys-worker", displayName: "Платон" });
    await sendReport(e.db, worker.user.id, { withPassport: true, text: "Имя: Пётр" });
    expect((await reloadUser(e.db, worker.user.id)).balanceCents).toBe(2000);
    const unmarked: string[] = [];
    const page = await e.newPage();
    await logInByKeyboard(page, ADMIN, unmarked);

    // After the login the focus is on the page's content; the menu is behind it (Shift+Tab). The menu toggle is a
    // Tab stop: Space hides the side menu and shows it again.
    await expect.poll(async () => (await focused(page)).tag, SLOW).toBe("main");
    const sidebar = page.locator("[data-testid=sidebar]");
    expect(await sidebar.isVisible()).toBe(true);
    // (Issue 41: with JavaScript it is ☰ itself; the hidden checkbox behind it is no Tab stop.)
    await tabTo(page, named("label", "Меню"), unmarked, 40, "Shift+Tab");
    await page.keyboard.press("Space");
    await expect.poll(() => sidebar.isVisible(), SLOW).toBe(false);
    await page.keyboard.press("Space");
    await expect.poll(() => sidebar.isVisible(), SLOW).toBe(true);

    // The side menu's Выплаты link, followed with Enter.
    await tabTo(page, named("a", "Выплаты"), unmarked, 40);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname === "/payments");
    await page.locator("[data-testid=worker-keys-worker]").waitFor();

    // The worker's payout action, then the dialog: the amount has the focus, prefilled with what he earned.
    await tabTo(page, (f) => f.tag === "a" && f.name === "Выплата" && f.row === "worker-keys-worker", unmarked, 150);
    await page.keyboard.press("Enter");
    const dialog = page.locator("[data-testid=pay-dialog]");
    await dialog.waitFor();
    await expect.poll(() => focused(page), SLOW).toMatchObject({ tag: "input", name: "Сумма выплаты, $", inDialog: true });
    expect(await dialog.locator("input[name=amount]").inputValue()).toBe("20");
    await tabTo(page, named("button", "Выплатить"), unmarked, 10);
    await page.keyboard.press("Enter");
    await page.getByText("Выплата проведена").first().waitFor();
    await dialog.waitFor({ state: "detached" });
    // The focus did not fall out of the page with the dialog: the next Tab goes on from the payouts screen.
    await expect.poll(async () => (await focused(page)).tag, SLOW).not.toBe("body");
    await expect.poll(async () => (await reloadUser(e.db, worker.user.id)).balanceCents, SLOW).toBe(0);
    const earned = await page.locator("[data-testid=worker-keys-worker] td:nth-child(4)").textContent();
    expect(earned?.replace(/\s/g, " ")).toBe("0,00 $");
    expect(unmarked).toEqual([]);
  });
});
