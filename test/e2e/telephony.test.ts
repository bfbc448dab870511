import { createHash } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, callbacks, contacts, filters, managerBreaks, settings, users } from "../../db/schema";
import { allowPageError, holdPageData, launchBrowser, saysAfter, waitForHydration } from "../helpers/browser";
import { toneShare, toneWav } from "../helpers/recordings";
import { AUDIBLE, elementOutput, toneLevel } from "../sip/page-audio";
import { endedCallsOf } from "../helpers/calls";
import { expectText, grows, inboundPackets, managerWithLead as managerWithLeadOn, type ManagerOptions, shoot, useCallPath } from "../sip/call-page";
import { messagesStarting, partyOf } from "../sip/carrier";

/**
 * The whole call path on loopback, with the production stack of telephony/: Chromium (fake microphone) logged in
 * as a manager → Kamailio (WebSocket, digest auth against this app) → rtpengine (WebRTC to plain RTP) → a
 * carrier played by SIPp on UDP, whose media is echoed back by the test (test/sip/carrier.ts).
 */
const SECRET = "telephony-e2e-shared-secret-0123456789";
// The trunk as a carrier sets it up: a login and password for its digest, the number clients see, and a DID
// (a number of the trunk) that rings one manager.
const TRUNK = { login: "trunk-login", password: "trunk-secret-1", callerId: "380441234567" };
const DID = { number: "380449990000", extension: "4900" };
const { e, stack, media, startCarrier } = useCallPath("telephony", SECRET, {
  ringTimeoutSeconds: 6,
  callerId: TRUNK.callerId,
  trunkLogin: TRUNK.login,
  trunkPassword: TRUNK.password,
  dids: { [DID.number]: DID.extension },
});

/** A manager whose current lead has `phone`, logged in on /leadpanel, softphone registered through Kamailio. */
const managerWithLead = (phone: string, options: ManagerOptions = {}) => managerWithLeadOn(e, stack, phone, options);

describe("a call from the lead panel to a phone through the carrier", () => {
  it("reaches the carrier as plain RTP, plays the carrier's audio in the browser, and hangs up with BYE", async () => {
    const carrier = await startCarrier({ answer: { ringMs: 300 } });
    const a = await managerWithLead("+38 (067) 123-45-67");
    // Issue 41 §14: the client's history follows the call log (here the SIP proxy's) by itself, not by the layout's
    // 15 s refresh, held back until the hang-up has been seen there.
    const refreshes = await holdPageData(a.page);

    await a.page.click("[data-testid=call-button]");
    // Dialled as digits, authenticated by Kamailio against this app's users.
    const invite = await carrier.waitForMessage(/INVITE sip:380671234567@[\s\S]*?m=audio[^\n]*\n[\s\S]*?(?=\n\n|$)/);
    expect(invite).toMatch(/m=audio \d+ RTP\/AVP /);
    expect(invite).not.toMatch(/a=fingerprint|a=ice-ufrag|a=candidate|RTP\/SAVPF|UDP\/TLS/);
    // PCMU by its static payload type (no a=rtpmap restating RFC 3551, decision 087).
    expect(invite).toMatch(/^m=audio \d+ RTP\/AVP [\d ]*\b0\b/m);

    await expectText(a.page, "call-state", "Разговор: 380671234567");
    const ack = await carrier.waitForMessage(/ACK sip:carrier@[\s\S]*?\r?\n\r?\n/);
    // The carrier learns no more of the browser from the call's ACK and BYE than from its INVITE (issue 42).
    expect(ack).not.toMatch(/^(User-Agent|Supported):/m);
    // Media both ways: what the browser sends reaches the carrier, which sends it back to the browser.
    const first = await grows(() => inboundPackets(a.page), 0);
    await grows(() => inboundPackets(a.page), first + 20);
    expect(media.packets()).toBeGreaterThan(20);

    await expectText(a.page, "client-history", "Исходящий звонок: идёт", 2_000);

    await a.page.click("[data-testid=hang-up-button]");
    // It said «Звонок: идёт» for 12.5 s after the hang-up; now within 2 s of it.
    await expectText(a.page, "client-history", "Исходящий звонок: разговор", 2_000);
    await refreshes();
    await expectText(a.page, "call-state", "Звонок завершён");
    expect(await carrier.waitForMessage(/BYE sip:carrier@[\s\S]*?\r?\n\r?\n/)).not.toMatch(/^(User-Agent|Supported):/m);
    await carrier.waitForMessage(/SIP\/2.0 200 OK[\s\S]*CSeq: \d+ BYE/);
    // rtpengine at its default level (telephony/bin/rtpengine) tells the admin's journal of each call and its packets.
    expect(stack.rtpengine.log()).toMatch(/\[core\] Final packet stats/);
    // The call log: the lead's client, the number as dialled, answered, with its talk time.
    const [lead] = await e.db.select().from(contacts).where(eq(contacts.heldBy, a.manager.user.id));
    const [call] = await endedCallsOf(e.db, a.manager.user.id, 1);
    expect(call).toMatchObject({ contactId: lead.id, number: "380671234567", direction: "out", outcome: "answered", sipCode: null });
    // The talk time is the answered-to-ended span rounded to the second (issue 41 §14).
    expect(Math.abs((call.endedAt!.getTime() - call.answeredAt!.getTime()) / 1000 - call.talkSeconds)).toBeLessThanOrEqual(0.5);
  });

  it.each([
    [486, "Busy Here", "Ошибка вызова: абонент занят", "busy", "Абонент занят"],
    [480, "Temporarily Unavailable", "Ошибка вызова: абонент недоступен", "no_answer", "Абонент недоступен"],
  ])("shows the carrier's %i %s in Russian and logs the call", async (code, reason, message, outcome, logReason) => {
    const carrier = await startCarrier({ reject: { code, reason } });
    const a = await managerWithLead("+38 (067) 765-43-21");
    await a.page.click("[data-testid=call-button]");
    await carrier.waitForMessage(/INVITE sip:380677654321@/);
    await expectText(a.page, "call-state", message);
    await expect(a.page.locator("[role=status]", { hasText: message }).first().waitFor()).resolves.toBeUndefined();
    // The line is free again: no hang-up button left.
    expect(await a.page.locator("[data-testid=hang-up-button]").count()).toBe(0);
    expect((await endedCallsOf(e.db, a.manager.user.id, 1))[0]).toMatchObject({ outcome, sipCode: code, reason: logReason, talkSeconds: 0 });
  });
});

