import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls, users } from "../../db/schema";
import { WEBHOOK_EVENT_TYPES } from "../../common/schemas/webhooks";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { type ApiManager, apiManager, pressApi, takeApiLead } from "../helpers/api-turns";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { buildXlsx } from "../helpers/xlsx";

/**
 * Issue 44: every event a webhook may ask for, made the way a user makes it (the API a page or the softphone calls),
 * arrives at a real receiver signed (the standardwebhooks library checks it) with the fields the issue names.
 * status.pressed, report.sent and recording.ready are proven in webhooks.test.ts.
 */
const t = useTestApp({ env: { WEBHOOK_TIMEOUT_MS: "2000", WEBHOOK_RETRY_BASE_MS: "100", WEBHOOK_POLL_MS: "50" } });
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let admin: string;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  admin = await t.adminToken();
  const made = await t.request
    .post("/api/v1/webhooks")
    .set(bearer(admin))
    .send({ url: receiver.url, events: WEBHOOK_EVENT_TYPES.filter((e) => e !== "status.pressed" && e !== "report.sent") });
  expect(made.status).toBe(200);
  receiver.secret = made.body.secret;
});
afterAll(async () => {
  expect(receiver.badSignatures).toEqual([]);
  await receiver.stop();
});

/** A status made by the admin through the API, with one of its switches on. */
async function statusWith(text: string, toggle: "callback" | "do-not-call") {
  const created = await t.request.post("/api/v1/status").set(bearer(admin)).send({ text });
  expect(created.status).toBe(200);
  expect((await t.request.put(`/api/v1/status/${created.body.id}/${toggle}`).set(bearer(admin))).status).toBe(200);
  return created.body as { id: number; text: string };
}

/** A topic working these statuses again, one fresh contact, and its manager holding it. */
async function managerHoldingLead(statusIds: number[]) {
  const { base, contacts } = await createBase(t.db, { count: 2 });
  const person = await createUser(t.db);
  const filter = await createFilterRow(t.db, { managerIds: [person.user.id], databaseIds: [base.id], statusIds });
  const m: ApiManager = await apiManager(t, person);
  expect((await takeApiLead(t, m, filter.id)).status).toBe(200);
  return { filter, m, client: contacts.find((c) => c.id === m.lead)! };
}

