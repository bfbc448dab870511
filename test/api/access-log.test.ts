import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, listenSessions, recordingPlays, users } from "../../db/schema";
import { ADMIN, bearer, createTestApp, createUser, getPage, pageSessionCookie, postPageForm, type TestApp } from "../helpers/app";
import { createFilterRow } from "../helpers/leads";

/**
 * The access log (issue 39): who listened to, whispered into, played or downloaded which call, filtered by who,
 * whose call, topic, Kyiv days and kind; the real duration of audio from the pages' reports (POST /heard); the
 * CSV; the page without JavaScript. Admins only.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "access-log-test-"));
let t: TestApp;
let adminToken: string;
let managerToken: string;
let adminCookie: string;
let otherAdminCookie: string;
let managerCookie: string;
const id = { admin: 0, otherAdmin: 0, m1: 0, m2: 0, t1: 0, t2: 0, call1: 0, call2: 0, s1: 0, s2: 0, p1: 0, p2: 0, p3: 0 };
let m1: Awaited<ReturnType<typeof createUser>>;

const at = (iso: string) => new Date(iso);

beforeAll(async () => {
  t = await createTestApp({ web: true, env: { RECORDINGS_DIR: path.join(dir, "recordings") } });
  adminToken = await t.adminToken();
  const [admin] = await t.db.select().from(users).where(eq(users.login, ADMIN.login));
  const other = await createUser(t.db, { login: "audit-boss", displayName: "Виктор", isAdmin: true });
  m1 = await createUser(t.db, { login: "audit-olga", displayName: "Ольга" });
  const m2 = await createUser(t.db, { login: "audit-petr", displayName: "Пётр" });
  managerToken = await t.tokenFor(m1);
  adminCookie = await pageSessionCookie(t, ADMIN);
  otherAdminCookie = await pageSessionCookie(t, other);
  managerCookie = await pageSessionCookie(t, m1);
  const t1 = await createFilterRow(t.db, { name: "Кредиты", managerIds: [m1.user.id], databaseIds: [], statusIds: [] });
  const t2 = await createFilterRow(t.db, { name: "Страховки", managerIds: [m2.user.id], databaseIds: [], statusIds: [] });
  // Two recorded calls; their audio is any bytes (served as they are).
  fs.mkdirSync(t.app.deps.recordings.folder.audio, { recursive: true });
  for (const name of ["one.ogg", "two.ogg"]) fs.writeFileSync(path.join(t.app.deps.recordings.folder.audio, name), Buffer.alloc(4000, 7));
  const [call1] = await t.db
    .insert(calls)
    .values({
      userId: m1.user.id,
      number: "380671110001",
      direction: "out",
      startedAt: at("2026-11-20T10:00:00Z"),
      filterId: t1.id,
      recording: "ready",
      recordingFile: "one.ogg",
      recordingMs: 120_000,
    })
    .returning();
  const [call2] = await t.db
    .insert(calls)
    .values({
      userId: m2.user.id,
      number: "380671110002",
      // A client who called in (issue 42): the log says which way each call went.
      direction: "in",
      startedAt: at("2026-11-28T21:00:00Z"),
      filterId: t2.id,
      recording: "ready",
      recordingFile: "two.ogg",
      recordingMs: 60_000,
    })
    .returning();
  // S1: the session that says 41 s, its page never reporting; S2 a whisper at 23:30 Kyiv on the 28th.
  const [s1] = await t.db
    .insert(listenSessions)
    .values({
      adminId: admin.id,
      managerId: m1.user.id,
      callId: call1.id,
      startedAt: at("2026-11-20T10:00:05Z"),
      endedAt: at("2026-11-20T10:00:46Z"),
    })
    .returning();
  const [s2] = await t.db
    .insert(listenSessions)
    .values({
      kind: "whisper",
      adminId: other.user.id,
      managerId: m2.user.id,
      callId: call2.id,
      startedAt: at("2026-11-28T21:30:00Z"),
      endedAt: at("2026-11-28T21:30:30Z"),
      heardMs: 12_000,
      firstHeardAt: at("2026-11-28T21:30:01Z"),
      lastHeardAt: at("2026-11-28T21:30:13Z"),
    })
    .returning();
  // P1 at 00:30 Kyiv on the 29th; P2 a download; P3 the manager playing his own call, with no report.
  const [p1] = await t.db
    .insert(recordingPlays)
    .values({ callId: call2.id, userId: admin.id, at: at("2026-11-28T22:30:00Z"), playedMs: 45_000 })
    .returning();
  const [p2] = await t.db
    .insert(recordingPlays)
    .values({ callId: call1.id, userId: other.user.id, at: at("2026-11-21T08:00:00Z"), download: true })
    .returning();
  const [p3] = await t.db
    .insert(recordingPlays)
    .values({ callId: call1.id, userId: m1.user.id, at: at("2026-11-22T09:00:00Z") })
    .returning();
  Object.assign(id, {
    admin: admin.id,
    otherAdmin: other.user.id,
    m1: m1.user.id,
    m2: m2.user.id,
    t1: t1.id,
    t2: t2.id,
    call1: call1.id,
    call2: call2.id,
    s1: s1.id,
    s2: s2.id,
    p1: p1.id,
    p2: p2.id,
    p3: p3.id,
  });
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const log = (query: Record<string, string | number> = {}, token = adminToken) => t.request.get("/api/v1/access-log").query(query).set(bearer(token));
/** The entries as "kind:id", in the order given. */
const keys = (body: { entries: Array<{ kind: string; id: number }> }) => body.entries.map((e) => `${e.kind}:${e.id}`);
const heard = (cookie: string, fields: Record<string, string | number>) =>
  postPageForm(t, "/heard", cookie, Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])));

