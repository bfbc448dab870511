import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { contacts, filters, users } from "../../db/schema";
import { expectText, managerWithLead, useCallPath } from "../sip/call-page";

/**
 * Progressive dialing (issue 29, decision 058) through the whole call path: Chromium → Kamailio → rtpengine →
 * SIPp as the carrier. The INVITE at the carrier is what proves a call started by itself (or did not).
 */
const SECRET = "autodial-e2e-shared-secret-0123456789";
const SECONDS = 3;
const { e, stack, startCarrier, carrier: testCarrier } = useCallPath("autodial", SECRET, { firstExtension: 6000 });

const digits = (phone: string) => phone.replace(/\D/g, "");
const invitesTo = (phone: string) =>
  (
    testCarrier()
      ?.messages()
      .match(new RegExp(`^INVITE sip:${digits(phone)}@`, "gm")) ?? []
  ).length;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A manager on /leadpanel whose topic dials by itself after SECONDS, with `phones` as his clients in this order
 * (the first is his lead). The page is opened again after the topic is set, so the first lead counts down.
 */
async function autodialManager(phones: string[]) {
  const a = await managerWithLead(e, stack, phones[0]);
  const [user] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, a.manager.user.id));
  await e.db.update(filters).set({ autodialSeconds: SECONDS }).where(eq(filters.id, user.topic));
  const [lead] = await e.db.select({ databaseId: contacts.databaseId }).from(contacts).where(eq(contacts.id, a.lead.id));
  for (const [i, phone] of phones.slice(1).entries()) {
    await e.db.insert(contacts).values({ databaseId: lead.databaseId, name: `Клиент ${i + 2}`, phone, phoneKey: digits(phone), city: "Киев" });
  }
  await a.page.reload();
  await expectText(a.page, "call-state", "Телефон готов");
  return a;
}

/** The countdown on screen, and the seconds it shows. */
async function countdown(page: Page) {
  await page.locator("[data-testid=autodial][data-state=countdown]").waitFor({ timeout: 10_000 });
  return Number(await page.locator("[data-testid=autodial-seconds]").textContent());
}

/** A status that neither asks a callback time nor is a report: the next lead comes in its answer. */
const pressRefusal = (page: Page) => page.getByRole("button", { name: "Отказ" }).click();

describe("autodial after a status press", () => {
  it("shows the next lead with a countdown and its INVITE reaches the carrier N s later with no click; typing in the card keeps the focus", async () => {
    const carrier = await startCarrier({ answer: { ringMs: 200 } });
    const first = "+38 (067) 111-30-01";
    const next = "+38 (067) 111-30-02";
    const a = await autodialManager([first, next]);
    // Opening the panel with a lead counts down too; «Пропустить» (the S key) lets this one go.
    expect(await countdown(a.page)).toBeLessThanOrEqual(SECONDS);
    await a.page.keyboard.press("KeyS");
    await expectText(a.page, "autodial-stopped", "Автонабор пропустил этого клиента");
    await sleep(SECONDS * 1000 + 1000);
    expect(invitesTo(first)).toBe(0);

    await pressRefusal(a.page);
    await expect.poll(() => a.page.locator("[data-testid=lead-name]").textContent()).toBe("Клиент 2");
    const shown = Date.now();
    expect(await countdown(a.page)).toBe(SECONDS);
    // The screen reader hears it once: the live region is not rewritten as the seconds go by.
    const announcement = a.page.locator("[data-testid=autodial-announcement]");
    const said = await announcement.textContent();
    expect(said).toContain(`начнётся через ${SECONDS} секунды`);
    expect(said).toContain("Клиент 2");
    // The manager types in the card meanwhile; the call does not take the focus or his text.
    await a.page.getByPlaceholder("Введите паспорт").click();
    await a.page.keyboard.type("АА12");
    await sleep(1200);
    expect(await announcement.textContent()).toBe(said);
    expect(Number(await a.page.locator("[data-testid=autodial-seconds]").textContent())).toBeLessThan(SECONDS);

    await carrier.waitForMessage(new RegExp(`INVITE sip:${digits(next)}@`), 10_000);
    const after = Date.now() - shown;
    expect(after, `INVITE ${after} ms after the lead was shown`).toBeGreaterThanOrEqual(SECONDS * 1000 - 300);
    expect(after).toBeLessThan(SECONDS * 1000 + 2000);
    await a.page.keyboard.type("34");
    expect(await a.page.evaluate(() => document.activeElement?.id)).toBe("passport");
    expect(await a.page.getByPlaceholder("Введите паспорт").inputValue()).toBe("АА1234");
    await expectText(a.page, "call-state", `Разговор: ${digits(next)}`);
    expect(invitesTo(next)).toBe(1);
    expect(invitesTo(first)).toBe(0);
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
    // One call per showing: the ended call is not dialled again.
    await sleep(SECONDS * 1000 + 500);
    expect(invitesTo(next)).toBe(1);
  });
});

