import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, queryRows } from "../../db/client";
import { calls, leadEvents, webhookDeliveries, webhooks } from "../../db/schema";
import { createTestDb } from "../helpers/db";
import { buildApp } from "../../server/app";
import { recordingDone } from "../../server/core/recordings/recordings";
import { checkRecordingLink } from "../../server/core/webhooks/links";
import { enqueueEvent } from "../../server/core/webhooks/queue";
import { claimDeliveries } from "../../server/core/webhooks/deliver";
import { FROM_ENV_FIXED, newWebhookSecret, syncForwardWebhook } from "../../server/core/webhooks/webhooks";
import { BUSY_SEND_GAP_MS, startWebhookWorker } from "../../server/jobs/webhooks";
import { bearer, createTestApp, createUser, type TestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { startWebhookReceiver } from "../helpers/webhook-receiver";

/** A CRM's receiver: a real HTTP server that checks every signature with the standardwebhooks library. */
const SLOW_MS = 3000;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

const ENV = { WEBHOOK_TIMEOUT_MS: "1000", WEBHOOK_RETRY_BASE_MS: "100", WEBHOOK_POLL_MS: "50", WEBHOOK_CONCURRENCY: "4" };
let t: TestApp;
let admin: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver({ slowMs: SLOW_MS });
  t = await createTestApp({ env: ENV });
  admin = await t.adminToken();
});
afterAll(async () => {
  await t?.close();
  await receiver?.stop();
});

const hookUrl = () => receiver.url;

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("webhooks: configuration", () => {
  it("an admin creates one with a secret in Standard Webhooks' form; a bad address or no event is refused in Russian", async () => {
    const bad = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: "ftp://x", events: ["status.pressed"] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Укажите адрес, начинающийся с http:// или https://");
    const none = await t.request.post("/api/v1/webhooks").set(bearer(admin)).send({ url: "https://crm.example.com/h", events: [] });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe("Выберите хотя бы одно событие");
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: "https://crm.example.com/h", events: ["report.sent"] });
    expect(made.status).toBe(200);
    expect(made.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(made.body.enabled).toBe(true);
    const gone = await t.request.delete(`/api/v1/webhooks/${made.body.id}`).set(bearer(admin));
    expect(gone.status).toBe(200);
    expect((await t.request.get(`/api/v1/webhooks/${made.body.id}`).set(bearer(admin))).status).toBe(404);
  });

  it("APPLICATION_FORWARD_URL's webhook keeps the variable's address and events (409 in Russian), and is switched off and on", async () => {
    await syncForwardWebhook(t.db, "https://old-crm.example.com/applications");
    const hook = (await t.request.get("/api/v1/webhooks").set(bearer(admin))).body.find((h: { fromEnv: boolean }) => h.fromEnv);
    expect(hook).toMatchObject({ url: "https://old-crm.example.com/applications", events: ["report.sent"], enabled: true });
    for (const change of [{ url: "https://new-crm.example.com/h" }, { events: ["report.sent", "call.ended"] }]) {
      const refused = await t.request
        .put(`/api/v1/webhooks/${hook.id}`)
        .set(bearer(admin))
        .send({ url: hook.url, events: hook.events, enabled: true, ...change });
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ error: "webhook_from_env", message: FROM_ENV_FIXED });
    }
    const off = await t.request.put(`/api/v1/webhooks/${hook.id}`).set(bearer(admin)).send({ url: hook.url, events: hook.events, enabled: false });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ url: "https://old-crm.example.com/applications", enabled: false });
    await syncForwardWebhook(t.db, "");
    expect((await t.request.get(`/api/v1/webhooks/${hook.id}`).set(bearer(admin))).status).toBe(404);
  });

  it("a manager may neither see nor create webhooks", async () => {
    const manager = await createUser(t.db);
    const token = await t.tokenFor(manager);
    expect((await t.request.get("/api/v1/webhooks").set(bearer(token))).status).toBe(403);
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(token))
      .send({ url: "https://crm.example.com/h", events: ["report.sent"] });
    expect(made.status).toBe(403);
  });
});