describe("who may read the access log", () => {
  it("answers 401 without a session and 403 to a manager, for the list, the CSV and the page", async () => {
    expect((await t.request.get("/api/v1/access-log")).status).toBe(401);
    const asManager = await log({}, managerToken);
    expect(asManager.status).toBe(403);
    expect(asManager.body.message).toBe("Недостаточно прав для этого действия");
    expect((await t.request.get("/api/v1/access-log.csv").set(bearer(managerToken))).status).toBe(403);
    expect((await getPage(t, "/access-log", managerCookie)).status).toBe(403);
    expect((await getPage(t, "/access-log/csv", managerCookie)).status).toBe(403);
    expect((await getPage(t, "/access-log")).headers.location).toBe("/auth");
  });
});

describe("the list", () => {
  it("holds every listening, whisper, play and download, newest first, with who, whose call, topic and call", async () => {
    const res = await log();
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(5);
    expect(keys(res.body)).toEqual([`play:${id.p1}`, `whisper:${id.s2}`, `play:${id.p3}`, `download:${id.p2}`, `listen:${id.s1}`]);
    const [p1, s2, p3, p2, s1] = res.body.entries;
    expect(p1).toMatchObject({
      at: "2026-11-28T22:30:00.000Z",
      user: { id: id.admin },
      manager: { id: id.m2, name: "Пётр" },
      topic: { id: id.t2, name: "Страховки" },
      call: { id: id.call2, number: "380671110002", direction: "in", recording: "ready", recordingMs: 60_000 },
      heardMs: 45_000,
      spanMs: 60_000,
    });
    expect(s2).toMatchObject({
      user: { id: id.otherAdmin, name: "Виктор" },
      heardMs: 12_000,
      spanMs: 30_000,
      firstHeardAt: "2026-11-28T21:30:01.000Z",
      lastHeardAt: "2026-11-28T21:30:13.000Z",
    });
    // The page that played a recording without JavaScript said nothing: no figure rather than a made-up one.
    expect(p3).toMatchObject({
      user: { id: id.m1, name: "Ольга" },
      manager: { id: id.m1 },
      call: { direction: "out" },
      heardMs: null,
      spanMs: 120_000,
    });
    // A download is the whole file.
    expect(p2).toMatchObject({ heardMs: 120_000, spanMs: 120_000 });
    // The 41 s session whose page never reported: its span, and no heard figure.
    expect(s1).toMatchObject({ heardMs: null, spanMs: 41_000, endedAt: "2026-11-20T10:00:46.000Z", topic: { name: "Кредиты" } });
  });

  it("filters by who, by whose call, by topic and by kind", async () => {
    expect(keys((await log({ userId: id.admin })).body)).toEqual([`play:${id.p1}`, `listen:${id.s1}`]);
    expect(keys((await log({ managerId: id.m1 })).body)).toEqual([`play:${id.p3}`, `download:${id.p2}`, `listen:${id.s1}`]);
    expect(keys((await log({ filterId: id.t2 })).body)).toEqual([`play:${id.p1}`, `whisper:${id.s2}`]);
    expect(keys((await log({ kind: "listen" })).body)).toEqual([`listen:${id.s1}`]);
    expect(keys((await log({ kind: "whisper" })).body)).toEqual([`whisper:${id.s2}`]);
    expect(keys((await log({ kind: "play" })).body)).toEqual([`play:${id.p1}`, `play:${id.p3}`]);
    expect(keys((await log({ kind: "download" })).body)).toEqual([`download:${id.p2}`]);
    const both = await log({ userId: id.otherAdmin, managerId: id.m1 });
    expect(both.body).toMatchObject({ total: 1 });
    expect(keys(both.body)).toEqual([`download:${id.p2}`]);
  });

  it("filters by Kyiv days: 23:30 Kyiv is still the 28th, 00:30 already the 29th", async () => {
    expect(keys((await log({ from: "2026-11-29" })).body)).toEqual([`play:${id.p1}`]);
    expect(keys((await log({ from: "2026-11-28", to: "2026-11-28" })).body)).toEqual([`whisper:${id.s2}`]);
    expect(keys((await log({ to: "2026-11-21" })).body)).toEqual([`download:${id.p2}`, `listen:${id.s1}`]);
    expect((await log({ from: "2026-12-01" })).body).toEqual({ total: 0, entries: [] });
  });

  it("pages with limit and offset, counting them all", async () => {
    const res = await log({ limit: 2, offset: 1 });
    expect(res.body.total).toBe(5);
    expect(keys(res.body)).toEqual([`whisper:${id.s2}`, `play:${id.p3}`]);
  });

  it.each([
    [{ from: "2026-13-40" }, "Неверная дата «с»: 2026-13-40 (нужна существующая дата вида 2026-11-29)", "filter_from"],
    [{ to: "2026-02-30" }, "Неверная дата «по»: 2026-02-30 (нужна существующая дата вида 2026-11-29)", "filter_to"],
    [{ from: "2026-11-29", to: "2026-11-28" }, "Дата «по» раньше даты «с»", "filter_to"],
    [{ managerId: "999999" }, "Нет менеджера с id 999999", "filter_managerId"],
    [{ userId: "abc" }, "Неверный пользователь: нужен id из списка", "filter_userId"],
    [{ filterId: "999999" }, "Нет тематики с id 999999", "filter_filterId"],
    [{ kind: "peek" }, "Неизвестный вид доступа: нужен listen, whisper, play, download или link", "filter_kind"],
    [{ limit: "9000" }, "Неверный размер страницы (не более 500)", "validation"],
  ])("refuses %j with 400 and a Russian message", async (query, message, code) => {
    const res = await log(query);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: code, message });
    const csv = await t.request.get("/api/v1/access-log.csv").query(query).set(bearer(adminToken));
    if (code !== "validation") expect([csv.status, csv.body.message]).toEqual([400, message]);
  });
});