describe("a call nobody answers", () => {
  it("ends after CALL_RING_TIMEOUT with Ошибка вызова: абонент не отвечает, and Kamailio cancels it at the carrier", async () => {
    const carrier = await startCarrier({ answer: { ringMs: 60_000 } });
    const a = await managerWithLead("+38 (067) 000-00-09");
    await a.page.click("[data-testid=call-button]");
    await carrier.waitForMessage(/SIP\/2.0 180 Ringing/);
    await expectText(a.page, "call-state", "Ошибка вызова: абонент не отвечает", 20_000);
    await carrier.waitForMessage(/CANCEL sip:380670000009@/);
    expect(await a.page.locator("[data-testid=hang-up-button]").count()).toBe(0);
    expect((await endedCallsOf(e.db, a.manager.user.id, 1))[0]).toMatchObject({ outcome: "no_answer", sipCode: 408 });
  });
});

describe("the footer's test call (210)", () => {
  it("is answered by the stack itself, which sends the manager's own voice back", async () => {
    const a = await managerWithLead("+38 (067) 000-00-01");
    const before = media.packets();
    await a.page.click("[data-testid=test-call]");
    await expectText(a.page, "call-state", "Разговор: 210");
    await stack.kamailio.waitForLog(/relay INVITE from \d+ to echo/);
    // Only the fake microphone's own audio can come back: nothing else sends to this call.
    const first = await grows(() => inboundPackets(a.page), 0);
    await grows(() => inboundPackets(a.page), first + 20);
    // The carrier was never involved.
    expect(media.packets()).toBe(before);
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
    await stack.kamailio.waitForLog(/relay in-dialog BYE/);
  });
});

describe("registration against the app's users", () => {
  it("refuses a wrong SIP password with a clear message and does not retry", async () => {
    // The browser is handed a password the app's users table does not hold (as with a PBX whose copy went
    // stale): the page and its loader data are rewritten on the way in.
    const a = await managerWithLead("+38 (067) 000-00-02", { expectRegistered: false, staleSipPassword: "wrong-password" });
    await expectText(a.page, "call-state", "Телефон не подключён: неверный SIP логин или пароль").catch((error) => {
      throw new Error(`${error.message}\n${stack.kamailio.log().slice(-3000)}`);
    });
    const refusals = () => (stack.kamailio.log().match(new RegExp(`wrong SIP password for ${a.sipLogin}\\b`, "g")) ?? []).length;
    const seen = refusals();
    expect(seen).toBeGreaterThanOrEqual(1);
    // No retry storm: nothing more in the next 6 seconds (longer than the reconnect delay).
    await a.page.waitForTimeout(6_000);
    expect(refusals()).toBe(seen);
    // Позвонить is greyed (aria-disabled: Playwright needs force) and a press says why (issue 31).
    await saysAfter(
      a.page,
      () => a.page.click("[data-testid=call-button]", { force: true }),
      /^Позвонить нельзя: телефон не подключён \(неверный SIP логин или пароль\)/,
    );
  });
});

describe("Kamailio stopped before the page loads", () => {
  it("shows Телефон не подключён, then registers by itself once Kamailio is back", async () => {
    // Kamailio is down on purpose: the browser logs the softphone's WebSocket failing to connect.
    allowPageError(/WebSocket connection to 'ws:\/\/127\.0\.0\.1:\d+\/' failed: Error in connection establishment: net::ERR_CONNECTION_REFUSED/);
    await stack.stopKamailio();
    let a!: Awaited<ReturnType<typeof managerWithLead>>;
    try {
      a = await managerWithLead("+38 (067) 000-00-10", { expectRegistered: false });
      await expectText(a.page, "call-state", "Телефон не подключён");
      // Greyed and saying why (issue 31); it may be reconnecting at that moment. The 2 s toast is recorded by the page
      // from before the click: a locator's wait after it missed it on a loaded machine (a whole run, 2026-12-01).
      await saysAfter(a.page, () => a.page.click("[data-testid=call-button]", { force: true }), /^Позвонить (пока )?нельзя: телефон/);
    } finally {
      await stack.startKamailio();
    }
    // The softphone retries every 5 s on its own.
    await expectText(a.page, "call-state", "Телефон готов", 30_000);
    await stack.kamailio.waitForLog(new RegExp(`registered ${a.sipLogin}\\b`));
  });
});