describe("webhooks: a recording's signed link, the delivery log's «Отправить ещё раз», a webhook failing for a day", () => {
  it("recording.ready carries a link the receiver can fetch without an account; a changed or expired one is refused", async () => {
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: hookUrl(), events: ["recording.ready"] });
    receiver.secret = made.body.secret;
    receiver.mode = "ok";
    const manager = await createUser(t.db);
    const [call] = await t.db
      .insert(calls)
      .values({ userId: manager.user.id, number: "+380501112233", direction: "out", startedAt: new Date(), endedAt: new Date() })
      .returning();
    const folder = t.app.deps.recordings.folder;
    fs.mkdirSync(path.join(folder.audio, "t"), { recursive: true });
    fs.writeFileSync(path.join(folder.audio, "t", `${call.id}.ogg`), Buffer.from("OggS-test-audio"));
    await recordingDone(t.db, Number(call.id), `t/${call.id}.ogg`, 1500, "https://dialer.example.com");
    const got = await until("the recording event", async () =>
      receiver.accepted.find((a) => a.type === "recording.ready" && a.data?.callId === Number(call.id)),
    );
    const url = new URL(String(got.data!.url));
    expect(url.origin).toBe("https://dialer.example.com");
    const audio = await t.request.get(`${url.pathname}${url.search}`).buffer(true);
    expect(audio.status).toBe(200);
    expect(audio.headers["content-type"]).toBe("audio/ogg");
    expect(audio.body.toString()).toBe("OggS-test-audio");
    // The fetch is in the access log as a download by the link, with no user behind it; a range past the start
    // (the same fetch going on) adds nothing, a forged link nothing.
    expect((await t.request.get(`${url.pathname}${url.search}`).set("Range", "bytes=4-").buffer(true)).status).toBe(206);
    const linked = async () =>
      (await t.request.get(`/api/v1/access-log?kind=link`).set(bearer(admin))).body.entries.filter(
        (e: { call: { id: number } | null }) => e.call?.id === Number(call.id),
      );
    expect(await linked()).toMatchObject([{ kind: "link", user: null, manager: { id: manager.user.id }, heardMs: 1500 }]);
    const all = (await t.request.get(`/api/v1/access-log`).set(bearer(admin))).body.entries;
    expect(all.filter((e: { call: { id: number } | null }) => e.call?.id === Number(call.id)).map((e: { kind: string }) => e.kind)).toEqual(["link"]);
    expect(
      (await t.request.get(`/api/v1/access-log?kind=download`).set(bearer(admin))).body.entries.some((e: { kind: string }) => e.kind === "link"),
    ).toBe(false);
    // One character of the signature changed (to another one: a signature starting with "0" stayed valid 1 run in 16).
    const forgedSearch = url.search.replace(/signature=(.)/, (_, first: string) => `signature=${first === "0" ? "1" : "0"}`);
    expect(forgedSearch).not.toBe(url.search);
    const forged = await t.request.get(`${url.pathname}${forgedSearch}`);
    expect(forged.status).toBe(403);
    expect(forged.body.message).toBe("Неверная ссылка на запись");
    await expect(checkRecordingLink(t.db, { id: call.id, ...Object.fromEntries(url.searchParams) }, Date.now() + 49 * 3600_000)).rejects.toThrow(
      "Срок действия ссылки на запись истёк",
    );
    expect(await linked()).toHaveLength(1);
  });

  it("shows each attempt in the log; «Отправить ещё раз» sends a failed event again; a day of failures switches the webhook off", async () => {
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: hookUrl(), events: ["base.imported"] });
    receiver.secret = made.body.secret;
    const hookId: number = made.body.id;
    receiver.mode = "500";
    await enqueueEvent(t.db, "base.imported", { baseId: 1, name: "Тест" });
    await until("a 500", async () => {
      const log = (await t.request.get(`/api/v1/webhooks/${hookId}/deliveries`).set(bearer(admin))).body;
      return log[0]?.attempts.length >= 2 && log;
    });
    const log = (await t.request.get(`/api/v1/webhooks/${hookId}/deliveries`).set(bearer(admin))).body;
    expect(log[0]).toMatchObject({ eventType: "base.imported", state: "pending" });
    expect(log[0].attempts[0]).toMatchObject({ httpStatus: 500, response: "Внутренняя ошибка CRM" });
    // A day passes with no success: the next failure fails the event and switches the webhook off. Both moved back in
    // one statement: the retries go on meanwhile, and one falling between two statements (CI on Postgres, 2026-12-02)
    // found the webhook failing for a day but its event not, switched the webhook off and left the event pending.
    await t.db.execute(
      sql`with hook as (update webhooks set failing_since = now() - interval '25 hours' where id = ${hookId} returning id)
        update webhook_deliveries set created_at = now() - interval '25 hours' where webhook_id = (select id from hook)`,
    );
    const off = await until("switched off", async () => {
      const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, hookId));
      return !row.enabled && row;
    });
    expect(off.disabledReason).toMatch(/^Выключен: не принимает события с \d\d\.\d\d\.\d{4} \d\d:\d\d$/);
    const [failed] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hookId));
    expect(failed.state).toBe("failed");
    const dashboard = await t.request.get(`/api/v1/webhooks/${hookId}`).set(bearer(admin));
    expect(dashboard.body).toMatchObject({ enabled: false, failed: 1 });
    // The receiver is fixed; «Отправить ещё раз» switches it on and the event arrives with its own id.
    receiver.mode = "ok";
    const again = await t.request.post(`/api/v1/webhooks/${hookId}/deliveries/${failed.id}/resend`).set(bearer(admin));
    expect(again.status).toBe(200);
    await until("the resent event", async () => receiver.accepted.some((a) => a.id === failed.messageId));
    const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, hookId));
    expect(row).toMatchObject({ enabled: true, failingSince: null, disabledReason: null });
    // The log: the failures, then the accepted attempt with the CRM's answer.
    const delivered = async () =>
      until("delivered in the log", async () => {
        const [entry] = (await t.request.get(`/api/v1/webhooks/${hookId}/deliveries`).set(bearer(admin))).body;
        return entry.state === "delivered" && entry;
      });
    const first = await delivered();
    const failures = first.attempts.length - 1;
    expect(failures).toBeGreaterThanOrEqual(2);
    expect(first.attempts.slice(0, failures).every((a: { httpStatus: number }) => a.httpStatus === 500)).toBe(true);
    expect(first.attempts.at(-1)).toMatchObject({ httpStatus: 200, response: "ok" });
    // Sent once more after it was accepted: the log keeps both acceptances, in order.
    const once = receiver.accepted.filter((a) => a.id === failed.messageId).length;
    await t.request.post(`/api/v1/webhooks/${hookId}/deliveries/${failed.id}/resend`).set(bearer(admin));
    await until("sent again", async () => receiver.accepted.filter((a) => a.id === failed.messageId).length > once);
    const second = await delivered();
    expect(second.attempts).toHaveLength(failures + 2);
    expect(second.attempts.slice(-2).map((a: { httpStatus: number }) => a.httpStatus)).toEqual([200, 200]);
    expect(Date.parse(second.attempts.at(-1).at)).toBeGreaterThan(Date.parse(second.attempts.at(-2).at));
    // Deleted, it takes its deliveries and their log with it (no foreign key does it since migration 0045).
    expect((await t.request.delete(`/api/v1/webhooks/${hookId}`).set(bearer(admin))).status).toBe(200);
    const left = await queryRows(
      t.db,
      sql`select (select count(*) from webhook_deliveries where webhook_id = ${hookId})::int as deliveries,
        (select count(*) from webhook_attempts where webhook_id = ${hookId})::int as attempts`,
    );
    expect(left).toEqual([{ deliveries: 0, attempts: 0 }]);
  });
});