describe("the real duration of audio (POST /heard)", () => {
  it("keeps what the listening admin's page heard, never more than the session lasted, never less than it said", async () => {
    const [session] = await t.db
      .insert(listenSessions)
      .values({ adminId: id.admin, managerId: id.m1, callId: id.call1, startedAt: sql`now() - interval '41 seconds'` })
      .returning();
    const entry = async () => (await log({ kind: "listen", userId: id.admin })).body.entries.find((e: { id: number }) => e.id === session.id);
    // The page answers at once with nothing heard yet: a figure of 0, not «no report».
    expect((await heard(adminCookie, { intent: "listen", sessionId: session.id, heardMs: 0 })).status).toBe(204);
    expect(await entry()).toMatchObject({ heardMs: 0, firstHeardAt: null, endedAt: null });
    // The audio died after half a second.
    expect((await heard(adminCookie, { intent: "listen", sessionId: session.id, heardMs: 500, firstAgoMs: 40_500, lastAgoMs: 40_000 })).status).toBe(
      204,
    );
    const died = await entry();
    expect(died.heardMs).toBe(500);
    expect(died.spanMs).toBeGreaterThanOrEqual(41_000);
    expect(Date.parse(died.lastHeardAt) - Date.parse(died.firstHeardAt)).toBeGreaterThan(400);
    expect(Date.parse(died.lastHeardAt) - Date.parse(died.at)).toBeLessThan(3_000);
    // A smaller figure later does not lower it; a bigger one than the session's span is cut to the span.
    await heard(adminCookie, { intent: "listen", sessionId: session.id, heardMs: 100 });
    expect((await entry()).heardMs).toBe(500);
    await heard(adminCookie, { intent: "listen", sessionId: session.id, heardMs: 3_600_000 });
    const capped = await entry();
    expect(capped.heardMs).toBeGreaterThanOrEqual(41_000);
    expect(capped.heardMs).toBeLessThan(50_000);
    // Only the listening admin's page may report it.
    const stranger = await heard(otherAdminCookie, { intent: "listen", sessionId: session.id, heardMs: 1 });
    expect([stranger.status, stranger.body.message]).toEqual([400, "Сеанс прослушивания не найден или давно завершён"]);
    expect((await heard(managerCookie, { intent: "listen", sessionId: session.id, heardMs: 1 })).status).toBe(400);
    expect((await heard(adminCookie, { intent: "listen", sessionId: session.id, heardMs: -5 })).body.message).toBe("Неверная длительность звука");
    expect((await heard(adminCookie, { intent: "peek" })).body.message).toBe("Неизвестное действие");
    await t.db.delete(listenSessions).where(eq(listenSessions.id, session.id));
  });

  it("takes a whisper's figure from the manager who heard it, and nothing once the session is long over", async () => {
    const [whisper] = await t.db
      .insert(listenSessions)
      .values({ kind: "whisper", adminId: id.admin, managerId: id.m1, callId: id.call1, startedAt: sql`now() - interval '20 seconds'` })
      .returning();
    expect((await heard(adminCookie, { intent: "listen", sessionId: whisper.id, heardMs: 5_000 })).status).toBe(400);
    expect(
      (await heard(managerCookie, { intent: "listen", sessionId: whisper.id, heardMs: 7_000, firstAgoMs: 15_000, lastAgoMs: 8_000 })).status,
    ).toBe(204);
    const [row] = await t.db.select().from(listenSessions).where(eq(listenSessions.id, whisper.id));
    expect(row.heardMs).toBe(7_000);
    // A session that ended five minutes ago takes no more reports.
    await t.db
      .update(listenSessions)
      .set({ endedAt: sql`now() - interval '5 minutes'`, startedAt: sql`now() - interval '6 minutes'` })
      .where(eq(listenSessions.id, whisper.id));
    expect((await heard(managerCookie, { intent: "listen", sessionId: whisper.id, heardMs: 9_000 })).status).toBe(400);
    await t.db.delete(listenSessions).where(eq(listenSessions.id, whisper.id));
  });

  it("logs one play for all of a player's requests and keeps how much it played, up to the recording's length", async () => {
    const key = "player-key-0001";
    const get = (range: string) => getPage(t, `/recordings/${id.call1}?play=${key}`, adminCookie).set("Range", range);
    expect((await get("bytes=0-")).status).toBe(206);
    // A seek asks from the middle, and again from the start: still the one play.
    expect((await get("bytes=2000-")).status).toBe(206);
    expect((await get("bytes=0-")).status).toBe(206);
    const plays = await t.db.select().from(recordingPlays).where(eq(recordingPlays.playKey, key));
    expect(plays).toHaveLength(1);
    expect(plays[0]).toMatchObject({ userId: id.admin, callId: id.call1, download: false, playedMs: null });
    expect((await heard(adminCookie, { intent: "recording", playKey: key, playedMs: 1_500 })).status).toBe(204);
    const entry = async () => (await log({ kind: "play", userId: id.admin })).body.entries.find((e: { id: number }) => e.id === plays[0].id);
    expect(await entry()).toMatchObject({ heardMs: 1_500, spanMs: 120_000 });
    await heard(adminCookie, { intent: "recording", playKey: key, playedMs: 999_999 });
    expect((await entry()).heardMs).toBe(120_000);
    // Another user's report, or a key never played, finds nothing; a malformed key is refused.
    const other = await heard(otherAdminCookie, { intent: "recording", playKey: key, playedMs: 5 });
    expect([other.status, other.body.message]).toEqual([400, "Прослушивание записи не найдено"]);
    expect((await heard(adminCookie, { intent: "recording", playKey: "never-played-01", playedMs: 5 })).status).toBe(400);
    expect((await getPage(t, `/recordings/${id.call1}?play=<x>`, adminCookie)).status).toBe(400);
    // A player without a key (no JavaScript) is still logged, from its first request.
    const before = (await t.db.select().from(recordingPlays).where(eq(recordingPlays.callId, id.call2))).length;
    await getPage(t, `/recordings/${id.call2}`, managerCookie);
    await getPage(t, `/recordings/${id.call2}`, adminCookie);
    expect((await t.db.select().from(recordingPlays).where(eq(recordingPlays.callId, id.call2))).length).toBe(before + 1);
    await t.db.delete(recordingPlays).where(sql`${recordingPlays.callId} = ${id.call2} and ${recordingPlays.playedMs} is null`);
    await t.db.delete(recordingPlays).where(eq(recordingPlays.playKey, key));
  });
});

