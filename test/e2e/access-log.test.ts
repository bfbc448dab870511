import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, listenSessions, recordingPlays, users } from "../../db/schema";
import { ADMIN, createUser } from "../helpers/app";
import { allowRefusal, loginThroughPage, startE2E, waitForHydration, type E2E } from "../helpers/browser";
import { createFilterRow } from "../helpers/leads";
import { writeRecordedCall } from "../helpers/recordings";
import { setTheme } from "../helpers/screens";

/**
 * The access log in a browser (issue 39): a recording played on the dashboard is logged as one play with how much
 * the player really played (its report, not the bytes it fetched ahead), and the log's page shows it; the page's
 * filter form without JavaScript; screenshots of the page with data and empty, both themes, 390 and 1440.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "access-log-e2e-"));
let e: E2E;
let callId = 0;

beforeAll(async () => {
  e = await startE2E({ env: { RECORDINGS_DIR: path.join(dir, "recordings"), RECORDINGS_MIN_FREE_MB: "0" } });
  const olga = await createUser(e.db, { login: "olga", displayName: "Ольга Константинопольская" });
  const topic = await createFilterRow(e.db, { name: "Кредиты наличными", managerIds: [olga.user.id], databaseIds: [], statusIds: [] });
  // A real recording of 8 s (the project's own pcap → Ogg Opus conversion), so the browser's player plays it.
  const sipCallId = `access-log-e2e-${Date.now()}@browser`;
  const [call] = await e.db
    .insert(calls)
    .values({
      userId: olga.user.id,
      number: "380671234567",
      direction: "out",
      byProxy: true,
      sipCallId,
      answeredAt: new Date(Date.now() - 9_000),
      endedAt: new Date(),
      outcome: "answered",
      talkSeconds: 8,
      filterId: topic.id,
      recording: "pending",
    })
    .returning();
  callId = call.id;
  writeRecordedCall(e.app.deps.recordings.folder.spool, sipCallId, { seconds: 8, managerHz: 440, clientHz: 1000 });
  await e.app.deps.recordings.drain();
  const [ready] = await e.db.select().from(calls).where(eq(calls.id, callId));
  expect(ready.recording).toBe("ready");
}, 120_000);
afterAll(async () => {
  await e?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("a recording played in the browser", () => {
  it("is one play in the log, with the seconds the player played", async () => {
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    await page.goto("/");
    await waitForHydration(page);
    const audio = page.locator(`[data-testid=call-recording] audio`).first();
    // Once hydrated the player names itself, so all its requests are one play.
    await expect.poll(() => audio.getAttribute("src")).toMatch(new RegExp(`^/recordings/${callId}\\?play=[0-9a-f]{24}$`));
    await audio.evaluate((el: HTMLAudioElement) => {
      el.muted = true; // played without a sound card; what counts is what the element played
      return el.play();
    });
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime), { timeout: 15_000 }).toBeGreaterThan(2.5);
    await audio.evaluate((el: HTMLAudioElement) => el.pause());
    const played = await audio.evaluate((el: HTMLAudioElement) => el.played.end(0) - el.played.start(0));
    const plays = () => e.db.select().from(recordingPlays).where(eq(recordingPlays.callId, callId));
    await expect.poll(async () => (await plays())[0]?.playedMs ?? null, { timeout: 10_000 }).not.toBeNull();
    const rows = await plays();
    expect(rows).toHaveLength(1);
    // What the element played, to the report's rounding; far less than the 8 s file its browser may have fetched whole.
    expect(Math.abs(rows[0].playedMs! - played * 1000)).toBeLessThan(300);
    expect(rows[0].playedMs!).toBeLessThan(6_000);

    await page.goto("/access-log");
    const row = page.getByTestId("access-row").first();
    await expect.poll(() => row.getAttribute("data-kind")).toBe("play");
    expect(await row.getByTestId("access-heard").textContent()).toMatch(/^\d(,\d)? с из \d(,\d)? сзаписи$/);
  }, 60_000);
});

describe("a listening page's meter (app/lib/heard-meter.ts)", () => {
  it("counts the seconds its element played while packets came, and stops counting when the audio dies", async () => {
    // The meter as the app's bundle has it, in a page of the app (its reports go to /heard with the admin's cookie).
    const { outputFiles } = await build({
      entryPoints: ["app/lib/heard-meter.ts"],
      bundle: true,
      write: false,
      format: "iife",
      globalName: "heardAudio",
      external: ["react"],
      define: { "process.env.NODE_ENV": '"production"' },
    });
    const [admin] = await e.db.select().from(users).where(eq(users.login, ADMIN.login));
    const [session] = await e.db.insert(listenSessions).values({ adminId: admin.id, callId }).returning();
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    await page.goto("/profile");
    await waitForHydration(page);
    // Evaluated by the test's driver (the page's CSP allows no inline script): the same code, in the same page.
    await page.evaluate(`var require = () => ({});\n${outputFiles[0].text}\nwindow.heardAudio = heardAudio;`);
    // A tone sent over a loopback WebRTC connection into an <audio> element, as rtpengine's copy reaches the admin.
    await page.evaluate(async (sessionId) => {
      const w = window as unknown as Record<string, unknown>;
      const context = new AudioContext();
      const tone = context.createOscillator();
      const out = context.createMediaStreamDestination();
      tone.connect(out);
      tone.start();
      const sender = new RTCPeerConnection();
      const receiver = new RTCPeerConnection();
      sender.onicecandidate = (ev) => ev.candidate && void receiver.addIceCandidate(ev.candidate);
      receiver.onicecandidate = (ev) => ev.candidate && void sender.addIceCandidate(ev.candidate);
      const rtpSender = sender.addTrack(out.stream.getAudioTracks()[0], out.stream);
      const audio = document.createElement("audio");
      audio.muted = true;
      document.body.appendChild(audio);
      const playing = new Promise<void>((resolve) => {
        receiver.ontrack = (ev) => {
          audio.srcObject = new MediaStream([ev.track]);
          void audio.play().then(resolve);
        };
      });
      await context.resume().catch(() => {});
      await sender.setLocalDescription(await sender.createOffer());
      await receiver.setRemoteDescription(sender.localDescription!);
      await receiver.setLocalDescription(await receiver.createAnswer());
      await sender.setRemoteDescription(receiver.localDescription!);
      await playing;
      const meter = (w.heardAudio as { meterHeardAudio(pc: RTCPeerConnection, a: HTMLAudioElement, id: number): { stop(): void } }).meterHeardAudio(
        receiver,
        audio,
        sessionId,
      );
      Object.assign(w, { meter, rtpSender, audio });
    }, session.id);
    const heardMs = async () => (await e.db.select().from(listenSessions).where(eq(listenSessions.id, session.id)))[0].heardMs;
    await expect.poll(heardMs, { timeout: 10_000 }).toBeGreaterThan(0);
    await page.waitForTimeout(4_000);
    // The audio dies: the sender stops sending; the element plays on (silence), the meter counts nothing more.
    await page.evaluate(() => (window as unknown as { rtpSender: RTCRtpSender }).rtpSender.replaceTrack(null));
    const died = Date.now();
    await page.waitForTimeout(4_000);
    await page.evaluate(() => (window as unknown as { meter: { stop(): void } }).meter.stop());
    await expect.poll(async () => (await e.db.select().from(listenSessions).where(eq(listenSessions.id, session.id)))[0].lastHeardAt).not.toBeNull();
    const [row] = await e.db.select().from(listenSessions).where(eq(listenSessions.id, session.id));
    const span = Date.now() - row.startedAt.getTime();
    expect(row.heardMs!).toBeGreaterThan(3_000);
    // Heard until the audio died (give or take the meter's 1 s ticks), not the 8 s the page was there.
    expect(row.heardMs!).toBeLessThan(span - 2_500);
    expect(Math.abs(row.lastHeardAt!.getTime() - died)).toBeLessThan(2_500);
    await e.db.delete(listenSessions).where(eq(listenSessions.id, session.id));
  }, 60_000);
});

describe("the page without JavaScript", () => {
  it("filters with its form and says a wrong date at its field", async () => {
    const page = await e.newPage({ javaScript: false });
    await loginThroughPage(page, ADMIN);
    await page.goto("/access-log");
    await page.locator("#by-kind").selectOption("download");
    await page.getByTestId("access-log-filters").getByRole("button", { name: "Показать" }).click();
    await page.getByTestId("access-log-empty").waitFor();
    expect(new URL(page.url()).searchParams.get("kind")).toBe("download");
    allowRefusal(400); // the wrong date, on purpose
    const answer = await page.goto("/access-log?from=2026-13-40");
    expect(answer?.status()).toBe(400);
    expect(await page.locator("#from-error").textContent()).toBe("Неверная дата «с»: 2026-13-40 (нужна существующая дата вида 2026-11-29)");
  });
});

/** Screenshots for a look (SCREENS_DIR=/tmp/shots npx vitest run test/e2e/access-log.test.ts -t screenshots). */
describe.runIf(process.env.SCREENS_DIR)("screenshots", () => {
  it("the log with data and empty, at 390 and 1440, light and dark", async () => {
    const shots = process.env.SCREENS_DIR!;
    const [admin] = await e.db.select().from(users).where(eq(users.login, ADMIN.login));
    const boss = await createUser(e.db, { login: "boss", displayName: "Виктор Начальник", isAdmin: true });
    const [olga] = await e.db.select().from(users).where(eq(users.login, "olga"));
    const ago = (s: number) => new Date(Date.now() - s * 1000);
    await e.db.insert(listenSessions).values([
      {
        adminId: admin.id,
        managerId: olga.id,
        callId,
        startedAt: ago(7200),
        endedAt: ago(7159),
        heardMs: 500,
        firstHeardAt: ago(7199),
        lastHeardAt: ago(7198),
      },
      {
        kind: "whisper",
        adminId: boss.user.id,
        managerId: olga.id,
        callId,
        startedAt: ago(5400),
        endedAt: ago(5370),
        heardMs: 12_000,
        firstHeardAt: ago(5399),
        lastHeardAt: ago(5387),
      },
      { adminId: boss.user.id, managerId: olga.id, callId, startedAt: ago(3600), endedAt: ago(3000) },
    ]);
    await e.db.insert(recordingPlays).values([
      { callId, userId: boss.user.id, download: true, at: ago(600) },
      // The CRM fetched the recording by its webhook's link: no user behind it.
      { callId, userId: null, download: true, byLink: true, at: ago(300) },
    ]);
    const page = await e.newPage();
    await loginThroughPage(page, ADMIN);
    for (const theme of ["light", "dark"] as const) {
      await setTheme(page.context(), e.baseUrl, theme);
      for (const width of [390, 1440]) {
        await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
        await page.goto("/access-log");
        await waitForHydration(page);
        await page.screenshot({ path: `${shots}/access-log-${width}-${theme}.png`, fullPage: true });
        await page.goto("/access-log?from=2020-01-01&to=2020-01-31");
        await page.getByTestId("access-log-empty").waitFor();
        await page.screenshot({ path: `${shots}/access-log-empty-${width}-${theme}.png`, fullPage: width === 390 });
      }
    }
    allowRefusal(400); // the wrong date, on purpose
    const bad = await page.goto("/access-log?from=2026-13-40&managerId=999999");
    expect(bad?.status()).toBe(400);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${shots}/access-log-bad-date-390-dark.png`, fullPage: true });
  }, 120_000);
});
