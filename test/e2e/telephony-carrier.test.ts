import { eq, sql } from "drizzle-orm";
import { chromium, type Browser, type BrowserServer, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import pathModule from "node:path";
import { calls, contacts, doNotCall, filters, listenSessions, managerBreaks, users } from "../../db/schema";
import { escapedCallId } from "../../server/core/recordings/spool";
import { REALTIME_CHANNEL } from "../../server/realtime/protocol";
import { ADMIN, createUser } from "../helpers/app";
import { allowRefusal, allowPageError, holdPageData, launchBrowser, loginThroughPage, waitForHydration } from "../helpers/browser";
import { watchBrowser } from "../helpers/page-errors";
import { decodeRecording, toneShare, toneWav } from "../helpers/recordings";
import { endedCallsOf } from "../helpers/calls";
import { CHROMIUM_ARGS, FULL_CHROMIUM_PATH } from "../helpers/chromium";
import { expectText, grows, inboundPackets, managerWithLead, sendingCodec, shoot, startCallPath, useCallPath } from "../sip/call-page";
import { cseqOf, headerOf, messagesStarting, partyOf, startCarrier as startCarrierOn, wireBytes } from "../sip/carrier";
import { AUDIBLE, audibleAfterClick, elementOutput, SILENT, toneLevel } from "../sip/page-audio";
import { relayForgets, relayParties } from "../sip/rtpengine-control";
import { watchPeerConnections } from "../sip/peer-connections";

/**
 * What a carrier receives from the stack (issue 27): a trunk leg strict carriers accept, rules the proxy enforces
 * whatever the page does, a carrier that never answers, and a dead browser's call ended at the carrier and
 * logged by the proxy. Chromium → Kamailio → rtpengine → SIPp, all on loopback (test/sip/).
 */
const SECRET = "telephony-carrier-e2e-secret-0123456789";
const TRUNK = { login: "trunk-login", password: "trunk-secret-2", callerId: "380441234560" };
const { e, stack, media, startCarrier } = useCallPath("carrier", SECRET, {
  firstExtension: 5000,
  callerId: TRUNK.callerId,
  trunkLogin: TRUNK.login,
  trunkPassword: TRUNK.password,
});

/** The manager's topic records its calls (a recording's readiness shows when rtpengine let the call go). */
async function recorded(managerId: number) {
  const [{ topic }] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, managerId));
  await e.db.update(filters).set({ recordCalls: true }).where(eq(filters.id, topic!));
}
/** The manager's call now (the proxy's row). */
const callOf = async (managerId: number) => (await e.db.select().from(calls).where(eq(calls.userId, managerId)).orderBy(calls.id)).at(-1)!;
/**
 * After the hang-up at `hungUpAt`: rtpengine holds nothing of the call within 5 s, and its recording is ready within
 * 5 s (issue 39: a listened or whispered call lingered in rtpengine and its recording came from the 30 s fallback).
 */
async function letGoOf(managerId: number, hungUpAt: number) {
  const [call] = await endedCallsOf(e.db, managerId, 1);
  await relayForgets(stack.ports.ng, call.sipCallId!, 5_000 - (Date.now() - hungUpAt));
  let row = call;
  while (row.recording === "pending" && Date.now() - hungUpAt < 5_000) {
    await new Promise((r) => setTimeout(r, 100));
    [row] = await e.db.select().from(calls).where(eq(calls.id, call.id));
  }
  if (process.env.DEBUG_LISTEN) console.log("recording", row.recording, Date.now() - hungUpAt, "ms after the hang-up");
  expect(row.recording, `${Date.now() - hungUpAt} ms after the hang-up`).toBe("ready");
  expect(Date.now() - hungUpAt).toBeLessThan(5_000);
}
/** Hangs the manager's call up from his page; answers when. */
async function hangUp(page: Page) {
  const at = Date.now();
  await page.click("[data-testid=hang-up-button]");
  await expectText(page, "call-state", "Звонок завершён");
  return at;
}

describe("a strict carrier", () => {
  it("accepts the challenged INVITE's higher CSeq, its size and codecs, and a hold, a DTMF digit and a BYE after it", async () => {
    const carrier = await startCarrier({ answer: { challenge: 407, strict: true } });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-01");
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380671112201").catch((error) => {
      throw new Error(`${error.message}\n${carrier.messages().slice(-3000)}`);
    });
    const invites = messagesStarting(carrier.messages(), /^INVITE sip:380671112201@/);
    expect(invites).toHaveLength(2);
    const [challenged, authorised] = invites;
    // RFC 3261 §22.2: the repeated INVITE carries a higher CSeq.
    expect(cseqOf(authorised)).toBeGreaterThan(cseqOf(challenged));
    // Small enough for one UDP datagram on any link, with the credentials; only what carriers speak.
    expect(authorised).toMatch(/^Proxy-Authorization:/m);
    expect(wireBytes(authorised), authorised).toBeLessThan(1200);
    // Only the methods a call with the carrier uses (the browser's Allow also named MESSAGE, NOTIFY and REFER).
    expect(authorised).toMatch(/^Allow: INVITE,ACK,CANCEL,BYE,OPTIONS,INFO\r?$/m);
    expect(authorised).not.toMatch(/^a=rtcp:/m);
    // PCMA and PCMU by their static payload types alone (RFC 3551), telephone-event's dynamic one with its
    // a=rtpmap; no a=sendrecv, the default (decision 087).
    const rtpmaps = [...authorised.matchAll(/^a=rtpmap:\d+ ([^/\s]+)/gm)].map((m) => m[1]);
    expect(rtpmaps).toEqual(["telephone-event"]);
    expect(authorised).toMatch(/^m=audio \d+ RTP\/AVP 8 0 \d+\r?$/m);
    expect(authorised).not.toMatch(/^a=(sendrecv|sendonly|recvonly|inactive)/m);
    expect(authorised).not.toMatch(/a=ssrc|a=msid|a=extmap|a=fingerprint|a=ice-/);
    // The browser's leg is G.711 end to end too: nothing to transcode (decision 049).
    await grows(() => inboundPackets(a.page), 20);
    expect(await sendingCodec(a.page)).toMatch(/^audio\/PCM[AU]$/);

    // In the call: DTMF, hold and resume, then the hang-up; the strict carrier refuses any CSeq not above the last.
    const dtmfType = Number(/a=rtpmap:(\d+) telephone-event\/8000/.exec(authorised)![1]);
    await a.page.click("[data-testid=keypad-button]");
    await a.page.getByRole("button", { name: "Тон 7" }).click();
    await grows(() => media.dtmfDigits(dtmfType).length, 0);
    expect(media.dtmfDigits(dtmfType)).toBe("7");
    await a.page.getByRole("button", { name: "Удержание" }).click();
    await expectText(a.page, "call-state", "На удержании: 380671112201");
    await a.page.getByRole("button", { name: "Снять с удержания" }).click();
    await expectText(a.page, "call-state", "Разговор: 380671112201");
    await a.page.click("[data-testid=hang-up-button]");
    await expectText(a.page, "call-state", "Звонок завершён");
    await carrier.waitForMessage(/SIP\/2.0 200 OK[\s\S]*?CSeq: \d+ BYE/);
    const trace = carrier.messages();
    expect(trace).not.toMatch(/SIP\/2.0 (400|488|500|513) /);
    const inCall = messagesStarting(trace, /^(INVITE|BYE) sip:carrier@/);
    expect(inCall.map((m) => m.split(" ")[0])).toEqual(["INVITE", "INVITE", "BYE"]);
    const sequence = [cseqOf(authorised), ...inCall.map(cseqOf)];
    expect([...sequence].sort((x, y) => x - y)).toEqual(sequence);
    expect(new Set(sequence).size).toBe(sequence.length);
    expect((await endedCallsOf(e.db, a.manager.user.id, 1))[0]).toMatchObject({ outcome: "answered", byProxy: true });
  });
});