describe("Пауза", () => {
  it("stops the countdown until it is pressed again, and the call then starts by itself", async () => {
    const carrier = await startCarrier({ answer: { ringMs: 200 } });
    const phone = "+38 (067) 111-30-11";
    const a = await autodialManager([phone]);
    await countdown(a.page);
    await a.page.getByTestId("autodial-pause").click();
    await expectText(a.page, "autodial-stopped", "Автонабор на паузе");
    // «Клавиши» lists autodial's keys where the topic has it.
    await a.page.keyboard.press("Shift+Slash");
    const rows = await a.page
      .locator("[data-testid=keys-dialog] tr")
      .evaluateAll((trs) => trs.map((tr) => tr.textContent?.replace(/\s+/g, " ").trim()));
    expect(rows).toContain("SАвтонабор: не звонить этому клиенту по таймеру (русская раскладка: Ы)");
    expect(rows).toContain("PАвтонабор: пауза и продолжение (русская раскладка: З)");
    await a.page.keyboard.press("Escape");
    await sleep(SECONDS * 1000 + 1000);
    expect(invitesTo(phone)).toBe(0);
    // The pause outlives a reload of the page (this tab remembers it).
    await a.page.reload();
    await expectText(a.page, "autodial-stopped", "Автонабор на паузе");
    await sleep(SECONDS * 1000);
    expect(invitesTo(phone)).toBe(0);
    // The P key resumes: a fresh countdown, then the call.
    await a.page.keyboard.press("KeyP");
    expect(await countdown(a.page)).toBeGreaterThanOrEqual(SECONDS - 1);
    await carrier.waitForMessage(new RegExp(`INVITE sip:${digits(phone)}@`), 10_000);
    await expectText(a.page, "call-state", `Разговор: ${digits(phone)}`);
    await a.page.click("[data-testid=hang-up-button]");
    // Leave the next tests unpaused.
    expect(await a.page.getByTestId("autodial-pause").textContent()).toContain("Пауза");
  });
});

describe("a break", () => {
  it("stops a running countdown, and the panel says why", async () => {
    await startCarrier({ answer: { ringMs: 200 } });
    const phone = "+38 (067) 111-30-21";
    const a = await autodialManager([phone]);
    await countdown(a.page);
    await a.page.getByTestId("break-toggle").first().click();
    await expectText(a.page, "autodial-stopped", "Автонабор не звонит во время перерыва");
    await sleep(SECONDS * 1000 + 1500);
    expect(invitesTo(phone)).toBe(0);
  });
});