describe("Kamailio stopped in the middle of a call", () => {
  it("ends the call with a clear message, registers again by itself when Kamailio is back, and the restarted Kamailio ends the carrier's leg", async () => {
    const carrier = await startCarrier({ answer: {} });
    const a = await managerWithLead("+38 (067) 000-00-03");
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380670000003");
    await carrier.waitForMessage(/ACK sip:carrier@/);

    await stack.stopKamailio();
    await expectText(a.page, "call-state", "Связь с сервером телефонии потеряна");
    await expect(a.page.locator("[role=status]", { hasText: "Связь с сервером телефонии потеряна" }).first().waitFor()).resolves.toBeUndefined();
    expect(await a.page.locator("[data-testid=hang-up-button]").count()).toBe(0);
    // Nobody told the carrier: its leg is still up.
    expect(carrier.messages()).not.toMatch(/BYE sip:carrier@/);

    await stack.startKamailio();
    // The softphone retries every 5 s on its own (a restarted Kamailio on a machine kept busy took past 30 s to
    // take it: the caps below are for a machine at a load of 20, the test goes on as soon as each thing happens).
    await expectText(a.page, "call-state", "Телефон готов", 60_000).catch((error) => {
      throw new Error(`${error.message}\n${stack.kamailio.log().slice(-2500)}`);
    });
    await stack.kamailio.waitForLog(new RegExp(`registered ${a.sipLogin}\\b`));

    // The carrier's leg outlived the old Kamailio. The new one read the call back (written at shutdown) and,
    // its browser being gone with the old WebSocket, hangs up at the carrier (decision 029).
    await carrier.waitForMessage(/BYE sip:carrier@/, 40_000).catch((error) => {
      throw new Error(
        `${error.message.slice(0, 300)}\n${stack.kamailio
          .log()
          .split("\n")
          .filter((l) => /dlg|dialog|htable|stale|db_text|ERROR|WARN/i.test(l))
          .slice(-30)
          .join("\n")}`,
      );
    });
    await stack.kamailio.waitForLog(/ending call \S+ left over from before the restart/);
    await carrier.waitForMessage(/SIP\/2.0 200 OK[\s\S]*CSeq: \d+ BYE/);
    // The BYE comes from the dialog read back from disk: still the From the INVITE carried, the caller ID with its
    // tag, never the manager's extension (event_route[tm:local-request]).
    const [invite] = messagesStarting(carrier.messages(), /^INVITE sip:/);
    const [bye] = messagesStarting(carrier.messages(), /^BYE sip:carrier@/);
    expect(partyOf(bye, "From")).toEqual(partyOf(invite, "From"));
    expect(partyOf(bye, "From").uri).toMatch(new RegExp(`^sip:${TRUNK.callerId}@`));
  }, 180_000);
});

describe("a trunk whose carrier demands digest authentication", () => {
  it.each([
    [407, "Proxy Authentication Required", "Proxy-Authorization"],
    [401, "Unauthorized", "Authorization"],
  ] as const)(
    "answers the carrier's %i with the trunk login's digest and sends the caller ID in From and P-Asserted-Identity",
    async (code, reason, header) => {
      const carrier = await startCarrier({ answer: { challenge: code } });
      const digits = code === 407 ? "380670000011" : "380670000013";
      const a = await managerWithLead(`+${digits}`);
      await a.page.click("[data-testid=call-button]");
      await carrier.waitForMessage(new RegExp(`SIP/2.0 ${code} ${reason}`));
      // The repeated INVITE: the carrier's own check of the digest, done here with the trunk's password.
      const authorised = await carrier.waitForMessage(new RegExp(`INVITE sip:${digits}@[^\\n]*\\n(?:[^\\n]+\\n)*?${header}:[^\\n]*`));
      const credentials = authorised.split("\n").find((line) => line.startsWith(`${header}:`))!;
      const field = (name: string) => credentials.match(new RegExp(`${name}="?([^",]*)"?`))?.[1] ?? "";
      expect({ username: field("username"), realm: field("realm") }).toEqual({ username: TRUNK.login, realm: "carrier.example" });
      const md5 = (text: string) => createHash("md5").update(text).digest("hex");
      const expected = md5(`${md5(`${TRUNK.login}:carrier.example:${TRUNK.password}`)}:${field("nonce")}:${md5(`INVITE:${field("uri")}`)}`);
      expect(field("response")).toBe(expected);
      expect(authorised).not.toContain(TRUNK.password);
      // The client sees the trunk's number, never the manager's extension.
      const headers = authorised.split("\n");
      expect(headers.find((h) => /^From:/i.test(h))).toMatch(new RegExp(`<sip:${TRUNK.callerId}@`));
      expect(headers.find((h) => /^P-Asserted-Identity:/i.test(h))).toMatch(new RegExp(`<sip:${TRUNK.callerId}@`));
      expect(authorised).not.toMatch(new RegExp(`sip:${a.sipLogin}@`));
      await expectText(a.page, "call-state", `Разговор: ${digits}`);
      await a.page.click("[data-testid=hang-up-button]");
      await expectText(a.page, "call-state", "Звонок завершён");
      await carrier.waitForMessage(/BYE sip:carrier@/);
      expect((await endedCallsOf(e.db, a.manager.user.id, 1))[0]).toMatchObject({ outcome: "answered", number: digits });
    },
  );
});

describe("a topic's trunk number where TRUNK_DIDS lists the trunk's numbers (decision 083)", () => {
  it("shows the carrier a topic's number that is one of them, and TRUNK_CALLER_ID, with the reason in the log, for one that is not", async () => {
    const carrier = await startCarrier({ reject: { code: 486, reason: "Busy Here" } });
    const topics: number[] = [];
    /** A manager whose topic (on his lead panel) has `inboundNumber` as its «Номер линии»: the From and P-Asserted-Identity his call sends. */
    const shownFor = async (digits: string, inboundNumber: string) => {
      const m = await managerWithLead(`+${digits}`);
      const [{ topic }] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, m.manager.user.id));
      topics.push(topic!);
      await e.db.update(filters).set({ inboundNumber }).where(eq(filters.id, topic!));
      await m.page.click("[data-testid=call-button]");
      const invite = await carrier.waitForMessage(new RegExp(`INVITE sip:${digits}@[^\\n]*\\n(?:[^\\n]+\\n)*`));
      await expectText(m.page, "call-state", "Ошибка вызова: абонент занят");
      expect(invite).not.toContain(`sip:${m.sipLogin}@`);
      const header = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, "im").exec(invite)?.[1].trim();
      return { from: header("From"), identity: header("P-Asserted-Identity") };
    };
    try {
      const listed = await shownFor("380670000083", DID.number);
      expect(listed.from).toMatch(new RegExp(`^<sip:${DID.number}@`));
      expect(listed.identity).toMatch(new RegExp(`^<sip:${DID.number}@`));
      // A number the trunk does not list: the carrier would refuse or rewrite it; the call shows the trunk's own.
      const unlisted = await shownFor("380670000084", "380441230084");
      expect(unlisted.from).toMatch(new RegExp(`^<sip:${TRUNK.callerId}@`));
      expect(unlisted.identity).toMatch(new RegExp(`^<sip:${TRUNK.callerId}@`));
      await stack.kamailio.waitForLog(
        /the topic's number 380441230084 is not in TRUNK_DIDS nor TRUNK_CALLER_ID, the call shows TRUNK_CALLER_ID \(380441234567\)/,
      );
    } finally {
      // The DID's number is routed by topic for calls in (rule 3): the other tests here must not reach these managers.
      for (const topic of topics) await e.db.update(filters).set({ inboundNumber: "" }).where(eq(filters.id, topic));
    }
  });
});