describe("webhooks: the end of an event's day", () => {
  // An event no other webhook of this file takes (their receiver's secret changes with each test).
  it("switches the webhook off when nothing was accepted since the event's first attempt, and leaves it on after a success", async () => {
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: hookUrl(), events: ["callback.missed"] });
    receiver.secret = made.body.secret;
    const hookId: number = made.body.id;
    receiver.mode = "500";
    const firstFailure = async () =>
      until("a first failed attempt", async () => {
        const log = (await t.request.get(`/api/v1/webhooks/${hookId}/deliveries`).set(bearer(admin))).body;
        return log.find((d: { state: string; attempts: unknown[] }) => d.state === "pending" && d.attempts.length >= 1);
      });
    const dayOver = async (deliveryId: number, failingSince: string) => {
      // One statement: an attempt in flight sees both or neither.
      await t.db.execute(sql`with w as (update webhooks set failing_since = ${failingSince}::timestamptz where id = ${hookId})
        update webhook_deliveries set created_at = now() - interval '25 hours' where id = ${deliveryId}`);
      return until("the event failed", async () => {
        const [row] = await t.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId));
        return row.state === "failed" && row;
      });
    };

    // The receiver accepted something after this event's first attempt: the event fails, the webhook stays on.
    await enqueueEvent(t.db, "callback.missed", { note: "Первое" });
    const first = await firstFailure();
    await dayOver(first.id, new Date(Date.now() + 1000).toISOString());
    const [stillOn] = await t.db.select().from(webhooks).where(eq(webhooks.id, hookId));
    expect(stillOn).toMatchObject({ enabled: true, disabledReason: null });

    // Nothing accepted since the event's first attempt, though the webhook's own failing clock says an hour only:
    // the event's day is over, and the webhook is switched off with it.
    await t.db.execute(sql`update webhooks set failing_since = null where id = ${hookId}`);
    await enqueueEvent(t.db, "callback.missed", { note: "Второе" });
    const second = await firstFailure();
    await dayOver(second.id, new Date(Date.now() - 3600_000).toISOString());
    const off = await until(
      "switched off",
      async () => {
        const [row] = await t.db.select().from(webhooks).where(eq(webhooks.id, hookId));
        return !row.enabled && row;
      },
      5000,
    );
    expect(off.disabledReason).toMatch(/^Выключен: не принимает события с \d\d\.\d\d\.\d{4} \d\d:\d\d$/);
  });
});