describe("the longest INVITE a carrier receives (issue 42)", () => {
  const MAX_SIP_DOMAIN = 32;
  const MAX_TRUNK_LOGIN = 32;
  it("is made of the longest settings telephony/bin/env.sh lets a site start with", () => {
    const envSh = pathModule.resolve(import.meta.dirname, "../../telephony/bin/env.sh");
    const start = (env: Record<string, string>) =>
      spawnSync("bash", ["-c", `source "${envSh}"`], { env: { NODE_ENV: "test", PATH: process.env.PATH, ...env }, encoding: "utf8" });
    expect(start({ SIP_DOMAIN: "d".repeat(MAX_SIP_DOMAIN), TRUNK_LOGIN: "l".repeat(MAX_TRUNK_LOGIN) }).status).toBe(0);
    const longDomain = start({ SIP_DOMAIN: "d".repeat(MAX_SIP_DOMAIN + 1) });
    expect(longDomain.status).toBe(64);
    expect(longDomain.stderr).toContain(`SIP_DOMAIN must be at most ${MAX_SIP_DOMAIN} characters`);
    const longLogin = start({ TRUNK_LOGIN: "l".repeat(MAX_TRUNK_LOGIN + 1) });
    expect(longLogin.status).toBe(64);
    expect(longLogin.stderr).toContain(`TRUNK_LOGIN must be at most ${MAX_TRUNK_LOGIN} characters`);
    expect(start({ TELEPHONY_IP: "2001:db8::5" }).stderr).toContain("TELEPHONY_IP must be an IPv4 address");
  });

  // The longest a site may set (telephony/bin/env.sh refuses longer): SIP_DOMAIN, which From, To and
  // P-Asserted-Identity carry, and TRUNK_LOGIN; a caller ID of E.164's 15 digits and a manager's SIP login of the
  // app's 50 characters (in no header the carrier sees). The carrier's own words taken long too: a realm of 32
  // characters, a nonce of 48 (Kamailio's own are 44, Asterisk's 8) and qop=auth, which adds cnonce and nc.
  const LONGEST = {
    domain: `pbx.${"a".repeat(MAX_SIP_DOMAIN - "pbx..example.com".length)}.example.com`,
    trunkLogin: "l".repeat(MAX_TRUNK_LOGIN),
    callerId: "380441234567890",
    sipLogin: "m".repeat(50),
    digest: { realm: `${"r".repeat(24)}.example`, nonce: "n".repeat(48), qop: true },
  };
  // RFC 3261 §18.1.1: a request within 200 bytes of the path's MTU, or over 1,300 bytes where it is not known, goes
  // over TCP; carriers take SIP over UDP, and many drop its fragments. Issue 42 asks for under 1,200 at worst.
  it("stays under 1,200 bytes with the longest names and addresses, and a strict carrier takes the call", async () => {
    expect(LONGEST.domain).toHaveLength(MAX_SIP_DOMAIN);
    const path = await startCallPath(SECRET, {
      domain: LONGEST.domain,
      callerId: LONGEST.callerId,
      trunkLogin: LONGEST.trunkLogin,
      trunkPassword: "p",
    });
    const carrier = await startCarrierOn(path.carrierPort, path.media, { answer: { challenge: 407, digest: LONGEST.digest, strict: true } });
    try {
      const a = await managerWithLead(path.e, path.stack, "+38 (067) 111-22-99", { sipLogin: LONGEST.sipLogin });
      await a.page.click("[data-testid=call-button]");
      // The strict carrier answers 513 to anything over 1,300 bytes: the call is taken.
      await expectText(a.page, "call-state", "Разговор: 380671112299").catch((error) => {
        throw new Error(`${error.message}\n${carrier.messages().slice(-3000)}`);
      });
      const [, authorised] = messagesStarting(carrier.messages(), /^INVITE sip:380671112299@/);
      expect(authorised).toContain(`Digest username="${LONGEST.trunkLogin}", realm="${LONGEST.digest.realm}"`);
      expect(headerOf(authorised, "From")).toContain(`<sip:${LONGEST.callerId}@${LONGEST.domain}>`);
      // The browser's Contact bare: no alias (Kamailio keeps its connection in the dialog), no transport=ws, no ob.
      expect(headerOf(authorised, "Contact")).toMatch(/^<sip:\w+@w\.invalid>$/);
      // What loopback cannot show, as a site would have it: every address the longest IPv4 text (Kamailio's in
      // Via and Record-Route, the browser's received in Via, the carrier's in the request URI and the digest,
      // rtpengine's in the SDP) and the dialled number E.164's 15 digits (IPv6: the stack listens on IPv4 only); and
      // what varies from call to call at its longest: the hash in Kamailio's branch (4 hex digits), sip.js's branch
      // (7 digits) and Chromium's SDP session id (19 digits, a positive 64-bit number).
      const worst = authorised
        .replaceAll("127.0.0.1", "255.255.255.255")
        .replaceAll("380671112299", "380671112299123")
        .replace(/(branch=z9hG4bK)[0-9a-f]+\./, (_, start: string) => `${start}ffff.`)
        .replace(/(SIP\/2\.0\/WSS? [^\n]*branch=z9hG4bK)\d+/, (_, start: string) => `${start}9999999`)
        .replace(/^o=- \d+/m, "o=- 9223372036854775807");
      if (process.env.DEBUG_SIZE) console.log(`${wireBytes(authorised)} bytes received, ${wireBytes(worst)} at worst:\n${worst}`);
      expect(wireBytes(worst), worst).toBeLessThan(1200);
      await hangUp(a.page);
      expect(await carrier.replyTo("BYE")).toBe("SIP/2.0 200 OK");
    } finally {
      await carrier.stop();
      await path.stop("longest");
    }
  }, 120_000);
});

describe("a carrier that hangs up", () => {
  it("ends the call on the page, logs it, and its BYE's 200 OK carries its own To, never the manager's extension", async () => {
    const carrier = await startCarrier({ hangUp: { afterMs: 1500 } });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-50");
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380671112250");
    await expectText(a.page, "call-state", "Звонок завершён");
    await carrier.waitForMessage(/SIP\/2.0 200 OK[\s\S]*?CSeq: 1 BYE/);
    const [bye] = messagesStarting(carrier.messages(), /^BYE /);
    const [ok] = messagesStarting(carrier.messages(), /^SIP\/2.0 200 OK/).filter((m) => /^CSeq: 1 BYE/m.test(m));
    // RFC 3261 §8.2.6.2: the reply's To is the request's. uac gives the browser its extension back in the BYE's To;
    // Kamailio puts the caller ID back in the reply (route[WITHINDLG], route[CARRIER_TO]).
    expect(headerOf(ok, "To")).toBe(headerOf(bye, "To"));
    expect(headerOf(ok, "To")).toContain(`sip:${TRUNK.callerId}@`);
    expect(ok).not.toContain(`sip:${a.sipLogin}@`);
    expect((await endedCallsOf(e.db, a.manager.user.id, 1))[0]).toMatchObject({ outcome: "answered", byProxy: true });
  });
});