describe("call controls in the lead panel (issue 15 part 2)", () => {
  it("holds with a re-INVITE that stops the media at the carrier, resumes, sends DTMF as RFC 4733 events, times the call and redials", async () => {
    const carrier = await startCarrier({ answer: {} });
    const a = await managerWithLead("+38 (067) 000-00-04");
    // Between calls the panel's state is the one place that says the phone is registered (issue 31).
    await expectText(a.page, "call-state", "Телефон готов");
    await a.page.click("[data-testid=call-button]");
    const invite = await carrier.waitForMessage(/INVITE sip:380670000004@[\s\S]*?telephone-event\/8000/);
    const dtmfType = Number(invite.match(/a=rtpmap:(\d+) telephone-event\/8000/)![1]);
    await expectText(a.page, "call-state", "Разговор: 380670000004");
    await grows(() => inboundPackets(a.page), 20);
    // The timer runs from the answer.
    await expect(a.page.locator("[data-testid=call-timer]").textContent()).resolves.toMatch(/^0:0\d$/);
    await expect(a.page.locator("[role=timer]").getAttribute("aria-label")).resolves.toBe("Длительность разговора");

    // DTMF: the keypad's keys reach the carrier as telephone events, in the order pressed.
    await a.page.click("[data-testid=keypad-button]");
    await a.page.getByRole("button", { name: "Тон 5" }).click();
    await a.page.getByRole("button", { name: "Тон #" }).click();
    await grows(() => media.dtmfDigits(dtmfType).length, 1);
    expect(media.dtmfDigits(dtmfType)).toBe("5#");
    await expectText(a.page, "dtmf-typed", "5#");

    // Hold: a re-INVITE with no media (inactive), still plain RTP towards the carrier; then nothing flows.
    const messagesBefore = carrier.messages().length;
    await a.page.getByRole("button", { name: "Удержание" }).click();
    await expectText(a.page, "call-state", "На удержании: 380670000004");
    const reinvite = (await carrier.waitForMessage(/INVITE sip:carrier@[\s\S]*?a=inactive/)).slice(0);
    expect(carrier.messages().slice(messagesBefore)).toMatch(/X-Offered: a=inactive/);
    expect(reinvite).not.toMatch(/a=fingerprint|a=ice-ufrag|RTP\/SAVPF/);
    await expect(a.page.getByRole("button", { name: "Снять с удержания" }).getAttribute("aria-pressed")).resolves.toBe("true");
    await a.page.waitForTimeout(1_000);
    const heldFrom = media.packets();
    await a.page.waitForTimeout(2_000);
    // About 100 packets in 2 s while talking; on hold at most a straggler or two.
    expect(media.packets() - heldFrom).toBeLessThan(10);

    // Resume: media flows again both ways.
    await a.page.getByRole("button", { name: "Снять с удержания" }).click();
    await expectText(a.page, "call-state", "Разговор: 380670000004");
    const resumedFrom = media.packets();
    await grows(() => media.packets(), resumedFrom + 20);
    const inbound = await inboundPackets(a.page);
    await grows(() => inboundPackets(a.page), inbound + 20);

    // Mute is a labelled toggle.
    await a.page.getByRole("button", { name: "Выключить микрофон" }).click();
    await expect(a.page.getByRole("button", { name: "Включить микрофон" }).getAttribute("aria-pressed")).resolves.toBe("true");

    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
    await carrier.waitForMessage(/BYE sip:carrier@/);

    // Повторить dials the same number again.
    const invites = () => (carrier.messages().match(/INVITE sip:380670000004@/g) ?? []).length;
    expect(invites()).toBe(1);
    await a.page.getByRole("button", { name: "Повторить вызов 380670000004" }).click();
    await expectText(a.page, "call-state", "Разговор: 380670000004");
    expect(invites()).toBe(2);
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
    // The redialled call is the same client's (issue 41): it is in his history, not a call without a contact.
    const redialled = (await endedCallsOf(e.db, a.manager.user.id, 2))[1];
    expect(redialled).toMatchObject({ contactId: a.lead.id, number: "380670000004" });

    // Issue 41: after a status press the next lead has no Повторить that would dial the previous client.
    await e.db
      .insert(contacts)
      .values({ databaseId: a.lead.databaseId, name: "Следующий", phone: "+380501234503", phoneKey: "380501234503", city: "Киев" });
    await a.page.getByRole("button", { name: /Отказ/ }).click();
    await expectText(a.page, "lead-phone", "050 123 4503");
    await expectText(a.page, "call-state", "Телефон готов");
    expect(await a.page.locator("[data-testid=redial-button]").count()).toBe(0);
  });
});

describe("a call between two managers' browsers", () => {
  it("holds and resumes: the other browser takes both re-INVITEs as they were offered, and both play each other again after", async () => {
    // Manager A's lead is manager B's extension: browser to browser through Kamailio, WebRTC on both sides.
    const b = await managerWithLead("+38 (067) 000-00-21");
    const a = await managerWithLead(b.sipLogin);
    await a.page.click("[data-testid=call-button]");
    await expectText(b.page, "softphone-state", `Входящий звонок: ${a.sipLogin}`);
    await b.page.click("[data-testid=softphone-answer]");
    await expectText(a.page, "call-state", `Разговор: ${b.sipLogin}`);
    await expectText(b.page, "softphone-state", `Разговор: ${a.sipLogin}`);

    const reInvites = () => (stack.kamailio.log().match(/relay in-dialog INVITE/g) ?? []).length;
    const before = reInvites();
    await a.page.getByRole("button", { name: "Удержание" }).click();
    await expectText(a.page, "call-state", `На удержании: ${b.sipLogin}`);
    await a.page.getByRole("button", { name: "Снять с удержания" }).click();
    await expectText(a.page, "call-state", `Разговор: ${b.sipLogin}`);
    // Both went through Kamailio (route[WITHINDLG] trims a browser's re-INVITE as for a carrier; B's browser takes it).
    expect(reInvites() - before).toBe(2);
    // Each page's call element plays the other's voice again.
    for (const page of [a.page, b.page]) {
      const from = await inboundPackets(page);
      await grows(() => inboundPackets(page), from + 20);
      await expect.poll(() => playing(page), { timeout: 10_000 }).toBe(true);
    }
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(b.page, "softphone-state", "Звонок завершён");
  });
});