describe("the CSV", () => {
  /** Body as bytes (the BOM must be checked as bytes). */
  const raw = (request: ReturnType<typeof getPage>) =>
    request.buffer(true).parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done(null, Buffer.concat(chunks)));
    });

  it("is the filtered log for Excel: UTF-8 with a BOM, a Russian header, «;», CRLF, Kyiv times, seconds", async () => {
    const res = await raw(t.request.get("/api/v1/access-log.csv").query({ managerId: id.m1 }).set(bearer(adminToken)));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(res.headers["content-disposition"]).toMatch(/^attachment; filename\*=UTF-8''access-log-\d{4}-\d{2}-\d{2}\.csv$/);
    const bytes = res.body as Buffer;
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = bytes.subarray(3).toString("utf8").split("\r\n");
    expect(lines.pop()).toBe("");
    expect(lines).toEqual([
      "Когда (Киев);Кто;Действие;Менеджер;Тематика;Звонок №;Номер клиента;Направление;Звонок начат (Киев);Звук, с;Из них возможно, с;Звук начался (Киев);Звук кончился (Киев)",
      `22.11.2026 11:00:00;Ольга;Прослушивание записи;Ольга;Кредиты;${id.call1};380671110001;исходящий;20.11.2026 12:00:00;;120;;`,
      `21.11.2026 10:00:00;Виктор;Скачивание записи;Ольга;Кредиты;${id.call1};380671110001;исходящий;20.11.2026 12:00:00;120;120;;`,
      `20.11.2026 12:00:05;Администратор;Прослушивание звонка;Ольга;Кредиты;${id.call1};380671110001;исходящий;20.11.2026 12:00:00;;41;;`,
    ]);
  });

  it("is the same from the page's link, with the page's filters", async () => {
    const res = await raw(getPage(t, `/access-log/csv?filterId=${id.t2}&kind=whisper`, adminCookie));
    expect(res.status).toBe(200);
    const lines = (res.body as Buffer)
      .toString("utf8")
      .replace(/^\uFEFF/, "")
      .split("\r\n");
    expect(lines.slice(1, -1)).toEqual([
      `28.11.2026 23:30:00;Виктор;Подсказка менеджеру;Пётр;Страховки;${id.call2};380671110002;входящий;28.11.2026 23:00:00;12;30;28.11.2026 23:30:01;28.11.2026 23:30:13`,
    ]);
    const bad = await getPage(t, "/access-log/csv?from=2026-13-40", adminCookie);
    expect([bad.status, bad.text]).toEqual([400, "Неверная дата «с»: 2026-13-40 (нужна существующая дата вида 2026-11-29)"]);
  });
});