describe("a topic with its own trunk number (decision 083)", () => {
  it("shows the carrier the topic's number in From and P-Asserted-Identity, and its BYE's 200 OK carries it back in To", async () => {
    const TOPIC_NUMBER = "380441230083";
    const carrier = await startCarrier({ hangUp: { afterMs: 1500 } });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-83");
    // The manager's topic (the one on his lead panel) has a «Номер линии»; TRUNK_DIDS is not set here: it is trusted.
    const [{ topic }] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, a.manager.user.id));
    await e.db.update(filters).set({ inboundNumber: TOPIC_NUMBER }).where(eq(filters.id, topic!));
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380671112283");
    await expectText(a.page, "call-state", "Звонок завершён");
    await carrier.waitForMessage(/SIP\/2.0 200 OK[\s\S]*?CSeq: 1 BYE/);
    const [invite] = messagesStarting(carrier.messages(), /^INVITE sip:380671112283@/);
    expect(headerOf(invite, "From")).toMatch(new RegExp(`^<sip:${TOPIC_NUMBER}@127\\.0\\.0\\.1>;tag=`));
    expect(headerOf(invite, "P-Asserted-Identity")).toBe(`<sip:${TOPIC_NUMBER}@127.0.0.1>`);
    // Neither the trunk's general number nor the manager's extension.
    expect(invite).not.toContain(TRUNK.callerId);
    expect(invite).not.toContain(`sip:${a.sipLogin}@`);
    // The carrier's BYE (its To is the From it saw) gets its own To back in the 200 OK (route[WITHINDLG]).
    const [bye] = messagesStarting(carrier.messages(), /^BYE /);
    const [ok] = messagesStarting(carrier.messages(), /^SIP\/2.0 200 OK/).filter((m) => /^CSeq: 1 BYE/m.test(m));
    expect(headerOf(bye, "To")).toContain(`sip:${TOPIC_NUMBER}@`);
    expect(headerOf(ok, "To")).toBe(headerOf(bye, "To"));
    expect(ok).not.toContain(`sip:${a.sipLogin}@`);
    expect((await endedCallsOf(e.db, a.manager.user.id, 1))[0]).toMatchObject({ outcome: "answered", byProxy: true, filterId: topic });
  });
});

describe("a recorded call (issue 28)", () => {
  it("holds the manager left and the client right, as long as the talk, ready within 10 s of the hang-up", async () => {
    await startCarrier({ answer: { ringMs: 100 } });
    // The manager says 440 Hz (Chromium's fake microphone plays a file); the client answers 1000 Hz.
    const mic = toneWav(440);
    const browser = await launchBrowser([`--use-file-for-fake-audio-capture=${mic}`], { full: true });
    media.speak(1000);
    try {
      const a = await managerWithLead(e, stack, "+38 (067) 111-22-40", { browser });
      const [{ topic }] = await e.db.select({ topic: users.gettingFilter }).from(users).where(eq(users.id, a.manager.user.id));
      await e.db.update(filters).set({ recordCalls: true }).where(eq(filters.id, topic));
      await a.page.click("[data-testid=call-button]");
      await expectText(a.page, "call-state", "Разговор: 380671112240");
      await grows(() => inboundPackets(a.page), 20);
      await new Promise((r) => setTimeout(r, 3_000));
      await a.page.click("[data-testid=hang-up-button]");
      await expectText(a.page, "call-state", "Звонок завершён");
      const hungUp = Date.now();
      let call = (await endedCallsOf(e.db, a.manager.user.id, 1))[0];
      while (call.recording === "pending" && Date.now() - hungUp < 10_000) {
        await new Promise((r) => setTimeout(r, 200));
        [call] = await e.db.select().from(calls).where(eq(calls.id, call.id));
      }
      expect(call, `${call.recordingError ?? ""}\n${stack.rtpengine.log().slice(-1500)}`).toMatchObject({ recording: "ready", byProxy: true });
      expect(Date.now() - hungUp).toBeLessThan(10_000);
      if (process.env.DEBUG_RECORDINGS) console.log("ready", Date.now() - hungUp, "ms after the hang-up");
      const talkMs = call.endedAt!.getTime() - call.answeredAt!.getTime();
      const { rate, channels } = decodeRecording(pathModule.join(e.app.deps.recordings.folder.audio, call.recordingFile!));
      expect(Math.abs(channels[0].length / rate - talkMs / 1000), `recording ${channels[0].length / rate} s, talk ${talkMs} ms`).toBeLessThan(0.5);
      const shares = {
        managerOwn: toneShare(channels[0], rate, 440),
        managerOther: toneShare(channels[0], rate, 1000),
        clientOwn: toneShare(channels[1], rate, 1000),
        clientOther: toneShare(channels[1], rate, 440),
      };
      const said = JSON.stringify(shares);
      // The manager's tone went through Chromium's audio processing (its fake microphone feeds WebRTC's noise
      // suppression and gain control): measured 0.62 of its channel here, the client's plain tone 0.98.
      expect(shares.managerOwn, said).toBeGreaterThan(0.3);
      expect(shares.managerOther, said).toBeLessThan(0.05);
      expect(shares.clientOwn, said).toBeGreaterThan(0.8);
      expect(shares.clientOther, said).toBeLessThan(0.05);
      if (process.env.DEBUG_RECORDINGS) console.log(said, "recording", channels[0].length / rate, "s, talk", talkMs, "ms");
      // rtpengine's pcap is gone once converted.
      expect(
        fs
          .readdirSync(pathModule.join(e.app.deps.recordings.folder.spool, "pcaps"))
          .filter((f) => f.startsWith(`${escapedCallId(call.sipCallId!)}-`)),
      ).toEqual([]);
    } finally {
      media.speak(null);
      await browser.close();
    }
  });
});

describe("a carrier that never answers", () => {
  it("fails the call within seconds with Ошибка вызова: оператор связи не отвечает, and logs it", async () => {
    const carrier = await startCarrier({ silent: true });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-02");
    const pressed = Date.now();
    await a.page.click("[data-testid=call-button]");
    await carrier.waitForMessage(/INVITE sip:380671112202@/);
    await expectText(a.page, "call-state", "Ошибка вызова: оператор связи не отвечает", 15_000);
    expect(Date.now() - pressed).toBeLessThan(9_000);
    expect(await a.page.locator("[data-testid=hang-up-button]").count()).toBe(0);
    const [call] = await endedCallsOf(e.db, a.manager.user.id, 1);
    expect(call).toMatchObject({ outcome: "failed", sipCode: 504, reason: "Оператор связи не отвечает", byProxy: true });
  });
});