/** The page's call element plays: a stream with audio, not paused or muted, its time advancing. */
function playing(page: Page) {
  return page.evaluate(async () => {
    const audio = document.querySelector<HTMLAudioElement>("audio[data-softphone-audio]");
    const stream = audio?.srcObject as MediaStream | null | undefined;
    if (!audio || !stream || stream.getAudioTracks().every((t) => t.readyState !== "live") || audio.paused || audio.muted) return false;
    const start = audio.currentTime;
    await new Promise((resolve) => setTimeout(resolve, 300));
    return audio.currentTime > start;
  });
}

describe("the microphone choice", () => {
  it("is offered between calls, remembered across reloads, and used by the next call", async () => {
    await startCarrier({ answer: {} });
    const a = await managerWithLead("+38 (067) 000-00-08");
    // The first call asks for the microphone; after it the browser names its (fake) devices.
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380670000008");
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
    const select = a.page.getByRole("combobox", { name: "Микрофон" });
    await select.waitFor();
    const options = await select
      .locator("option")
      .evaluateAll((all) => all.map((option) => ({ value: (option as HTMLOptionElement).value, label: option.textContent ?? "" })));
    const chosen = options.filter((option) => option.value !== "").at(-1)!;
    expect(chosen).toBeTruthy();
    await select.selectOption(chosen.value);

    await a.page.reload();
    await waitForHydration(a.page);
    await expectText(a.page, "call-state", "Телефон готов");
    // The picker names the devices once the browser has listed them (enumerateDevices answers after the page is
    // ready on a slow machine: CI, 2026-12-02, read "По умолчанию" at once); until then it shows the default.
    await expect.poll(() => a.page.getByRole("combobox", { name: "Микрофон" }).inputValue()).toBe(chosen.value);

    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380670000008");
    const used = await a.page.evaluate(() => {
      const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
      return pcs[pcs.length - 1].getSenders()[0].track?.label ?? "";
    });
    expect(used).toBe(chosen.label);
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
  });
});

describe("a call from the carrier to a manager", () => {
  it("rings the manager's browser, bridges the carrier's plain RTP to WebRTC, and the manager's hang-up reaches the carrier", async () => {
    const a = await managerWithLead("+38 (067) 000-00-05");
    const carrier = await startCarrier({
      callIn: { extension: a.sipLogin, kamailio: `127.0.0.1:${stack.ports.sip}` },
    });
    await expectText(a.page, "softphone-state", "Входящий звонок: 380501112233");
    await a.page.click("[data-testid=softphone-answer]");
    await expectText(a.page, "softphone-state", "Разговор: 380501112233");
    // The carrier got an answer it understands: plain RTP, no ICE or DTLS.
    const answer = await carrier.waitForMessage(/SIP\/2.0 200 OK[\s\S]*?m=audio[^\n]*/);
    expect(answer).toMatch(/m=audio \d+ RTP\/AVP /);
    expect(answer).not.toMatch(/a=fingerprint|a=ice-ufrag|RTP\/SAVPF/);
    // Its Contact names the browser's address once (the main reply route and the call's own both added it: a walk of
    // docs/telephony.md, 2026-12-01).
    const contact = /^Contact: .*$/m.exec(answer)?.[0] ?? "";
    expect(contact.match(/alias=/g)?.length, contact).toBe(1);
    const before = media.packets();
    await grows(() => media.packets(), before + 20);
    await grows(() => inboundPackets(a.page), 20);

    await a.page.click("[data-testid=softphone-hang-up]");
    await expectText(a.page, "softphone-state", "Звонок завершён");
    await carrier.waitForMessage(/BYE sip:380501112233@/);
  });
});