describe("the page, without JavaScript", () => {
  const rows = (html: string) => [...html.matchAll(/data-testid="access-row" data-kind="(\w+)"/g)].map((m) => m[1]);

  it("shows the log with the law's sentence, its durations, a CSV link and links to the call", async () => {
    const res = await getPage(t, "/access-log", adminCookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain("<title>Журнал доступа</title>");
    expect(res.text).toContain("Записи разговоров — персональные данные клиентов (152-ФЗ)");
    expect(rows(res.text)).toEqual(["play", "whisper", "play", "download", "listen"]);
    expect(res.text).toContain("45 с из 1:00");
    expect(res.text).toContain("12 с из 30 с");
    expect(res.text).toContain("файл целиком, 2:00");
    expect(res.text).toContain("нет данных");
    expect(res.text).toContain(`href="/recordings/${id.call2}"`);
    expect(res.text).toContain(`href="/searchlead?term=380671110002"`);
    // Which way each call went (issue 42).
    expect(res.text).toContain(">380671110002</a> · входящий");
    expect(res.text).toContain(">380671110001</a> · исходящий");
    expect(res.text).toContain('href="/access-log/csv"');
    expect(res.text).toMatch(/Всего: (<!-- -->)?5</);
  });

  it("filters with its GET form, and pages", async () => {
    const res = await getPage(t, `/access-log?userId=&managerId=${id.m1}&filterId=&from=2026-11-21&to=&kind=`, adminCookie);
    expect(rows(res.text)).toEqual(["play", "download"]);
    expect(res.text).toContain(`href="/access-log/csv?managerId=${id.m1}&amp;from=2026-11-21"`);
    const paged = await getPage(t, "/access-log?size=20&page=9", adminCookie);
    expect(rows(paged.text)).toHaveLength(5);
  });

  it("says a wrong filter at its field, 400, and never a 500", async () => {
    const res = await getPage(t, "/access-log?from=2026-13-40&managerId=5", adminCookie);
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/<input id="from"[^>]*aria-invalid="true"/);
    expect(res.text).toContain(
      '<p id="from-error" class="mt-1 max-w-xs text-sm text-red-700 dark:text-red-400" data-field-error="">Неверная дата «с»: 2026-13-40',
    );
    expect(rows(res.text)).toEqual([]);
    const manager = await getPage(t, "/access-log?managerId=999999", adminCookie);
    expect(manager.status).toBe(400);
    expect(manager.text).toMatch(/id="by-manager-error"[^>]*data-field-error="">Нет менеджера с id 999999/);
  });

  it("names a fetch by a webhook's signed link (no user behind it) and counts it as the whole file", async () => {
    // Made last: the other tests count the entries above.
    await t.db.insert(recordingPlays).values({ callId: id.call1, userId: null, download: true, byLink: true, at: new Date("2026-11-25T10:00:00Z") });
    const res = await getPage(t, "/access-log?kind=link", adminCookie);
    expect(rows(res.text)).toEqual(["link"]);
    expect(res.text).toContain("интеграция (ссылка из вебхука)");
    expect(res.text).toContain("Скачивание по ссылке из вебхука");
    expect(res.text).toContain("файл целиком, 2:00");
    expect(res.text).toContain('<option value="link" selected="">Скачивание по ссылке из вебхука</option>');
  });

  it("says plainly when nothing matches", async () => {
    const res = await getPage(t, "/access-log?from=2026-12-01", adminCookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain("С такими фильтрами ничего нет");
    expect(res.text).not.toContain("Скачать CSV");
  });
});