describe("API keys", () => {
  it("are shown once, stored only as a hash, show their last use, and a revoked one is refused at once", async () => {
    const bad = await t.request.post("/api/v1/api-keys").set(bearer(admin)).send({ name: " ", scopes: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Укажите название ключа");
    const made = await t.request
      .post("/api/v1/api-keys")
      .set(bearer(admin))
      .send({ name: "amoCRM", scopes: ["read"] });
    expect(made.status).toBe(200);
    const key: string = made.body.key;
    expect(key).toMatch(/^ldk_[A-Za-z0-9_-]{43}$/);
    const stored = await t.db.execute(sql`select * from api_keys where id = ${made.body.apiKey.id}`);
    expect(JSON.stringify(stored)).not.toContain(key.slice(4));
    const listed = await t.request.get("/api/v1/api-keys").set(bearer(admin));
    expect(JSON.stringify(listed.body)).not.toContain(key.slice(12));
    expect(listed.body.find((k: { id: number }) => k.id === made.body.apiKey.id)).toMatchObject({
      name: "amoCRM",
      scopes: ["read"],
      lastUsedAt: null,
    });

    expect((await t.request.get("/api/v1/status").set(bearer(key))).status).toBe(200);
    const used = (await t.request.get("/api/v1/api-keys").set(bearer(admin))).body.find((k: { id: number }) => k.id === made.body.apiKey.id);
    expect(Date.now() - Date.parse(used.lastUsedAt)).toBeLessThan(60_000);
    const write = await t.request.post("/api/v1/links").set(bearer(key)).send({ name: "x", link: "https://example.com", isActive: false });
    expect(write.status).toBe(403);
    expect(write.body.message).toBe("У этого ключа API нет права «Администрирование»");

    expect((await t.request.delete(`/api/v1/api-keys/${made.body.apiKey.id}`).set(bearer(admin))).status).toBe(200);
    expect((await t.request.get("/api/v1/status").set(bearer(key))).status).toBe(401);
  });
});

// Last: it stops the file's app and starts another on the same database.
describe("webhooks: delivery through a receiver that fails, goes down, is slow, and an app restart", () => {
  it("every press arrives signed, once per webhook-id, in order per client; the presses never wait for the receiver", async () => {
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: hookUrl(), events: ["status.pressed"] });
    expect(made.status).toBe(200);
    receiver.secret = made.body.secret;
    const hookId: number = made.body.id;

    const manager = await createUser(t.db);
    const token = await t.tokenFor(manager);
    const { base } = await createBase(t.db, { count: 3 });
    const s = await statusesByText(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [s["Перезвонить"].id] });
    let lead = (await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(bearer(token))).body;
    const pressTimes: number[] = [];
    const press = async (request = t.request) => {
      const started = performance.now();
      const res = await request
        .put("/api/v1/status/update-and-get-lead")
        .set(bearer(token))
        .send({ statusText: "Перезвонить", contactId: lead.id, userId: manager.user.id, passport: "", filterId: filter.id, clientInfo: "" });
      pressTimes.push(performance.now() - started);
      expect(res.status).toBe(200);
      lead = res.body;
    };

    // The CRM answers 500: the presses go on, their events wait.
    receiver.mode = "500";
    for (let i = 0; i < 3; i++) await press();
    await until("a 500 in the log", async () => {
      const log = await t.request.get(`/api/v1/webhooks/${hookId}/deliveries`).set(bearer(admin));
      return log.body.some((d: { attempts: Array<{ httpStatus: number }> }) => d.attempts.some((a) => a.httpStatus === 500));
    });
    // The CRM is down.
    await receiver.stop();
    for (let i = 0; i < 3; i++) await press();
    await until("a refused connection in the log", async () => {
      const log = await t.request.get(`/api/v1/webhooks/${hookId}/deliveries`).set(bearer(admin));
      return log.body.some((d: { attempts: Array<{ httpStatus: number | null; response: string }> }) =>
        d.attempts.some(
          (a) =>
            a.httpStatus === null && /^Ошибка соединения: получатель не принимает соединения \(ECONNREFUSED, 127\.0\.0\.1:\d+\)$/.test(a.response),
        ),
      );
    });
    // Back, but answering slower than the sender waits (1 s): presses made meanwhile take no longer for it.
    receiver.mode = "slow";
    await receiver.start();
    for (let i = 0; i < 3; i++) await press();
    await until("a timeout in the log", async () => {
      const log = await t.request.get(`/api/v1/webhooks/${hookId}/deliveries`).set(bearer(admin));
      return log.body.some((d: { attempts: Array<{ response: string }> }) => d.attempts.some((a) => a.response === "Нет ответа за 1000 мс"));
    });
    for (let i = 0; i < 3; i++) await press();
    expect(Math.max(...pressTimes.slice(-6))).toBeLessThan(SLOW_MS);

    // The app stops with events still queued, and starts again on the same database.
    await t.app.close();
    receiver.mode = "ok";
    const again = await buildApp({ handle: t.handle, config: t.config, web: false });
    await again.ready();
    try {
      const events = await t.db
        .select({ id: leadEvents.id, contactId: leadEvents.contactId })
        .from(leadEvents)
        .where(eq(leadEvents.userId, manager.user.id));
      expect(events).toHaveLength(12);
      const expected = new Set(events.map((e) => `msg_status_pressed_${e.id}`));
      await until("every event receiver.accepted", async () => {
        const ids = new Set(receiver.accepted.filter((a) => expected.has(a.id)).map((a) => a.id));
        return ids.size === expected.size;
      });
      await until("the queue empty", async () => {
        const rows = await t.db.select({ state: webhookDeliveries.state }).from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hookId));
        return rows.every((r) => r.state === "delivered") && rows.length === 12;
      });
      expect(receiver.badSignatures).toEqual([]);
      // Every id arrived; an id twice only when a slow answer came after the sender had given up (the receiver
      // knows it by its webhook-id), and never an id of another event.
      const mine = receiver.accepted.filter((a) => expected.has(a.id));
      expect(new Set(mine.map((a) => a.id))).toEqual(expected);
      // In order per client: each client's events first arrived in the order they were pressed.
      const firstSeen = [...new Map(mine.map((a) => [a.id, a])).values()];
      const byClient = new Map<number, number[]>();
      for (const a of firstSeen) byClient.set(a.client!, [...(byClient.get(a.client!) ?? []), a.eventId!]);
      for (const [, ids] of byClient) expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(byClient.size).toBeGreaterThan(0);
      const [hook] = await t.db.select().from(webhooks).where(eq(webhooks.id, hookId));
      expect(hook.enabled).toBe(true);
      expect(hook.failingSince).toBeNull();
    } finally {
      await again.close();
    }
  });
});