describe("a client calling one of the trunk's numbers (issue 42)", () => {
  // The manager says 440 Hz (Chromium's fake microphone plays a file); the client says 1000 Hz.
  let says440: Browser;
  beforeAll(async () => {
    says440 = await launchBrowser([`--use-file-for-fake-audio-capture=${toneWav(440, 30)}`], { full: true });
  });
  afterAll(async () => {
    await says440?.close();
  });

  it("rings the manager who called him before, whose panel then holds the caller and who hears him and is heard; on his break the topic's other manager, whose «Отклонить» leaves a missed call for the first", async () => {
    const kamailio = `127.0.0.1:${stack.ports.sip}`;
    // The client SIPp calls from (380501112233) is in a's base, and a called him an hour ago; a's panel holds another
    // client now. b works the same topic.
    const a = await managerWithLead("+38 (067) 000-00-14", { browser: says440 });
    const [caller] = await e.db
      .insert(contacts)
      .values({ databaseId: a.lead.databaseId, name: "Перезвонивший клиент", phone: "+380501112233", phoneKey: "380501112233", city: "Киев" })
      .returning();
    const b = await managerWithLead("+38 (067) 000-00-13");
    const [{ topic }] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, a.manager.user.id));
    await e.db.update(users).set({ gettingFilter: topic }).where(eq(users.id, b.manager.user.id));
    await e.db.insert(calls).values({
      userId: a.manager.user.id,
      contactId: caller.id,
      number: "380501112233",
      direction: "out",
      startedAt: sql`now() - interval '1 hour'`,
      endedAt: sql`now() - interval '59 minutes'`,
      outcome: "answered",
    });

    await startCarrier({ callIn: { extension: "380449990001", kamailio } });
    await expectText(a.page, "softphone-state", "Входящий звонок: 380501112233");
    await stack.kamailio.waitForLog(new RegExp(`the app rings manager ${a.sipLogin}\\b`));
    // The ringing shows the client's card: his name, topic, and the call out an hour ago.
    await expectText(a.page, "incoming-card", "Перезвонивший клиент");
    await expectText(a.page, "incoming-card", "Тематика");
    await expectText(a.page, "incoming-calls", "исходящий · разговор");
    await shoot(a.page, "inbound-ringing-card");
    expect(await b.page.locator("[data-testid=softphone-answer]").count()).toBe(0);
    await expectText(a.page, "lead-phone", "067 000 0014");
    // On the lead panel C (which calls the lead) answers the call ringing in, and calls nobody.
    await a.page.keyboard.press("KeyC");
    await expectText(a.page, "softphone-state", "Разговор: 380501112233");
    // Answered, the panel shows the caller's card, held to him (his lead before went back to the pool).
    await expectText(a.page, "lead-phone", "050 111 2233");
    // Both hear each other: the page's call element plays the client's 1000 Hz, the carrier receives a's 440 Hz.
    media.speak(1000);
    try {
      await expect
        .poll(async () => toneLevel(await elementOutput(a.page, "audio[data-softphone-audio]"), 1000), { timeout: 10_000 })
        .toBeGreaterThan(AUDIBLE);
      media.heard(true);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(toneShare(media.heard(), 8000, 440)).toBeGreaterThan(0.3);
    } finally {
      media.speak(null);
    }
    await a.page.click("[data-testid=softphone-hang-up]");
    await expectText(a.page, "softphone-state", "Звонок завершён");
    const [held] = await e.db.select().from(contacts).where(eq(contacts.id, caller.id));
    expect(held.heldBy).toBe(a.manager.user.id);
    // Two ended calls of his: the call out an hour ago and this one.
    const answered = (await endedCallsOf(e.db, a.manager.user.id, 2)).find((call) => call.direction === "in");
    expect(answered).toMatchObject({ direction: "in", outcome: "answered", byProxy: true, contactId: caller.id });

    // a on a break: the call rings b; b declines and nobody else is free: the carrier hears 480 with the reason.
    await e.db.insert(managerBreaks).values({ userId: a.manager.user.id });
    const carrier = await startCarrier({ callIn: { extension: "380449990001", kamailio } });
    await expectText(b.page, "softphone-state", "Входящий звонок: 380501112233");
    await b.page.click("[data-testid=softphone-reject]");
    await carrier.waitForMessage(/SIP\/2.0 480 Nobody Answered/);
    // The missed call is a callback due now in a's «Мои перезвоны».
    const [missed] = await e.db.select().from(callbacks).where(eq(callbacks.contactId, caller.id));
    expect(missed).toMatchObject({ userId: a.manager.user.id });
    expect(missed.statusText).toMatch(/^Пропущенный входящий, \d\d:\d\d$/);
    // …where he sees it, with the caller's name and number.
    await a.page.goto("/callbacks");
    await a.page.getByText(missed.statusText!).first().waitFor();
    expect(await a.page.locator("main").textContent()).toContain("Перезвонивший клиент");
    await shoot(a.page, "inbound-missed-callbacks");
    await e.db
      .update(managerBreaks)
      .set({ endedAt: sql`now()` })
      .where(eq(managerBreaks.userId, a.manager.user.id));
  });

  it("rings the next manager when the first lets it ring out, and a client who hangs up while it rings leaves a missed call for the manager who called him", async () => {
    const kamailio = `127.0.0.1:${stack.ports.sip}`;
    // A client of a's base whom a called half an hour ago; b works the same topic. One manager rings 5 s (the
    // setting's least), then the next.
    const client = "380501112299";
    const a = await managerWithLead("+38 (067) 000-00-16");
    const [caller] = await e.db
      .insert(contacts)
      .values({ databaseId: a.lead.databaseId, name: "Клиент, который не дождался", phone: `+${client}`, phoneKey: client, city: "Киев" })
      .returning();
    const b = await managerWithLead("+38 (067) 000-00-17");
    const [{ topic }] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, a.manager.user.id));
    await e.db.update(users).set({ gettingFilter: topic }).where(eq(users.id, b.manager.user.id));
    await e.db.insert(calls).values({
      userId: a.manager.user.id,
      contactId: caller.id,
      number: client,
      direction: "out",
      startedAt: sql`now() - interval '30 minutes'`,
      endedAt: sql`now() - interval '29 minutes'`,
      outcome: "answered",
    });
    await e.db.update(settings).set({ inboundRingSeconds: 5 }).where(eq(settings.id, 1));
    const inCallsOf = (userId: number) =>
      e.db
        .select()
        .from(calls)
        .where(sql`${calls.userId} = ${userId} and ${calls.direction} = 'in'`)
        .orderBy(calls.id);
    try {
      // a rings and does not answer: after the ring time Kamailio cancels his ringing and b rings.
      await startCarrier({ callIn: { extension: "380449990001", kamailio, from: client } });
      await expectText(a.page, "softphone-state", `Входящий звонок: ${client}`);
      const aRang = Date.now();
      await expectText(b.page, "softphone-state", `Входящий звонок: ${client}`, 20_000);
      const bRang = Date.now();
      expect(bRang - aRang, "a rang for").toBeGreaterThan(4_000);
      expect(bRang - aRang, "a rang for").toBeLessThan(10_000);
      // b answers at once (his ring lasts 5 s too; a loaded CI machine spent them on the checks below): the call goes
      // on with him, audio both ways, and it is his.
      await b.page.click("[data-testid=softphone-answer]");
      await expectText(b.page, "softphone-state", `Разговор: ${client}`);
      await a.page.locator("[data-testid=softphone-answer]").waitFor({ state: "detached" });
      await stack.kamailio.waitForLog(new RegExp(`rings the next manager ${b.sipLogin}\\b`));
      // a's log has the call he let ring out: not answered, Kamailio's 408.
      const [rungOut] = await inCallsOf(a.manager.user.id);
      expect(rungOut).toMatchObject({ outcome: "no_answer", sipCode: 408, answeredAt: null, byProxy: true, contactId: caller.id });
      await grows(() => inboundPackets(b.page), 20);
      await b.page.click("[data-testid=softphone-hang-up]");
      await expectText(b.page, "softphone-state", "Звонок завершён");
      const [taken] = await inCallsOf(b.manager.user.id);
      expect(taken).toMatchObject({ outcome: "answered", byProxy: true, contactId: caller.id });
      // Answered by someone: no missed call.
      expect(await e.db.select().from(callbacks).where(eq(callbacks.contactId, caller.id))).toEqual([]);

      // The client calls again and hangs up while a's page rings (CANCEL, 487): a missed call, a callback due now in
      // «Мои перезвоны» of a, who called him; nobody else was rung.
      const carrier = await startCarrier({ callIn: { extension: "380449990001", kamailio, from: client, cancelAfterMs: 3_000 } });
      await expectText(a.page, "softphone-state", `Входящий звонок: ${client}`);
      await carrier.waitForMessage(/SIP\/2.0 487 /);
      await a.page.locator("[data-testid=softphone-answer]").waitFor({ state: "detached" });
      expect(await b.page.locator("[data-testid=softphone-answer]").count()).toBe(0);
      await expect.poll(async () => (await inCallsOf(a.manager.user.id)).at(-1)?.sipCode).toBe(487);
      expect((await inCallsOf(a.manager.user.id)).at(-1)).toMatchObject({ outcome: "cancelled", answeredAt: null, contactId: caller.id });
      expect(await inCallsOf(b.manager.user.id)).toHaveLength(1);
      const [missed] = await e.db.select().from(callbacks).where(eq(callbacks.contactId, caller.id));
      expect(missed).toMatchObject({ userId: a.manager.user.id, handedAt: null });
      expect(missed.statusText).toMatch(/^Пропущенный входящий, \d\d:\d\d$/);
      expect(missed.dueAt.getTime()).toBeLessThanOrEqual(Date.now());
      await a.page.goto("/callbacks");
      await a.page.getByText(missed.statusText!).first().waitFor();
      expect(await a.page.locator("main").textContent()).toContain("Клиент, который не дождался");
    } finally {
      await e.db.update(settings).set({ inboundRingSeconds: 20 }).where(eq(settings.id, 1));
    }
  });

  it("rings the manager TRUNK_DIDS names for the number while the app cannot be asked", async () => {
    // The page's own report of the ringing call may meet the missing table: a 500 its browser logs.
    allowPageError(/the server responded with a status of 500/);
    const a = await managerWithLead("+38 (067) 000-00-12", { sipLogin: DID.extension });
    // The app's routing fails (here: the database table behind it is gone for the moment).
    await e.db.execute(sql`alter table calls rename to calls_away`);
    try {
      await startCarrier({ callIn: { extension: DID.number, kamailio: `127.0.0.1:${stack.ports.sip}` } });
      // Asked twice (an answer lost once is asked for again), then the fixed rule.
      await stack.kamailio.waitForLog(/inbound routing answered \d+ for a call from 380501112233 to \d+: asking once more/);
      await stack.kamailio.waitForLog(new RegExp(`DID ${DID.number} rings manager ${DID.extension} \\(the app did not answer\\)`));
    } finally {
      await e.db.execute(sql`alter table calls_away rename to calls`);
    }
    await expectText(a.page, "softphone-state", "Входящий звонок: 380501112233");
    await a.page.click("[data-testid=softphone-answer]");
    await expectText(a.page, "softphone-state", "Разговор: 380501112233");
    await grows(() => inboundPackets(a.page), 20);
    await a.page.click("[data-testid=softphone-hang-up]");
    await expectText(a.page, "softphone-state", "Звонок завершён");
  });
});

