import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { Page } from "playwright-core";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll } from "vitest";
import { contacts, databases, users } from "../../db/schema";
import { createUser, standIn } from "../helpers/app";
import { loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createFilterRow } from "../helpers/leads";
import { freePorts } from "../helpers/ports";
import { startCarrier, startMediaEcho, type Carrier, type CarrierBehaviour, type MediaEcho } from "./carrier";
import { watchPeerConnections } from "./peer-connections";
import { startStack, type Stack, type StackOptions } from "./stack";

/** The whole call path on loopback: the app with its softphone pointed at the stack, the stack, the carrier's media echo. */
export interface CallPath {
  e: E2E;
  stack: Stack;
  media: MediaEcho;
  /** Where the test's SIPp carrier listens (startCarrier). */
  carrierPort: number;
  /** Ends it all; with KAMAILIO_LOG set, Kamailio's log is written to that file once the browsers have closed (`name` tells files apart). */
  stop(name: string): Promise<void>;
}

export async function startCallPath(
  secret: string,
  /** The stack's settings; `domain` is SIP_DOMAIN for the stack and the app alike (127.0.0.1 unless said). */
  { domain = "127.0.0.1", ...options }: Omit<StackOptions, "appUrl" | "secret" | "domain" | "trunk" | "ports"> & { domain?: string } = {},
  /** More of the app's environment (a recordings folder of the file's own). */
  appEnv: Record<string, string> = {},
): Promise<CallPath> {
  const [ws, sip, ng, carrierPort, gatePort] = await freePorts(5);
  const ports = { ws, sip, ng, rtpMin: 20_000 + Math.floor(Math.random() * 40) * 200 };
  const media = await startMediaEcho();
  // The app reaches rtpengine's control through the gate, as an app host apart from the telephony host does
  // (decision 066): live listening and whisper in these files go through it.
  const ngGate = { port: gatePort, secret: randomBytes(32).toString("hex") };
  const e = await startE2E({
    full: true,
    env: {
      SIP_WS_URL: `ws://127.0.0.1:${ports.ws}`,
      SIP_DOMAIN: domain,
      SIP_AUTH_SECRET: secret,
      RTPENGINE_NG: `127.0.0.1:${ngGate.port}`,
      RTPENGINE_NG_SECRET: ngGate.secret,
      ...appEnv,
    },
  });
  // rtpengine records into the app's recordings folder (only the calls the app asks it to record).
  const stack = await startStack({
    ...options,
    appUrl: e.baseUrl,
    secret,
    domain,
    trunk: `127.0.0.1:${carrierPort}`,
    ports,
    ngGate,
    recordingsDir: e.app.deps.recordings.folder.dir,
  });
  return {
    e,
    stack,
    media,
    carrierPort,
    async stop(name) {
      await e.close();
      // What the pages' closing did at Kamailio is in it too.
      if (process.env.KAMAILIO_LOG) fs.writeFileSync(`${process.env.KAMAILIO_LOG}.${name}`, stack.kamailio.log());
      await stack.stop();
      await media.close();
    },
  };
}

/** A call-path e2e file's set-up (useCallPath): the path's parts, and the carrier of the test that is running. */
export interface FileCallPath {
  e: E2E;
  stack: Stack;
  media: MediaEcho;
  /** A SIPp carrier on the path's carrier port, for the running test: stopped after it (or by the next start). */
  startCarrier(behaviour: CarrierBehaviour): Promise<Carrier>;
  /** The running test's carrier, if it started one. */
  carrier(): Carrier | undefined;
}

/**
 * The three call-path e2e files' set-up, at the top of the file: the path started before the file's tests (its
 * extensions from `firstExtension` on, kept apart from another file's), each test's carrier stopped after it, the
 * path ended after the file (`name` tells Kamailio's logs apart, see CallPath.stop).
 */