describe("webhooks: the sender while the app is busy", () => {
  it("yields to the app's requests (one delivery each BUSY_SEND_GAP_MS at most, never none), then sends the rest at once", async () => {
    // A database of its own and this test's worker alone (the app's worker serves the app's database).
    const handle = await createTestDb();
    let busy = true;
    // From the worker's start: it sends (at the busy rate) while the events are still being queued.
    const busySince = Date.now();
    const worker = startWebhookWorker(handle, { pollMs: 50, concurrency: 8, timeoutMs: 1000, busy: () => busy });
    try {
      const [hook] = await handle.db
        .insert(webhooks)
        .values({ url: hookUrl(), events: ["base.imported"], secret: newWebhookSecret() })
        .returning();
      receiver.secret = hook.secret;
      receiver.mode = "ok";
      const names = Array.from({ length: 40 }, (_, i) => `Занят ${i}`);
      for (const name of names) await enqueueEvent(handle.db, "base.imported", { baseId: 1, name });
      const mine = () => receiver.accepted.filter((a) => names.includes(String(a.data.name)));
      // The queue moves while the app is busy...
      await until("three deliveries while busy", async () => mine().length >= 3);
      busy = false;
      const busyMs = Date.now() - busySince;
      // ...but slowly: at most one each gap (a sender at full speed sends the 40 in well under a second).
      expect(mine().length).toBeLessThanOrEqual(Math.floor(busyMs / BUSY_SEND_GAP_MS) + 2);
      expect(mine().length).toBeLessThan(names.length);
      // Quiet again: the rest goes at full speed, each once.
      worker.kick();
      await until("all 40", async () => new Set(mine().map((a) => a.id)).size === names.length);
    } finally {
      await worker.stop();
      await handle.close();
    }
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("webhooks: the queue on Postgres", () => {
  it("claims with a plan made for the queue as it is, not one kept from when it was empty", async () => {
    const handle = await createTestDb();
    // One connection, as a worker's polls would reuse one: what Postgres keeps for a statement is kept per connection.
    const worker = await createDb({ databaseUrl: handle.url!, poolSize: 1 });
    try {
      await handle.db.execute(sql`insert into webhooks (url, events, secret)
        select 'http://127.0.0.1:9/hook', array['status.pressed'], 'whsec_' || encode(decode(md5(g::text), 'hex'), 'base64') from generate_series(1, 3) g`);
      for (let poll = 0; poll < 12; poll++) expect(await claimDeliveries(worker.db, 8, 40_000)).toEqual([]);
      await handle.db.execute(sql`insert into webhook_deliveries (webhook_id, message_id, event_type, payload, order_key)
        select w.id, 'msg_' || g, 'status.pressed', '{}'::jsonb, g % 1700 from generate_series(1, 1800) g cross join webhooks w`);
      expect(await claimDeliveries(worker.db, 8, 40_000)).toHaveLength(8);
      // Planned at each poll, never a prepared statement: the plan Postgres had kept from the empty queue made one
      // claim take 8 s in the leads bench (4 s here), where this one takes milliseconds.
      const prepared = (await worker.db.execute(sql`select statement from pg_prepared_statements`)) as unknown as { statement: string }[];
      expect(prepared.filter((row) => row.statement.includes("webhook_deliveries"))).toEqual([]);
    } finally {
      await worker.close();
      await handle.close();
    }
  });
});