describe("a carrier that repeats its INVITE (issue 42)", () => {
  it("while the app is slow to answer, is told 100 Trying at once and rung for one call: the app asked once, the manager rung once", async () => {
    const a = await managerWithLead("+38 (067) 000-00-15");
    const client = "380501112277";
    const routings = () => (stack.kamailio.log().match(new RegExp(`call in from ${client} to [^:]+: the app rings manager`, "g")) ?? []).length;
    const before = routings();
    // The app's answer takes 2.5 s (its calls table held): a carrier that hears nothing repeats its INVITE after
    // 500 ms and 1.5 s (RFC 3261's T1). bench/calls part 6 found each repeat routed as another call under load: a
    // manager rung twice, or the carrier told 486 while one rang.
    const held = e.db.transaction(async (tx) => {
      await tx.execute(sql`lock table calls in access exclusive mode`);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const carrier = await startCarrier({ callIn: { extension: a.sipLogin, kamailio: `127.0.0.1:${stack.ports.sip}`, from: client } });
    await held;
    await expectText(a.page, "softphone-state", `Входящий звонок: ${client}`);
    await a.page.click("[data-testid=softphone-answer]");
    await expectText(a.page, "softphone-state", `Разговор: ${client}`);
    await a.page.click("[data-testid=softphone-hang-up]");
    await expectText(a.page, "softphone-state", "Звонок завершён");
    await carrier.waitForMessage(new RegExp(`BYE sip:${client}@`));
    expect(routings() - before).toBe(1);
    expect(carrier.messages().match(/^INVITE /gm)).toHaveLength(1);
    // The 100 came from Kamailio itself, which names no software and version to the carrier.
    expect(carrier.messages()).toMatch(/^SIP\/2\.0 100 Trying/m);
    expect(carrier.messages()).not.toMatch(/^Server:/im);
    const finals = carrier.messages().match(/^SIP\/2\.0 [2-6]\d\d .*$/gm) ?? [];
    expect(finals.filter((line) => !/^SIP\/2\.0 200 /.test(line))).toEqual([]);
    const logged = await e.db
      .select()
      .from(calls)
      .where(sql`${calls.number} = ${client} and ${calls.direction} = 'in'`);
    expect(logged.map((call) => call.outcome)).toEqual(["answered"]);
  });
});

describe("the app slow to take a call's events (issue 42)", () => {
  it("the manager talks at once, and his talk is timed from the carrier's answer though the app takes it 4 s later", async () => {
    const a = await managerWithLead("+38 (067) 000-00-16");
    const carrier = await startCarrier({ answer: { ringMs: 1_000 } });
    await a.page.click("[data-testid=call-button]");
    await carrier.waitForMessage(/INVITE sip:380670000016@/);
    // The call's row (opened by the proxy's check before the INVITE) is held for 4 s: the app takes «answered» only
    // then. Kamailio sends its events from a queue of its own (bench/calls part 6: sent from the SIP workers, they
    // held every message behind them under load), each with the time Kamailio saw it: the log times the talk from
    // the carrier's 200 OK, not from when the app got round to it (before, this call was logged as 0 s).
    const [opened] = await e.db
      .select({ id: calls.id })
      .from(calls)
      .where(sql`${calls.userId} = ${a.manager.user.id} and ${calls.number} = '380670000016' and ${calls.endedAt} is null`);
    let released = false;
    const held = e.db.transaction(async (tx) => {
      await tx.execute(sql`select id from calls where id = ${opened.id} for update`);
      await new Promise((resolve) => setTimeout(resolve, 4_000));
      released = true;
    });
    await expectText(a.page, "call-state", "Разговор: 380670000016", 2_500);
    expect(released).toBe(false);
    await held;
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
    // Nothing lost, and the talk counted from the 200 OK: at least the 4 s the row was held, less the ring.
    const [call] = await endedCallsOf(e.db, a.manager.user.id, 1);
    expect(call).toMatchObject({ id: opened.id, outcome: "answered" });
    expect(call.talkSeconds).toBeGreaterThanOrEqual(3);
  });

  it("is told a call's end again until it takes it: after failing for a while, the call is logged ended at the hang-up", async () => {
    // The page's own requests may meet the missing table: 500s its browser logs.
    allowPageError(/the server responded with a status of 500/);
    const a = await managerWithLead("+38 (067) 000-00-17");
    const carrier = await startCarrier({ answer: {} });
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380670000017");
    await carrier.waitForMessage(/ACK sip:carrier@/);
    const [open] = await e.db
      .select({ id: calls.id })
      .from(calls)
      .where(sql`${calls.userId} = ${a.manager.user.id} and ${calls.number} = '380670000017' and ${calls.endedAt} is null`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    // The app cannot write calls (here: their table is gone for the moment) when the manager hangs up.
    await e.db.execute(sql`alter table calls rename to calls_away`);
    try {
      await a.page.click("[data-testid=hang-up-button]");
      await carrier.waitForMessage(/BYE sip:carrier@/);
      await stack.kamailio.waitForLog(new RegExp(`the app did not take call ${open.id}: end \\(HTTP 500\\): telling it again in 3 s`));
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    } finally {
      await e.db.execute(sql`alter table calls_away rename to calls`);
    }
    // Told again, the app logs the end: the manager is free for the next call, and the talk is the 2 s before the
    // hang-up, not the seconds the app was failing.
    await stack.kamailio.waitForLog(new RegExp(`call ${open.id}: end reported to the app`));
    const [call] = await e.db.select().from(calls).where(eq(calls.id, open.id));
    expect(call.endedAt).not.toBeNull();
    expect(call.talkSeconds).toBeGreaterThanOrEqual(2);
    expect(call.talkSeconds).toBeLessThan(5);
  });
});

describe("a browser that dies mid-call", () => {
  it("has its call ended on the carrier's side by Kamailio when its WebSocket closes", async () => {
    const carrier = await startCarrier({ answer: {} });
    const a = await managerWithLead("+38 (067) 000-00-07");
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380670000007");
    await carrier.waitForMessage(/ACK sip:carrier@/);
    // The renderer crashes: no pagehide, no BYE from the page.
    const cdp = await a.page.context().newCDPSession(a.page);
    void cdp.send("Page.crash").catch(() => {});
    await stack.kamailio.waitForLog(/browser connection \S+ closed mid-call/, 20_000).catch((error) => {
      throw new Error(
        `${error.message.slice(0, 200)}\n${stack.kamailio
          .log()
          .split("\n")
          .filter((l) => /websocket|closed|ERROR|WARN|dlg|BYE/i.test(l))
          .slice(-30)
          .join("\n")}`,
      );
    });
    await carrier.waitForMessage(/BYE sip:carrier@/, 20_000);
    // The crashed page never ended its call in the log: the proxy did, as answered, with no sweep needed.
    const [call] = await endedCallsOf(e.db, a.manager.user.id, 1);
    expect(call).toMatchObject({ outcome: "answered", byProxy: true, contactId: Number(a.lead.id) });
  });
});

describe("rtpengine stopped", () => {
  it("fails the call at once with a message instead of sending WebRTC to the carrier, and calls work again once it is back", async () => {
    const carrier = await startCarrier({ answer: {} });
    const a = await managerWithLead("+38 (067) 000-00-06");
    await stack.stopRtpengine();
    try {
      await a.page.click("[data-testid=call-button]");
      await expectText(a.page, "call-state", "Ошибка вызова: ошибка сервера телефонии");
      await stack.kamailio.waitForLog(/rtpengine unavailable: INVITE from \d+ refused/);
      expect(carrier.messages()).not.toMatch(/INVITE sip:380670000006@/);
    } finally {
      await stack.startRtpengine();
    }
    // Kamailio tries rtpengine again 5 s after the failure.
    await a.page.waitForTimeout(6_000);
    await a.page.getByRole("button", { name: "Повторить вызов 380670000006" }).click();
    await expectText(a.page, "call-state", "Разговор: 380670000006");
    await grows(() => inboundPackets(a.page), 20);
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
  });
});