export function useCallPath(
  name: string,
  secret: string,
  options: Parameters<typeof startCallPath>[1] & { firstExtension?: number } = {},
): FileCallPath {
  const { firstExtension, ...stackOptions } = options;
  let path: CallPath | undefined;
  let carrier: Carrier | undefined;
  const stopCarrier = async () => {
    await carrier?.stop();
    carrier = undefined;
  };
  beforeAll(async () => {
    if (firstExtension !== undefined) extensionsFrom(firstExtension);
    path = await startCallPath(secret, stackOptions);
  });
  afterEach(async ({ task }) => {
    // A failed test says what Kamailio did meanwhile: CI keeps the run's output only.
    if (task.result?.state === "fail" && path) console.error(`Kamailio's log, its last lines (${name}):\n${logTail(path.stack.kamailio.log(), 60)}`);
    await stopCarrier();
  });
  afterAll(() => path?.stop(name));
  return {
    e: standIn("useCallPath: the app", () => path?.e),
    stack: standIn("useCallPath: the stack", () => path?.stack),
    media: standIn("useCallPath: the media echo", () => path?.media),
    async startCarrier(behaviour) {
      if (!path) throw new Error("useCallPath: a carrier starts inside the file's tests only");
      // One carrier at a time on the port.
      await stopCarrier();
      carrier = await startCarrier(path.carrierPort, path.media, behaviour);
      return carrier;
    },
    carrier: () => carrier,
  };
}

/** The last `lines` lines of a daemon's log. */
const logTail = (log: string, lines: number) => log.trimEnd().split("\n").slice(-lines).join("\n");

/**
 * The call-path e2e files' page side: a manager with a lead on /leadpanel whose softphone registered through the
 * test's Kamailio, and what the tests read from the page (its texts, its peer connections' audio).
 */
export interface ManagerOptions {
  expectRegistered?: boolean;
  staleSipPassword?: string;
  sipLogin?: string;
  /** The page is handed this number as its lead's phone (a modified page), whatever the base holds. */
  tamperedPhone?: string;
  /** Another browser than the file's own (a test that kills it). */
  browser?: import("playwright-core").Browser;
}

let extension = 4000;
/** Extensions of one file stay apart from another's (each file has its own Kamailio, but one app per file too). */
export function extensionsFrom(first: number) {
  extension = first;
}

/** A manager whose current lead has `phone`, logged in on /leadpanel, softphone registered through Kamailio. */
export async function managerWithLead(e: E2E, stack: Stack, phone: string, options: ManagerOptions = {}) {
  extension += 1;
  const sipLogin = options.sipLogin ?? String(extension);
  const manager = await createUser(e.db, { sipLogin, sipPassword: `sip-${sipLogin}` });
  const [base] = await e.db
    .insert(databases)
    .values({ name: `База ${sipLogin}`, contactsCount: 1 })
    .returning();
  const [lead] = await e.db
    .insert(contacts)
    .values({ databaseId: base.id, name: "Клиент", phone, phoneKey: phone.replace(/\D/g, ""), city: "Киев" })
    .returning();
  const filter = await createFilterRow(e.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [] });
  await e.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
  const page = options.browser ? await (await options.browser.newContext({ baseURL: e.baseUrl })).newPage() : await e.newPage();
  if (process.env.DEBUG_PAGE) page.on("console", (m) => console.log("PAGE", m.type(), m.text()));
  await watchPeerConnections(page);
  if (options.staleSipPassword) await rewriteLoaderData(page, `sip-${sipLogin}`, options.staleSipPassword);
  if (options.tamperedPhone) await rewriteLoaderData(page, phone, options.tamperedPhone);
  await loginThroughPage(page, manager);
  await waitForHydration(page);
  if (options.expectRegistered !== false) {
    await expectText(page, "call-state", "Телефон готов");
    await stack.kamailio.waitForLog(new RegExp(`registered ${sipLogin}\\b`));
  }
  return { manager, page, sipLogin, lead };
}