describe("the proxy enforces the rules, not the page", () => {
  it("refuses a do-not-call number a modified page dials, and the panel says why", async () => {
    // The modified page reports its call to a do-not-call number, which the server refuses (400).
    allowRefusal(400);
    const carrier = await startCarrier({ answer: {} });
    const listed = "380671112203";
    await e.db.insert(doNotCall).values({ phoneKey: listed, phone: `+${listed}` });
    // The lead's phone is an allowed number; the page is made to believe it is the listed one.
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-04", { tamperedPhone: `+${listed}` });
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Ошибка вызова: номер в списке «Не звонить»");
    await expect(a.page.locator("[role=status]", { hasText: "номер в списке «Не звонить»" }).first().waitFor()).resolves.toBeUndefined();
    expect(carrier.messages()).not.toMatch(new RegExp(`INVITE sip:${listed}@`));
    await stack.kamailio.waitForLog(new RegExp(`call from ${a.sipLogin} to ${listed} refused by the app: Do Not Call`));
    const [call] = await endedCallsOf(e.db, a.manager.user.id, 1);
    expect(call).toMatchObject({ number: listed, outcome: "failed", sipCode: 403, reason: "Номер в списке «Не звонить»", contactId: null });
  });

  it("refuses a manager on a break, even when his page does not know it", async () => {
    const carrier = await startCarrier({ answer: {} });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-05");
    await e.db.insert(managerBreaks).values({ userId: a.manager.user.id });
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Ошибка вызова: вы на перерыве");
    expect(carrier.messages()).not.toMatch(/INVITE sip:380671112205@/);
    expect((await endedCallsOf(e.db, a.manager.user.id, 1))[0]).toMatchObject({ outcome: "failed", reason: "Вы на перерыве" });
  });

  it("refuses every call out while the app cannot be asked, never letting one through unchecked", async () => {
    // The test takes the calls table away: the page's call report fails with a 500, which the browser logs.
    allowPageError(/the server responded with a status of 500 .*\/calls[:?]/);
    // A data request already on its way when the route below is set is not held, and its 500 is logged too (CI saw
    // two of /leadpanel.data); what the page shows is checked below all the same.
    allowPageError(/the server responded with a status of 500 .*\/leadpanel\.data/);
    const carrier = await startCarrier({ answer: {} });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-06");
    // The page's own data requests (the layout's 15 s refresh among them) wait until the table is back: the server's
    // readiness check passes without it, so a refresh in that window read the panel's data, got a 500 and drew the
    // error page where the call's state was to be read (a CI failure). The proxy's check is what is tested here.
    const letGo = await holdPageData(a.page);
    // The app's call check fails (here: the database behind it is gone for the moment).
    await e.db.execute(sql`alter table calls rename to calls_away`);
    try {
      await a.page.click("[data-testid=call-button]");
      await expectText(a.page, "call-state", "Ошибка вызова: сервер приложения недоступен");
    } finally {
      await e.db.execute(sql`alter table calls_away rename to calls`);
      await letGo();
    }
    expect(carrier.messages()).not.toMatch(/INVITE sip:380671112206@/);
    await stack.kamailio.waitForLog(/the app's call check answered 500 for a call from \d+ to 380671112206/);
  });
});

describe("live listening from /users (issue 28)", () => {
  // The manager says 440 Hz or 660 Hz (Chromium's fake microphone plays a file, one file per browser); the
  // client answers 1000 Hz (the carrier's media socket); a whispering admin says 660 Hz.
  let says440: Browser;
  let says660: Browser;
  beforeAll(async () => {
    says440 = await launchBrowser([`--use-file-for-fake-audio-capture=${toneWav(440, 30)}`], { full: true });
    says660 = await launchBrowser([`--use-file-for-fake-audio-capture=${toneWav(660, 30)}`], { full: true });
    media.speak(1000);
  });
  afterAll(async () => {
    media.speak(null);
    await says440?.close();
    await says660?.close();
  });

  const pcsOf = (page: Page) => page.evaluate(() => (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs.length);
  /** Packets of the peer connection `index` (default: the last) from the party that sent the fewest: both grow. */
  const partiesHeard = (page: Page, index?: number) =>
    page.evaluate(async (index) => {
      const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
      const pc = pcs[index ?? pcs.length - 1];
      const counts: number[] = [];
      (await pc?.getStats())?.forEach((r) => {
        if (r.type === "inbound-rtp" && r.kind === "audio" && r.packetsReceived > 0) counts.push(r.packetsReceived);
      });
      return counts.length >= 2 ? Math.min(...counts) : 0;
    }, index);
  /**
   * What the page's element `label` plays (its output, test/sip/page-audio.ts): the level of each tone in it (the
   * RMS of that tone's part of the output, full scale 1), and whether it played at all.
   */
  async function tonesPlayed(page: Page, label: string, hz: number[], expected: number[]) {
    let played: { playing: boolean; levels: Record<number, number>; state: string } = { playing: false, levels: {}, state: "" };
    // On a loaded CI machine one 0.7 s window can hold a jitter-buffer gap, so the page gets up to three windows in
    // which the element plays every expected tone clearly.
    for (let attempt = 0; attempt < 3; attempt++) {
      const output = await elementOutput(page, `audio[data-relay-leg="${label}"]`);
      const levels = Object.fromEntries(hz.map((f) => [f, Number(toneLevel(output, f).toFixed(4))]));
      const state = `paused ${output.paused}, readyState ${output.readyState}, currentTime +${output.advanced.toFixed(2)} s in ${output.elapsed.toFixed(2)} s`;
      played = { playing: output.playing, levels, state };
      if (process.env.DEBUG_LISTEN) console.log(label, JSON.stringify(played));
      if (output.playing && expected.every((f) => levels[f] > AUDIBLE)) break;
    }
    return played;
  }
  /** The element plays both people of the call (the manager's tone and the client's) and nobody else. */
  async function expectParties(page: Page, label: string, manager: number, client: number, absent: number) {
    const played = await tonesPlayed(page, label, [manager, client, absent], [manager, client]);
    const said = JSON.stringify(played);
    expect(played.playing, said).toBe(true);
    expect(played.levels[manager], said).toBeGreaterThan(AUDIBLE);
    expect(played.levels[client], said).toBeGreaterThan(AUDIBLE);
    expect(played.levels[absent], said).toBeLessThan(SILENT);
  }
  const sessionsOf = (managerId: number) =>
    e.db.select().from(listenSessions).where(eq(listenSessions.managerId, managerId)).orderBy(listenSessions.id);
  async function adminOn(credentials: { login: string; password: string; accessKey: string }, browser?: Browser) {
    const page = browser ? await (await browser.newContext({ baseURL: e.baseUrl })).newPage() : await e.newPage();
    await watchPeerConnections(page);
    await loginThroughPage(page, credentials);
    await page.goto("/users");
    await waitForHydration(page);
    return page;
  }

  it("plays both sides of a manager's call to the admin, each tone heard, with nothing sent to the manager or the carrier, until Стоп", async () => {
    // Rings longer when screenshots are taken: the ringing row is one of them.
    const carrier = await startCarrier({ answer: { ringMs: process.env.SCREENS_DIR ? 10_000 : 5_000 } });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-90", { browser: says440 });
    await recorded(a.manager.user.id);
    const admin = await adminOn(ADMIN);
    const row = admin.locator(`[data-testid=online-row-${a.manager.user.login}]`);
    await a.page.click("[data-testid=call-button]");
    // While it rings there is nothing to hear yet: a page that asks is told so…
    await carrier.waitForMessage(/INVITE sip:380671112290@/);
    await expect.poll(() => callOf(a.manager.user.id).then((c) => c?.byProxy)).toBe(true);
    allowRefusal(409);
    const ringing = await admin.evaluate(async (id) => {
      const response = await fetch("/listen", { method: "POST", body: new URLSearchParams({ intent: "start", managerId: String(id) }) });
      return { status: response.status, body: await response.json() };
    }, a.manager.user.id);
    expect(ringing).toMatchObject({ status: 409, body: { message: "Звонок ещё не принят" } });
    // …and the row, which says the call is ringing, offers «Слушать» (not «Подсказать»): pressed now, it says so and
    // waits («Ждём ответа…»), then starts by itself once the client answers (issue 39).
    await expectText(admin, "agent-ringing", "идёт вызов");
    const toldWaiting = admin.getByText("Звонок ещё не принят: прослушивание начнётся, когда на звонок ответят").waitFor();
    await row.locator("[data-testid=listen]").click({ timeout: 5_000 });
    await toldWaiting;
    await expectText(admin, "listen-waiting", "Ждём ответа…");
    await shoot(admin, "users-ringing-waiting");
    expect(await row.locator("[data-testid=whisper]").count()).toBe(0);
    expect((await callOf(a.manager.user.id)).answeredAt, "the press came while the call rang").toBeNull();
    await expectText(a.page, "call-state", "Разговор: 380671112290");
    await row.locator("[data-testid=listen-stop]").waitFor({ timeout: 5_000 });
    expect(await admin.locator("[data-testid=agent-ringing]").count()).toBe(0);
    // While he listens, «Оценить» opens the call's scoring in a tab of its own, and the listening goes on here.
    const scoreLink = row.locator("[data-testid=score-live-call]");
    expect(await scoreLink.getAttribute("href")).toBe(`/quality/call/${(await callOf(a.manager.user.id)).id}`);
    const [scoring] = await Promise.all([admin.context().waitForEvent("page"), scoreLink.click()]);
    await scoring.waitForLoadState();
    expect(new URL(scoring.url()).pathname).toBe(`/quality/call/${(await callOf(a.manager.user.id)).id}`);
    await scoring.getByRole("heading", { level: 1, name: "Оценка звонка" }).waitFor();
    await scoring.close();
    expect(await row.locator("[data-testid=listen-stop]").isVisible()).toBe(true);
    // The row says how long the admin has listened, a running timer: it counts on (read twice, not at a given
    // second: on a loaded machine the page opened above can take longer than the second the timer showed).
    await expectText(admin, "listen-timer", "Слушаете · 0:");
    const listenedFor = async () => {
      const shown = /Слушаете · (\d+):(\d\d)/.exec(await admin.locator("[data-testid=listen-timer]").innerText());
      return shown ? Number(shown[1]) * 60 + Number(shown[2]) : -1;
    };
    const listenedFirst = await listenedFor();
    expect(listenedFirst).toBeGreaterThanOrEqual(0);
    await expect.poll(listenedFor, { timeout: 10_000 }).toBeGreaterThan(listenedFirst);
    await shoot(admin, "users-listening");
    // Past the 90 s mark, cheaply: the call's row made 100 s older (started, answered, last seen), as a call 100 s
    // in has it, and /users told to look again. The listening goes on, and the element still plays both people.
    await e.db
      .update(calls)
      .set({
        startedAt: sql`started_at - interval '100 seconds'`,
        answeredAt: sql`answered_at - interval '100 seconds'`,
        lastSeenAt: sql`last_seen_at - interval '100 seconds'`,
      })
      .where(eq(calls.userId, a.manager.user.id));
    await e.app.deps.hub.presenceChanged();
    await new Promise((r) => setTimeout(r, 1_000));
    await expectText(admin, "agent-state", "Разговор");
    expect(await row.locator("[data-testid=listen-stop]").isVisible()).toBe(true);
    // One audio section per party (the manager's browser, the carrier), each received by the admin's browser…
    await grows(() => partiesHeard(admin), 25);
    // …and played: the manager's 440 Hz in one, the client's 1000 Hz in the other.
    await expectParties(admin, `listening ${a.manager.user.login}`, 440, 1000, 660);
    // The manager and the client were told nothing: no re-INVITE reached either side, the call goes on.
    expect(messagesStarting(carrier.messages(), /^INVITE /)).toHaveLength(1);
    expect(await pcsOf(a.page)).toBe(1);
    await expectText(a.page, "call-state", "Разговор: 380671112290");

    const call = await callOf(a.manager.user.id);
    const [listening] = await sessionsOf(a.manager.user.id);
    // rtpengine holds the admin's subscription as a party of the call.
    const partiesNow = () => relayParties(stack.ports.ng, call.sipCallId!);
    expect(await partiesNow()).toContain(listening.relayTag);

    // «Слушать» asked twice (a second tab, a page that asks again) keeps one subscription, which «Стоп» ends.
    const twice = await admin.evaluate(async (id) => {
      const ids: number[] = [];
      for (let i = 0; i < 2; i++) {
        const response = await fetch("/listen", { method: "POST", body: new URLSearchParams({ intent: "start", managerId: String(id) }) });
        ids.push(((await response.json()) as { sessionId: number }).sessionId);
      }
      return ids;
    }, a.manager.user.id);
    const open = (await sessionsOf(a.manager.user.id)).filter((s) => !s.endedAt);
    expect(open.map((s) => s.id)).toEqual([twice[1]]);
    const tagOf = async (id: number) => (await sessionsOf(a.manager.user.id)).find((s) => s.id === id)!.relayTag;
    const [firstTag, secondTag] = [await tagOf(twice[0]), await tagOf(twice[1])];
    expect(await partiesNow()).toContain(secondTag);
    expect(await partiesNow()).not.toContain(firstTag);
    expect(await partiesNow()).not.toContain(listening.relayTag);
    await admin.evaluate(
      (sessionId) => fetch("/listen", { method: "POST", body: new URLSearchParams({ intent: "stop", sessionId: String(sessionId) }) }),
      twice[1],
    );
    expect(await partiesNow()).not.toContain(secondTag);
    await row.locator("[data-testid=listen-stop]").click();
    await row.locator("[data-testid=listen]").waitFor();
    expect(await admin.locator("audio[data-relay-leg]").count()).toBe(0);
    await expect
      .poll(() => sessionsOf(a.manager.user.id))
      .toEqual([0, 1, 2].map(() => expect.objectContaining({ callId: call.id, endedAt: expect.any(Date) })));
    expect(listening.adminId).not.toBeNull();

    // Listening again, then the hang-up: the admin's page says the call ended, and rtpengine lets it all go at once.
    await row.locator("[data-testid=listen]").click();
    await row.locator("[data-testid=listen-stop]").waitFor();
    await grows(() => partiesHeard(admin), 25);
    // Looked for from before the hang-up: the message is a 2 s toast, which may come and go while hangUp waits for
    // the manager's own page to say the call ended.
    const told = admin.getByText("Звонок завершён: прослушивание остановлено").waitFor();
    const hungUpAt = await hangUp(a.page);
    await told;
    await row.locator("[data-testid=listen-stop]").waitFor({ state: "detached" });
    await letGoOf(a.manager.user.id, hungUpAt);
    expect((await sessionsOf(a.manager.user.id)).every((s) => s.endedAt)).toBe(true);
    // The access log keeps what the admin's element really played (decision 071): the first listening's seconds
    // heard, never more than that session lasted.
    await expect.poll(async () => (await sessionsOf(a.manager.user.id))[0].heardMs ?? 0, { timeout: 10_000 }).toBeGreaterThan(2_000);
    const [heard] = await sessionsOf(a.manager.user.id);
    expect(heard.heardMs!).toBeLessThanOrEqual(heard.endedAt!.getTime() - heard.startedAt.getTime() + 1);
    await admin.context().close();
    await a.page.context().close();
  });

  /**
   * «Подсказывает администратор» leaves the header usable (issue 39: fixed in the corner, it covered the header's
   * controls at 390 px): at 390, 1024 and 1440 px it overlaps none of them and each control is what lies under its
   * own centre. Screenshots (SCREENS_DIR) at 390 and 1440, light and dark.
   */
  async function noticeLeavesHeaderUsable(page: Page) {
    const before = page.viewportSize();
    for (const width of [390, 1024, 1440]) {
      await page.setViewportSize({ width, height: width <= 390 ? 844 : 900 });
      const faults = await page.evaluate(() => {
        const notice = document.querySelector("[data-testid=whisper-on]")!.getBoundingClientRect();
        const out: string[] = [];
        if (notice.height === 0 || notice.width === 0) out.push("the notice is not shown");
        for (const control of document.querySelectorAll<HTMLElement>("header a, header button, header label, header select, header input")) {
          const r = control.getBoundingClientRect();
          if (r.width === 0 || r.height === 0) continue;
          const name = (control.textContent || control.getAttribute("aria-label") || control.tagName).trim().slice(0, 30);
          if (r.left < notice.right && notice.left < r.right && r.top < notice.bottom && notice.top < r.bottom)
            out.push(`the notice covers «${name}»`);
          const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
          // A toast slides in from above the header and settles under it (max-xl:!top-16): passing, not covering.
          if (top && !control.contains(top) && !top.contains(control) && !top.closest(".toaster")) out.push(`«${name}» lies under ${top.tagName}`);
        }
        return out;
      });
      expect(faults, `${width} px`).toEqual([]);
      if (process.env.SCREENS_DIR && width !== 1024) {
        for (const theme of ["light", "dark"]) {
          // The theme as the server renders it (root.tsx): the class and data-theme (reloading would end the call).
          await page.evaluate((dark) => {
            document.documentElement.classList.toggle("dark", dark);
            document.documentElement.dataset.theme = dark ? "dark" : "light";
          }, theme === "dark");
          await new Promise((resolve) => setTimeout(resolve, 400)); // the buttons' colour transitions
          await page.screenshot({ path: `${process.env.SCREENS_DIR}/whisper-notice-${width}-${theme}.png` });
        }
        await page.evaluate(() => {
          document.documentElement.classList.remove("dark");
          document.documentElement.dataset.theme = "light";
        });
      }
    }
    if (before) await page.setViewportSize(before);
  }

  /**
   * «Подсказать» → audible to the manager. Its speed is the bench's (bench/calls.ts part 5: the 1 s target, 0.24 s
   * median on a quiet machine), not a timed test's: on a loaded CI machine one click took 1.6-2.1 s. What made it
   * 1.5-2 s before issue 39, rtpengine answering the admin's publish as the DTLS client (its first handshake, sent
   * before ICE had connected, went nowhere and was repeated a second later), is checked here by the role in its
   * answer; the bound only says the whisper arrives while the admin still waits for it.
   */
  const WHISPER_AUDIBLE_MS = 5_000;

  it("whispers the admin's voice to the manager only, audible within seconds of the click, rtpengine the DTLS server of the admin's voice: the manager hears its tone, the carrier receives none of it", async () => {
    const carrier = await startCarrier({ answer: { ringMs: 300 } });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-91", { browser: says440 });
    await recorded(a.manager.user.id);
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380671112291");
    const admin = await adminOn(ADMIN, says660);
    const row = admin.locator(`[data-testid=online-row-${a.manager.user.login}]`);

    media.sources(true);
    // What goes between the instances (NOTIFY): the whisper's news, never the manager's offer with its ICE password.
    const onTheBus: string[] = [];
    const unlisten = await e.handle.listen(REALTIME_CHANNEL, (payload) => void onTheBus.push(payload));
    // «Подсказать» → the admin's tone audible in the manager's element (its output, playing, moving; issue 39).
    const audibleAfter = await audibleAfterClick(
      a.page,
      `[data-testid=online-row-${a.manager.user.login}] [data-testid=whisper]`,
      "whisper",
      [660],
      admin,
    );
    if (process.env.DEBUG_LISTEN) console.log("whisper audible after", audibleAfter, "ms");
    expect(audibleAfter).toBeLessThan(WHISPER_AUDIBLE_MS);
    // rtpengine answered the admin's publish as the DTLS server: the browser's handshake starts once ICE is up.
    const publishAnswers = await admin.evaluate(() =>
      (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs.map((pc) => pc.remoteDescription?.sdp ?? ""),
    );
    expect(publishAnswers.filter((sdp) => /^a=setup:passive\r?$/m.test(sdp)).length, publishAnswers.join("\n---\n")).toBe(1);
    // (the watch hears the bus: a presence change sent now reaches it)
    await e.app.deps.hub.presenceChanged();
    await expect.poll(() => onTheBus.some((payload) => payload.includes('"presence"'))).toBe(true);
    await unlisten();
    expect(
      onTheBus.filter((payload) => /ice-pwd|fingerprint|m=audio/.test(payload)),
      "an SDP on the instances' bus",
    ).toEqual([]);
    await row.locator("[data-testid=whisper-stop]").waitFor();
    await a.page.locator("[data-testid=whisper-on]").waitFor();
    await noticeLeavesHeaderUsable(a.page);
    // The manager's page plays a second stream (the admin's), beside the call's…
    expect(await pcsOf(a.page)).toBe(2);
    await grows(() => inboundPackets(a.page), 50);
    // …and in it the admin's 660 Hz.
    const whisper = await tonesPlayed(a.page, "whisper", [660, 440, 1000], [660]);
    expect(whisper.playing, JSON.stringify(whisper)).toBe(true);
    expect(whisper.levels[660], JSON.stringify(whisper)).toBeGreaterThan(AUDIBLE);
    expect(whisper.levels[1000], JSON.stringify(whisper)).toBeLessThan(SILENT);
    expect(whisper.levels[440], JSON.stringify(whisper)).toBeLessThan(SILENT);
    // All the while the carrier received the manager's stream alone: his 440 Hz, none of the admin's 660 Hz.
    media.heard(true);
    await new Promise((r) => setTimeout(r, 1_500));
    const atCarrier = media.heard();
    const carrierShares = { manager: toneShare(atCarrier, 8000, 440), admin: toneShare(atCarrier, 8000, 660) };
    if (process.env.DEBUG_LISTEN) console.log("at the carrier", atCarrier.length, JSON.stringify(carrierShares));
    expect(atCarrier.length).toBeGreaterThan(8000);
    expect(carrierShares.manager, JSON.stringify(carrierShares)).toBeGreaterThan(0.3);
    expect(carrierShares.admin, JSON.stringify(carrierShares)).toBeLessThan(0.01);
    expect([...media.sources().keys()]).toHaveLength(1);
    expect(messagesStarting(carrier.messages(), /^INVITE /)).toHaveLength(1);

    // rtpengine holds the call's two parties, the admin's voice and the manager's subscription to it; a second
    // `hear` (the manager's page told twice) replaces his subscription rather than adding one.
    const call = await callOf(a.manager.user.id);
    const partiesNow = () => relayParties(stack.ports.ng, call.sipCallId!);
    const [whispering] = await sessionsOf(a.manager.user.id);
    expect(await partiesNow()).toEqual(expect.arrayContaining([whispering.relayTag, whispering.hearTag]));
    await a.page.evaluate(
      (sessionId) => fetch("/listen", { method: "POST", body: new URLSearchParams({ intent: "hear", sessionId: String(sessionId) }) }),
      whispering.id,
    );
    const [heardAgain] = await sessionsOf(a.manager.user.id);
    expect(heardAgain.hearTag).not.toBe(whispering.hearTag);
    expect(await partiesNow()).toContain(heardAgain.hearTag);
    expect(await partiesNow()).not.toContain(whispering.hearTag);

    // «Стоп подсказки» removes both: the admin's published voice and the manager's subscription.
    await row.locator("[data-testid=whisper-stop]").click();
    await a.page.locator("[data-testid=whisper-on]").waitFor({ state: "detached" });
    await expect.poll(() => sessionsOf(a.manager.user.id)).toEqual([expect.objectContaining({ kind: "whisper", endedAt: expect.any(Date) })]);
    expect(await partiesNow()).not.toContain(heardAgain.hearTag);
    expect(await partiesNow()).not.toContain(whispering.relayTag);
    await expectText(a.page, "call-state", "Разговор: 380671112291");

    // A whisper the hang-up ends: the manager's notice goes, the admin's page says so, rtpengine lets the call go.
    await row.locator("[data-testid=whisper]").click();
    await a.page.locator("[data-testid=whisper-on]").waitFor();
    const told = admin.getByText("Звонок завершён: прослушивание остановлено").waitFor();
    const hungUpAt = await hangUp(a.page);
    await a.page.locator("[data-testid=whisper-on]").waitFor({ state: "detached" });
    await told;
    await letGoOf(a.manager.user.id, hungUpAt);
    expect((await sessionsOf(a.manager.user.id)).every((s) => s.endedAt)).toBe(true);
    await admin.context().close();
    await a.page.context().close();
  });

  it("lets two admins listen to one call and one of them to two calls at once, each hearing the right people, until his own Стоп", async () => {
    const carrier = await startCarrier({ answer: { ringMs: 300 } });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-92", { browser: says440 });
    const b = await managerWithLead(e, stack, "+38 (067) 111-22-93", { browser: says660 });
    for (const m of [a, b]) await recorded(m.manager.user.id);
    await a.page.click("[data-testid=call-button]");
    await b.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380671112292");
    await expectText(b.page, "call-state", "Разговор: 380671112293");

    const second = await createUser(e.db, { login: "second-admin", isAdmin: true });
    const [{ id: firstId }] = await e.db.select({ id: users.id }).from(users).where(eq(users.login, ADMIN.login));
    const first = await adminOn(ADMIN);
    const other = await adminOn(second);
    const rowOf = (page: Page, m: typeof a) => page.locator(`[data-testid=online-row-${m.manager.user.login}]`);
    // The first admin listens to both calls, the second to the first call.
    for (const [page, m] of [
      [first, a],
      [first, b],
      [other, a],
    ] as const) {
      await rowOf(page, m).locator("[data-testid=listen]").click();
      await rowOf(page, m).locator("[data-testid=listen-stop]").waitFor();
    }
    await grows(() => partiesHeard(first, 0), 25);
    await grows(() => partiesHeard(first, 1), 25);
    await grows(() => partiesHeard(other, 0), 25);
    await expectParties(first, `listening ${a.manager.user.login}`, 440, 1000, 660);
    await expectParties(first, `listening ${b.manager.user.login}`, 660, 1000, 440);
    await expectParties(other, `listening ${a.manager.user.login}`, 440, 1000, 660);

    // The first admin's «Стоп» on the first call ends his listening only.
    await rowOf(first, a).locator("[data-testid=listen-stop]").click();
    await rowOf(first, a).locator("[data-testid=listen]").waitFor();
    await expect
      .poll(async () => (await sessionsOf(a.manager.user.id)).map((s) => [s.adminId, s.endedAt !== null]))
      .toEqual([
        [firstId, true],
        [second.user.id, false],
      ]);
    const stillHeard = await partiesHeard(other, 0);
    await grows(() => partiesHeard(other, 0), stillHeard + 10);
    await expectParties(other, `listening ${a.manager.user.login}`, 440, 1000, 660);
    await expectParties(first, `listening ${b.manager.user.login}`, 660, 1000, 440);
    expect(await rowOf(other, a).locator("[data-testid=listen-stop]").isVisible()).toBe(true);
    expect((await sessionsOf(b.manager.user.id)).map((s) => s.endedAt)).toEqual([null]);

    // The second admin closes his page without «Стоп»: his listening ends all the same, at rtpengine too.
    const callA = await callOf(a.manager.user.id);
    const partiesOfA = () => relayParties(stack.ports.ng, callA.sipCallId!);
    let [firstOnA, otherOnA] = await sessionsOf(a.manager.user.id);
    expect(await partiesOfA()).toContain(otherOnA.relayTag);
    expect(await partiesOfA()).not.toContain(firstOnA.relayTag);
    await other.context().close();
    await expect.poll(async () => (await sessionsOf(a.manager.user.id)).map((s) => s.endedAt !== null)).toEqual([true, true]);
    await expect.poll(partiesOfA).not.toContain(otherOnA.relayTag);
    await rowOf(first, b).locator("[data-testid=listen-stop]").click();
    await expect
      .poll(async () => [...(await sessionsOf(a.manager.user.id)), ...(await sessionsOf(b.manager.user.id))].every((s) => s.endedAt))
      .toBe(true);
    // A row for each listening, with its own from and until.
    [firstOnA, otherOnA] = await sessionsOf(a.manager.user.id);
    const [firstOnB] = await sessionsOf(b.manager.user.id);
    expect([firstOnA.adminId, otherOnA.adminId, firstOnB.adminId]).toEqual([firstId, second.user.id, firstId]);
    const callB = await callOf(b.manager.user.id);
    expect([firstOnA.callId, otherOnA.callId, firstOnB.callId]).toEqual([callA.id, callA.id, callB.id]);
    for (const s of [firstOnA, otherOnA, firstOnB]) expect(s.endedAt!.getTime()).toBeGreaterThanOrEqual(s.startedAt.getTime());
    expect(firstOnA.endedAt!.getTime()).toBeLessThan(otherOnA.endedAt!.getTime());
    expect(firstOnA.startedAt.getTime()).toBeLessThan(otherOnA.startedAt.getTime());
    // Neither call noticed any of it.
    expect(messagesStarting(carrier.messages(), /^INVITE /)).toHaveLength(2);
    await expectText(a.page, "call-state", "Разговор: 380671112292");
    await expectText(b.page, "call-state", "Разговор: 380671112293");
    // Both listened to again by the first admin, then hung up: rtpengine lets both calls go within 5 s.
    for (const m of [a, b]) {
      await rowOf(first, m).locator("[data-testid=listen]").click();
      await rowOf(first, m).locator("[data-testid=listen-stop]").waitFor();
    }
    for (const m of [a, b]) await letGoOf(m.manager.user.id, await hangUp(m.page));
    await first.context().close();
    for (const m of [a, b]) await m.page.context().close();
    // Four browsers and two calls: on a machine kept busy (load 15 and more) the whole of it ran past a minute.
  }, 180_000);

  it("says on each page, in Russian, that rtpengine froze or stopped, and leaves nothing stuck; a reloaded page leaves nothing at rtpengine", async () => {
    await startCarrier({ answer: { ringMs: 300 } });
    const a = await managerWithLead(e, stack, "+38 (067) 111-22-94", { browser: says440 });
    await a.page.click("[data-testid=call-button]");
    await expectText(a.page, "call-state", "Разговор: 380671112294");
    const call = await callOf(a.manager.user.id);
    const partiesNow = () => relayParties(stack.ports.ng, call.sipCallId!);
    const admin = await adminOn(ADMIN, says660);
    const row = admin.locator(`[data-testid=online-row-${a.manager.user.login}]`);
    const listen = async () => {
      await row.locator("[data-testid=listen]").click();
      await row.locator("[data-testid=listen-stop]").waitFor();
    };

    // The page reloaded while listening: its session ends and rtpengine lets its party go; the row offers «Слушать».
    await listen();
    const [reloaded] = await sessionsOf(a.manager.user.id);
    expect(await partiesNow()).toContain(reloaded.relayTag);
    await admin.reload();
    await waitForHydration(admin);
    await row.locator("[data-testid=listen]").waitFor();
    await expect.poll(async () => (await sessionsOf(a.manager.user.id)).map((s) => s.endedAt !== null)).toEqual([true]);
    await expect.poll(partiesNow).not.toContain(reloaded.relayTag);

    // rtpengine frozen (SIGSTOP) while the admin listens and whispers: each page says what it lost.
    await listen();
    await row.locator("[data-testid=whisper]").click();
    await row.locator("[data-testid=whisper-stop]").waitFor();
    await a.page.locator("[data-testid=whisper-on]").waitFor();
    const rtpengine = stack.rtpengine.child.pid!;
    process.kill(rtpengine, "SIGSTOP");
    try {
      // Watched for at once: each is a toast that goes after a few seconds, and the pages say them at their own pace
      // (one after the other, a late one found the manager's toast already gone under load).
      await Promise.all([
        admin.getByText("Прослушивание прервалось: звук звонка перестал приходить (rtpengine не отвечает)").waitFor({ timeout: 20_000 }),
        admin.getByText("Подсказка прервалась: ваш голос перестал доходить (rtpengine не отвечает)").waitFor({ timeout: 20_000 }),
        a.page.getByText("Подсказка прервалась: голос администратора перестал приходить").waitFor({ timeout: 20_000 }),
      ]);
      await shoot(admin, "users-rtpengine-frozen");
      // Nothing stuck: the buttons are back, the log's sessions ended, the manager's notice gone.
      await row.locator("[data-testid=listen]").waitFor();
      await row.locator("[data-testid=whisper]").waitFor();
      await a.page.locator("[data-testid=whisper-on]").waitFor({ state: "detached" });
      await expect.poll(async () => (await sessionsOf(a.manager.user.id)).every((s) => s.endedAt), { timeout: 10_000 }).toBe(true);
      // Asked again while it is frozen: «rtpengine не отвечает», and the button is not left waiting.
      allowRefusal(503);
      await row.locator("[data-testid=listen]").click();
      await admin.getByText("Прослушивание недоступно: rtpengine не отвечает").waitFor();
      await row.locator("[data-testid=listen]:not([disabled])").waitFor();
    } finally {
      process.kill(rtpengine, "SIGCONT");
    }
    expect((await sessionsOf(a.manager.user.id)).every((s) => s.endedAt)).toBe(true);

    // rtpengine stopped while listening, then started again without the call: said, in Russian, on the admin's page.
    const lost = admin.getByText("Прослушивание прервалось: звук звонка перестал приходить (rtpengine не отвечает)");
    await lost.first().waitFor({ state: "detached" });
    await listen();
    await stack.stopRtpengine();
    try {
      await lost.first().waitFor({ timeout: 20_000 });
      await row.locator("[data-testid=listen]").waitFor();
    } finally {
      await stack.startRtpengine();
    }
    await row.locator("[data-testid=listen]").click();
    await admin.getByText("Прослушивание недоступно: rtpengine не знает этот звонок: он уже завершён, или rtpengine перезапускали").waitFor();
    await shoot(admin, "users-rtpengine-restarted");
    await row.locator("[data-testid=listen]:not([disabled])").waitFor();
    expect(await admin.getByText(/Unknown|call-ID/).count()).toBe(0);
    expect((await sessionsOf(a.manager.user.id)).every((s) => s.endedAt)).toBe(true);
    await admin.context().close();
    await a.page.context().close();
    // Kamailio takes rtpengine back 5 s after it last failed to answer (rtpengine_disable_tout): later calls need it.
    await new Promise((r) => setTimeout(r, 6_000));
  }, 120_000);
});

describe("a browser killed mid-call", () => {
  // Twice in `npm test`; ten times in a row in `npm run soak` (KILL_RUNS=10; README), which CI's time leaves out.
  it("has its call ended at the carrier within 10 s by a BYE a strict carrier takes (the INVITE's From, a higher CSeq), every time it is killed, and its talk time logged by the proxy", async () => {
    const runs = Number(process.env.KILL_RUNS ?? 2);
    for (let run = 0; run < runs; run += 1) {
      // A strict carrier that challenges the INVITE: the repeated INVITE's CSeq is raised, and Kamailio's own BYE
      // must go above it (else 500 CSeq Out Of Order, and the call stays up at the carrier).
      const carrier = await startCarrier({ answer: { ringMs: 100, challenge: 407, strict: true } });
      // A browser of its own (its own process group), killed whole with SIGKILL: no page event, no BYE from it.
      const server: BrowserServer = await chromium.launchServer({ executablePath: FULL_CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
      const browser = watchBrowser(await chromium.connect(server.wsEndpoint()));
      const phone = `+38067111230${run}`;
      const a = await managerWithLead(e, stack, phone, { browser });
      if (run === 0) await recorded(a.manager.user.id);
      await a.page.click("[data-testid=call-button]");
      // The answer is taken when the carrier has the ACK, before the page is read: under load the page said
      // «Разговор» over a second after it, and the talk measured here came out that much short (a failure at load 8).
      await carrier.waitForMessage(/ACK sip:carrier@/, 30_000);
      const answeredSeen = Date.now();
      await expectText(a.page, "call-state", `Разговор: ${phone.slice(1)}`);
      await grows(() => inboundPackets(a.page), 20);
      await new Promise((r) => setTimeout(r, 5_000 - (Date.now() - answeredSeen)));
      const killedAt = Date.now();
      process.kill(-server.process().pid!, "SIGKILL");
      await carrier.waitForMessage(/BYE sip:carrier@/, 10_000).catch((error) => {
        throw new Error(
          `run ${run}: ${error.message.slice(0, 200)}\n${stack.kamailio
            .log()
            .split("\n")
            .filter((l) => /websocket|closed|ERROR|WARN|BYE/i.test(l))
            .slice(-20)
            .join("\n")}`,
        );
      });
      const byeAt = Date.now();
      expect(byeAt - killedAt, `run ${run}`).toBeLessThan(10_000);
      // Kamailio's own BYE deletes nothing at rtpengine: the app's end of the call does, and the recording is
      // ready at once (issue 39: it came ~32 s later, from the fallback).
      if (run === 0) await letGoOf(a.manager.user.id, byeAt);
      else await relayForgets(stack.ports.ng, (await callOf(a.manager.user.id)).sipCallId!, 5_000);
      // Kamailio's own BYE is the caller's request in the call: the From the INVITE carried, URI and tag (RFC 3261
      // §12.2.1.1), the caller ID and never the manager's extension (docs/telephony.md), and a CSeq above the
      // authorised INVITE's: the strict carrier takes it.
      expect(await carrier.replyTo("BYE"), `run ${run}`).toBe("SIP/2.0 200 OK");
      const invite = messagesStarting(carrier.messages(), /^INVITE sip:/).at(-1)!;
      const [bye] = messagesStarting(carrier.messages(), /^BYE sip:carrier@/);
      expect(partyOf(bye, "From"), `run ${run}: ${headerOf(bye, "From")}`).toEqual(partyOf(invite, "From"));
      expect(cseqOf(bye)).toBeGreaterThan(cseqOf(invite));
      expect(partyOf(bye, "From").uri).toBe(`sip:${TRUNK.callerId}@127.0.0.1`);
      expect(partyOf(bye, "To").uri).toBe(partyOf(invite, "To").uri);
      expect(bye).not.toContain(`sip:${a.sipLogin}@`);
      const [call] = await endedCallsOf(e.db, a.manager.user.id, 1);
      // The real talk ran from the answer to the BYE the carrier got (each seen here within a poll of 100 ms).
      const realSeconds = (byeAt - answeredSeen) / 1000;
      expect(call).toMatchObject({ outcome: "answered", byProxy: true, contactId: Number(a.lead.id) });
      expect(Math.abs(call.talkSeconds - realSeconds), `run ${run}: logged ${call.talkSeconds} s, talked ${realSeconds} s`).toBeLessThanOrEqual(1);
      expect(Math.abs(call.endedAt!.getTime() - byeAt)).toBeLessThan(1_000);
      await browser.close().catch(() => {});
      await e.db.update(contacts).set({ heldBy: null }).where(eq(contacts.id, a.lead.id));
    }
    expect(await e.db.$count(calls)).toBeGreaterThanOrEqual(runs);
  }, 300_000);
});