describe("webhook events: each arrives signed, with what the issue names", () => {
  it("call.ended: a softphone's call ends with its direction, talk time and outcome", async () => {
    const { m, client } = await managerHoldingLead([]);
    const started = await t.request.post("/api/v1/calls").set(m.auth).send({ number: client.phone, contactId: client.id });
    expect(started.status).toBe(200);
    const id = started.body.id as number;
    expect((await t.request.post(`/api/v1/calls/${id}/answer`).set(m.auth)).status).toBe(204);
    // The manager talked for 42 seconds.
    await t.db
      .update(calls)
      .set({ answeredAt: sql`now() - interval '41.6 seconds'` }) // 42, rounded, when the end arrives
      .where(eq(calls.id, id));
    expect((await t.request.post(`/api/v1/calls/${id}/end`).set(m.auth).send({ cause: "hangup" })).status).toBe(200);
    const got = await receiver.waitFor("call.ended", (e) => e.type === "call.ended" && e.data.callId === id);
    expect(got.id).toBe(`msg_call_ended_${id}`);
    expect(got.data).toMatchObject({
      clientId: client.id,
      number: client.phone,
      direction: "out",
      talkSeconds: 42,
      outcome: "answered",
      user: { id: m.id, login: m.login },
    });
  });

  it("callback.due when its time comes, callback.missed once the grace time has passed without it handed out", async () => {
    const later = await statusWith("Перезвонить (вебхук)", "callback");
    const { filter, m, client } = await managerHoldingLead([later.id]);
    const dueAt = new Date(Date.now() + 3600_000);
    expect((await pressApi(t, m, filter.id, later.text, { callbackAt: dueAt.toISOString(), callbackNote: "Спросить про рассрочку" })).status).toBe(
      200,
    );
    // He writes his note again from Мои перезвоны before it is due: the event carries the note as it is now.
    const [mine] = (await t.request.get("/api/v1/callbacks/mine").set(m.auth)).body;
    expect((await t.request.put(`/api/v1/callbacks/${mine.id}/note`).set(m.auth).send({ note: "Звонить после 15:00" })).status).toBe(200);
    // Nothing yet: the hour has not passed.
    await new Promise((r) => setTimeout(r, 6000));
    expect(receiver.accepted.some((e) => e.type.startsWith("callback.") && e.data.clientId === client.id)).toBe(false);
    // The database clock cannot be moved: the callback is moved back instead, as if its hour had come.
    await t.db.execute(sql`update callbacks set due_at = now() - interval '1 minute' where contact_id = ${client.id}`);
    const due = await receiver.waitFor("callback.due", (e) => e.type === "callback.due" && e.data.clientId === client.id);
    expect(due.data).toMatchObject({
      callbackId: mine.id,
      name: client.name,
      phone: client.phone,
      userId: m.id,
      filterId: filter.id,
      statusText: later.text,
      note: "Звонить после 15:00",
    });
    expect(receiver.accepted.some((e) => e.type === "callback.missed" && e.data.clientId === client.id)).toBe(false);
    // Twenty minutes late (the grace time is 15): missed, and `due` is not sent again.
    await t.db.execute(sql`update callbacks set due_at = now() - interval '20 minutes' where contact_id = ${client.id}`);
    const missed = await receiver.waitFor("callback.missed", (e) => e.type === "callback.missed" && e.data.clientId === client.id);
    expect(missed.data).toMatchObject({ callbackId: due.data.callbackId, phone: client.phone, userId: m.id });
    expect(receiver.accepted.filter((e) => e.type === "callback.due" && e.data.clientId === client.id)).toHaveLength(1);
  });

  it("client.final_status: the last attempt of a retry rule gives the client its final status", async () => {
    const s = await statusesByText(t.db);
    const gaveUp = await t.request.post("/api/v1/status").set(bearer(admin)).send({ text: "Недозвон (вебхук)" });
    const { base, contacts } = await createBase(t.db, { count: 2 });
    const person = await createUser(t.db);
    const topic = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send({
        name: "Итог по вебхуку",
        managers: [person.user.id],
        databases: [base.id],
        statuses: [s["Недозвон"].id],
        retryRules: [{ status: s["Недозвон"].id, delayMinutes: 60, maxAttempts: 1, finalStatus: gaveUp.body.id }],
        retryCountedBy: "presses",
      });
    expect(topic.status).toBe(200);
    await t.db.update(users).set({ gettingFilter: topic.body.id }).where(eq(users.id, person.user.id));
    const m = await apiManager(t, person);
    expect((await takeApiLead(t, m, topic.body.id)).status).toBe(200);
    const client = contacts.find((c) => c.id === m.lead)!;
    expect((await pressApi(t, m, topic.body.id, "Недозвон")).status).toBe(200);
    const got = await receiver.waitFor("client.final_status", (e) => e.type === "client.final_status");
    expect(got.data).toMatchObject({
      client: { id: client.id, name: client.name, phone: client.phone },
      status: { text: "Недозвон" },
      finalStatus: { id: gaveUp.body.id, text: "Недозвон (вебхук)" },
      user: { id: m.id },
    });
  });

  it("client.do_not_call: a do-not-call status puts the client's number on the list", async () => {
    const never = await statusWith("Не звонить (вебхук)", "do-not-call");
    const { filter, m, client } = await managerHoldingLead([]);
    expect((await pressApi(t, m, filter.id, never.text)).status).toBe(200);
    const got = await receiver.waitFor("client.do_not_call", (e) => e.type === "client.do_not_call");
    expect(got.data).toMatchObject({
      phone: client.phone,
      client: { id: client.id, name: client.name },
      status: { text: never.text, isDoNotCall: true },
    });
    const listed = await t.request.get(`/api/v1/do-not-call?q=${encodeURIComponent(client.phone!)}`).set(bearer(admin));
    expect(JSON.stringify(listed.body)).toContain(client.phone);
  });

  it("client.do_not_call: an admin's addition (one number, a paste) tells of each client it lists, and of no bare number", async () => {
    const clientOf = (e: { data: Record<string, unknown> }) => (e.data.client as { id?: number } | undefined)?.id;
    const { contacts } = await createBase(t.db, { count: 3 });
    const [one, two, untouched] = contacts;
    const [adminUser] = await t.db.select().from(users).where(eq(users.isAdmin, true)).limit(1);
    const added = await t.request.post("/api/v1/do-not-call").set(bearer(admin)).send({ phone: one.phone });
    expect(added.status).toBe(200);
    const first = await receiver.waitFor("the added client", (e) => e.type === "client.do_not_call" && clientOf(e) === one.id);
    expect(first.data).toMatchObject({
      phone: one.phone,
      source: "list",
      client: { id: one.id, name: one.name, phone: one.phone, baseId: one.databaseId },
      addedBy: { id: adminUser.id, login: adminUser.login },
    });
    // A paste: a client's number and one that no client has.
    const bare = "+380671112299";
    const pasted = await t.request
      .post("/api/v1/do-not-call/paste")
      .set(bearer(admin))
      .send({ text: `${two.phone}\n${bare}` });
    expect(pasted.status).toBe(200);
    expect(pasted.body).toMatchObject({ added: 2 });
    await receiver.waitFor("the pasted client", (e) => e.type === "client.do_not_call" && clientOf(e) === two.id);
    const told = receiver.accepted.filter((e) => e.type === "client.do_not_call" && e.data.source === "list");
    expect(told.map(clientOf).sort()).toEqual([one.id, two.id].sort());
    expect(told.some((e) => clientOf(e) === untouched.id || e.data.phone === bare)).toBe(false);
  });

  it("base.imported: an admin's upload arrives with the base, its name and the counts", async () => {
    const file = await buildXlsx([
      ["ФИО", "Телефон"],
      ["Иванов Иван", "0501234567"],
      ["Петрова Мария", "0671112233"],
      ["Без телефона", ""],
    ]);
    const res = await t.request
      .post("/api/v1/database/import")
      .set(bearer(admin))
      .field("name", "Вебхук-база")
      .field("mappings", JSON.stringify(["name", "phone"]))
      .attach("file", file, "base.xlsx");
    expect(res.status).toBe(200);
    const got = await receiver.waitFor("base.imported", (e) => e.type === "base.imported" && e.data.baseId === res.body.id);
    expect(got.data).toMatchObject({ name: "Вебхук-база", imported: res.body.imported, skipped: res.body.skipped });
    expect(got.data.imported).toBeGreaterThan(0);
  });
});