export async function expectText(page: Page, testId: string, text: string, timeout = 15_000) {
  const locator = page.locator(`[data-testid=${testId}]`);
  await locator
    .filter({ hasText: text })
    .first()
    .waitFor({ timeout })
    .catch(async () => {
      throw new Error(
        `[data-testid=${testId}] never showed "${text}"; it shows "${await locator
          .first()
          .textContent()
          .catch(() => null)}"`,
      );
    });
}

/**
 * Test instrumentation only: the page gets the string `replacement` wherever the app's loader data holds `real`
 * (a stale SIP password, a lead's phone a modified page dials), whatever the database holds: the loader data is
 * rewritten as it arrives, in the HTML's streamed Remix context and in every later loader fetch.
 */
export async function rewriteLoaderData(page: Page, real: string, replacement: string) {
  await page.addInitScript(
    ({ real, stale }) => {
      // Single fetch streams loader data as JSON-like text: the value is the string literal "<real>".
      const swap = (text: string) => text.split(JSON.stringify(real)).join(JSON.stringify(stale));
      const enqueue = ReadableStreamDefaultController.prototype.enqueue;
      ReadableStreamDefaultController.prototype.enqueue = function (chunk?: unknown) {
        return enqueue.call(this, typeof chunk === "string" ? swap(chunk) : chunk);
      };
      const originalFetch = window.fetch;
      window.fetch = async (...args) => {
        const response = await originalFetch(...args);
        const type = response.headers.get("content-type") ?? "";
        if (!/json|x-script/.test(type)) return response;
        const text = swap(await response.text());
        return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
      };
    },
    { real, stale: replacement },
  );
}

/** Audio packets received by the page's newest peer connection (inbound-rtp), 0 before there is one. */
export async function inboundPackets(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    if (!pc) return 0;
    let packets = 0;
    (await pc.getStats()).forEach((report) => {
      if (report.type === "inbound-rtp" && report.kind === "audio") packets += report.packetsReceived ?? 0;
    });
    return packets;
  });
}

/** The codec the page's newest peer connection sends with ("audio/PCMU", "audio/opus"), or null. */
export async function sendingCodec(page: Page): Promise<string | null> {
  return page.evaluate(async () => {
    const pcs = (window as unknown as { __pcs: RTCPeerConnection[] }).__pcs;
    const pc = pcs[pcs.length - 1];
    if (!pc) return null;
    const stats = await pc.getStats();
    let codecId: string | undefined;
    stats.forEach((report) => {
      if (report.type === "outbound-rtp" && report.kind === "audio") codecId = report.codecId;
    });
    return codecId ? ((stats.get(codecId) as { mimeType?: string } | undefined)?.mimeType ?? null) : null;
  });
}

/** Waits until `read()` exceeds `above`; returns the value. */
export async function grows(read: () => Promise<number> | number, above: number, timeoutMs = 10_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (value <= above && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    value = await read();
  }
  if (value <= above) throw new Error(`stayed at ${value} (needed more than ${above}) for ${timeoutMs} ms`);
  return value;
}

/** Screenshots of the page as it is (SCREENS_DIR only): 390 and 1440 wide, light and dark, without reloading it. */
export async function shoot(page: Page, name: string) {
  if (!process.env.SCREENS_DIR) return;
  const before = page.viewportSize();
  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: width <= 390 ? 844 : 900 });
    for (const theme of ["light", "dark"]) {
      await page.evaluate((dark) => {
        document.documentElement.classList.toggle("dark", dark);
        document.documentElement.dataset.theme = dark ? "dark" : "light";
      }, theme === "dark");
      await new Promise((resolve) => setTimeout(resolve, 400));
      await page.screenshot({ path: `${process.env.SCREENS_DIR}/${name}-${width}-${theme}.png` });
    }
  }
  await page.evaluate(() => {
    document.documentElement.classList.remove("dark");
    document.documentElement.dataset.theme = "light";
  });
  if (before) await page.setViewportSize(before);
}