describe("the line looks down", () => {
  it("after two calls in a row failed on the network, the next lead is not dialled and the panel says why", async () => {
    const carrier = await startCarrier({ reject: { code: 503, reason: "Service Unavailable" } });
    const phones = ["+38 (067) 111-30-31", "+38 (067) 111-30-32", "+38 (067) 111-30-33"];
    const a = await autodialManager(phones);
    // The first two are dialled by themselves and fail at the carrier.
    await carrier.waitForMessage(new RegExp(`INVITE sip:${digits(phones[0])}@`), 10_000);
    await expectText(a.page, "call-state", "Ошибка вызова");
    await pressRefusal(a.page);
    await expect.poll(() => a.page.locator("[data-testid=lead-name]").textContent()).toBe("Клиент 2");
    await carrier.waitForMessage(new RegExp(`INVITE sip:${digits(phones[1])}@`), 10_000);
    await expectText(a.page, "call-state", "Ошибка вызова");
    await pressRefusal(a.page);
    await expect.poll(() => a.page.locator("[data-testid=lead-name]").textContent()).toBe("Клиент 3");
    await expectText(a.page, "autodial-stopped", "Похоже, линия не работает: два звонка подряд не прошли по сети");
    await sleep(SECONDS * 1000 + 1500);
    expect(invitesTo(phones[2])).toBe(0);
    expect(await a.page.locator("[data-testid=autodial][data-state=countdown]").count()).toBe(0);
  });
});

/** Screenshots for a look (SCREENS_DIR=/tmp/shots npx vitest run test/e2e/autodial.test.ts -t screenshots). */
describe.runIf(process.env.SCREENS_DIR)("screenshots", () => {
  it("the countdown and a stopped strip at 390 and 1440, light and dark", async () => {
    await startCarrier({ answer: { ringMs: 200 } });
    const a = await autodialManager(["+38 (067) 111-30-41"]);
    const [user] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, a.manager.user.id));
    await e.db.update(filters).set({ autodialSeconds: 120 }).where(eq(filters.id, user.topic));
    const dir = process.env.SCREENS_DIR!;
    for (const theme of ["light", "dark"]) {
      if (theme === "dark") await a.page.context().addCookies([{ name: "theme", value: "ImRhcmsi", url: e.baseUrl }]);
      for (const width of [390, 1440]) {
        await a.page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await a.page.reload();
        await countdown(a.page);
        await a.page.screenshot({ path: `${dir}/autodial-countdown-${width}-${theme}.png`, fullPage: width === 390 });
      }
      await a.page.getByTestId("autodial-pause").click();
      await expectText(a.page, "autodial-stopped", "Автонабор на паузе");
      await a.page.screenshot({ path: `${dir}/autodial-paused-1440-${theme}.png` });
      await a.page.getByTestId("autodial-pause").click();
    }
  }, 120_000);
});

// This file's stack has neither TRUNK_CALLER_ID nor TRUNK_DIDS: the case is proved here rather than on a Kamailio
// of its own (issue 42).
describe("a trunk without TRUNK_CALLER_ID", () => {
  it("shows the client the topic's «Номер линии», and the manager's extension for a topic without one", async () => {
    const carrier = await startCarrier({ reject: { code: 486, reason: "Busy Here" } });
    /** What the carrier is shown of a call from `a`'s panel: the From and P-Asserted-Identity of its INVITE. */
    const shownOf = async (a: Awaited<ReturnType<typeof managerWithLead>>) => {
      await a.page.click("[data-testid=call-button]");
      const invite = await carrier.waitForMessage(new RegExp(`INVITE sip:${digits(a.lead.phone)}@[^\\n]*\\n(?:[^\\n]+\\n)*`));
      await expectText(a.page, "call-state", "Ошибка вызова: абонент занят");
      const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(invite)?.[1].trim();
      return { from: header("From"), identity: header("P-Asserted-Identity") };
    };
    const numbered = await managerWithLead(e, stack, "+38 (067) 111-39-01");
    const [{ topic }] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, numbered.manager.user.id));
    await e.db.update(filters).set({ inboundNumber: "380441239901" }).where(eq(filters.id, topic!));
    try {
      const shown = await shownOf(numbered);
      expect(shown.from).toMatch(/^<sip:380441239901@/);
      expect(shown.identity).toMatch(/^<sip:380441239901@/);
    } finally {
      await e.db.update(filters).set({ inboundNumber: "" }).where(eq(filters.id, topic!));
    }
    const plain = await managerWithLead(e, stack, "+38 (067) 111-39-02");
    const extension = await shownOf(plain);
    expect(extension.from).toMatch(new RegExp(`^<sip:${plain.sipLogin}@`));
    expect(extension.identity).toBeUndefined();
  });
});
