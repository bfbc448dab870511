import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { applications, contacts, leadEvents, settings, statuses } from "../../db/schema";
import { bearer, createTestApp, createUser, reloadUser, type TestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

let t: TestApp;
let forwarded: Array<Record<string, unknown>> = [];
let forwardStatus = 200;
let receiver: http.Server;

beforeAll(async () => {
  // The application forwarding target is an external system: a real HTTP receiver on a loopback port.
  receiver = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      forwarded.push(JSON.parse(text));
      res.writeHead(forwardStatus, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const { port } = receiver.address() as AddressInfo;
  // The SPEC call POST /status/proxy-application forwards at once; the URL's webhook (issue 44) would send the same
  // report from its queue too, so its sender does not look in this file (test/api/webhooks.test.ts covers it).
  t = await createTestApp({ env: { APPLICATION_FORWARD_URL: `http://127.0.0.1:${port}/applications`, WEBHOOK_POLL_MS: "3600000" } });
  await t.db.update(settings).set({ rateWithPassportCents: 1500, rateWithoutPassportCents: 700 }).where(eq(settings.id, 1));
});
afterAll(async () => {
  await t?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function setup(count = 3, options: { statuses?: string[] } = {}) {
  const manager = await createUser(t.db);
  const token = await t.tokenFor(manager);
  const { base, contacts: rows } = await createBase(t.db, { count });
  const s = await statusesByText(t.db);
  const filter = await createFilterRow(t.db, {
    managerIds: [manager.user.id],
    databaseIds: [base.id],
    statusIds: (options.statuses ?? ["Перезвонить"]).map((text) => s[text].id),
  });
  const getLead = () => t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(bearer(token));
  const press = (contactId: number, statusText: string, extra: Record<string, unknown> = {}) =>
    t.request
      .put("/api/v1/status/update-and-get-lead")
      .set(bearer(token))
      .send({ statusText, contactId, userId: manager.user.id, passport: "", filterId: filter.id, clientInfo: "", ...extra });
  return { manager, token, base, rows, filter, getLead, press, s };
}

describe("GET /api/v1/database/filtered-lead", () => {
  it("claims the first free contact in import order and answers it in the SPEC Lead shape", async () => {
    const { rows, getLead, manager } = await setup();
    const res = await getLead();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: rows[0].id,
      name: rows[0].name,
      phone: rows[0].phone,
      city: "Киев",
      address: rows[0].address,
      additionalInfo1: rows[0].additionalInfo1,
      additionalInfo2: "",
      additionalInfo3: "",
      additionalInfo4: "",
      // The topic has no card template: no card fields (issue 41, test/api/card-prefill.test.ts).
      cardFields: [],
    });
    const [held] = await t.db.select().from(contacts).where(eq(contacts.id, rows[0].id));
    expect(held.heldBy).toBe(manager.user.id);
  });

  it("answers the held lead again instead of claiming a second one", async () => {
    const { getLead, manager } = await setup();
    const first = await getLead();
    const again = await getLead();
    expect(again.body.id).toBe(first.body.id);
    const held = await t.db.select().from(contacts).where(eq(contacts.heldBy, manager.user.id));
    expect(held).toHaveLength(1);
  });

  it("gives nothing from an inactive filter (403) nor to a manager the filter does not list", async () => {
    const { filter, getLead, manager, token } = await setup();
    await t.request
      .put(`/api/v1/filters/${filter.id}/activate`)
      .set(bearer(await t.adminToken()))
      .expect(200);
    const res = await getLead();
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Эта тематика вам недоступна");
    const held = await t.db.select().from(contacts).where(eq(contacts.heldBy, manager.user.id));
    expect(held).toHaveLength(0);
    const other = await setup();
    const foreign = await t.request.get(`/api/v1/database/filtered-lead?filterId=${other.filter.id}&userId=${manager.user.id}`).set(bearer(token));
    expect(foreign.status).toBe(403);
  });

  it("refuses another user's id with 403 and bad query values with 400", async () => {
    const a = await setup();
    const b = await setup();
    const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${b.filter.id}&userId=${b.manager.user.id}`).set(bearer(a.token));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Можно работать только со своими данными");
    const bad = await t.request.get("/api/v1/database/filtered-lead?filterId=x&userId=1").set(bearer(a.token));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Неверный идентификатор");
    const anonymous = await t.request.get(`/api/v1/database/filtered-lead?filterId=${a.filter.id}&userId=1`);
    expect(anonymous.status).toBe(401);
  });

  it("hands an abandoned lead to another manager once the hold expires; its old holder gets 409", async () => {
    const { base, filter, getLead, press, manager } = await setup(1);
    const first = await getLead();
    const other = await createUser(t.db);
    const otherToken = await t.tokenFor(other);
    await t.db.execute(sql`insert into filter_managers (filter_id, user_id) values (${filter.id}, ${other.user.id})`);
    const otherLead = () => t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${other.user.id}`).set(bearer(otherToken));
    expect((await otherLead()).text).toBe('""');

    await t.db
      .update(contacts)
      .set({ heldUntil: sql`now() - interval '1 minute'` })
      .where(eq(contacts.databaseId, base.id));
    const taken = await otherLead();
    expect(taken.body.id).toBe(first.body.id);
    const [row] = await t.db.select().from(contacts).where(eq(contacts.id, first.body.id));
    expect(row.heldBy).toBe(other.user.id);

    const late = await press(first.body.id, "Отказ");
    expect(late.status).toBe(409);
    expect(late.body.error).toBe("lead_not_held");
    expect((await getLead()).text).toBe('""');
    expect(manager.user.id).not.toBe(other.user.id);
  });
});

describe("PUT /api/v1/status/update-and-get-lead", () => {
  it("records the press, sets the contact's status and answers the next lead; empty when the base runs out", async () => {
    const { rows, getLead, press, manager, filter, s } = await setup(2);
    const first = await getLead();
    const second = await press(first.body.id, "Отказ");
    expect(second.status).toBe(200);
    expect(second.body.id).toBe(rows[1].id);
    const last = await press(second.body.id, "Недозвон");
    expect(last.status).toBe(200);
    // SPEC: empty text when no lead is left (JSON "").
    expect(last.headers["content-type"]).toMatch(/application\/json/);
    expect(last.text).toBe('""');

    const events = await t.db.select().from(leadEvents).where(eq(leadEvents.userId, manager.user.id)).orderBy(leadEvents.id);
    expect(events.map((e) => [e.contactId, e.statusText, e.filterId, e.isTechnical])).toEqual([
      [rows[0].id, "Отказ", filter.id, false],
      [rows[1].id, "Недозвон", filter.id, true],
    ]);
    const [worked] = await t.db.select().from(contacts).where(eq(contacts.id, rows[0].id));
    expect(worked).toMatchObject({ statusId: s["Отказ"].id, lastUserId: manager.user.id, heldBy: null });
  });

  it("works a contact again when its status is one the filter lists, after the free ones", async () => {
    const { rows, getLead, press } = await setup(2, { statuses: ["Перезвонить"] });
    const first = await getLead();
    const second = await press(first.body.id, "Перезвонить");
    expect(second.body.id).toBe(rows[1].id);
    const third = await press(second.body.id, "Отказ");
    expect(third.body.id).toBe(rows[0].id);
    const fourth = await press(third.body.id, "Отказ");
    expect(fourth.text).toBe('""');
  });

  it("hands the last contact straight back when its new status is one the filter works again", async () => {
    const { rows, getLead, press, manager, s } = await setup(1, { statuses: ["Перезвонить"] });
    const first = await getLead();
    const again = await press(first.body.id, "Перезвонить");
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(rows[0].id);
    const [held] = await t.db.select().from(contacts).where(eq(contacts.id, rows[0].id));
    expect(held).toMatchObject({ statusId: s["Перезвонить"].id, heldBy: manager.user.id });
    const done = await press(rows[0].id, "Отказ");
    expect(done.text).toBe('""');
  });

  it("accepts a status by its button text too", async () => {
    const { getLead, press } = await setup(2);
    // The seeded statuses have one name each (decision 081): an admin's own status with a shorter button.
    await t.db.insert(statuses).values({ text: "Клиент думает", buttonText: "Думает", color: "#0369a1", order: 40 });
    const first = await getLead();
    const res = await press(first.body.id, "Думает");
    expect(res.status).toBe(200);
    const [event] = await t.db.select().from(leadEvents).where(eq(leadEvents.contactId, first.body.id));
    expect(event.statusText).toBe("Клиент думает");
  });

  it("accepts the status by its id, as the lead panel sends it; the id names the status when a text comes too (decision 064)", async () => {
    const { getLead, press, rows, manager, s } = await setup(3);
    const first = await getLead();
    const byId = await press(first.body.id, "", { statusText: undefined, statusId: s["Отказ"].id });
    expect(byId.status).toBe(200);
    expect(byId.body.id).toBe(rows[1].id);
    // An id as text (a form's value) works too, and wins over a text that names another status.
    const both = await press(byId.body.id, "Перезвонить", { statusId: String(s["Недозвон"].id) });
    expect(both.status).toBe(200);
    const events = await t.db.select().from(leadEvents).where(eq(leadEvents.userId, manager.user.id)).orderBy(leadEvents.id);
    expect(events.map((e) => [e.contactId, e.statusText])).toEqual([
      [rows[0].id, "Отказ"],
      [rows[1].id, "Недозвон"],
    ]);
    const [worked] = await t.db.select().from(contacts).where(eq(contacts.id, rows[1].id));
    expect(worked.statusId).toBe(s["Недозвон"].id);
  });

  it("refuses a press that names no status, an unknown status id or a bad one with 400, recording nothing", async () => {
    const { getLead, press, manager } = await setup(2);
    const lead = await getLead();
    const none = await press(lead.body.id, "");
    expect(none.status).toBe(400);
    expect(none.body.message).toBe("Выберите статус");
    const unknown = await press(lead.body.id, "", { statusId: 999999 });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("Такого статуса нет");
    const bad = await press(lead.body.id, "Отказ", { statusId: "abc" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Неверный идентификатор");
    const events = await t.db.select().from(leadEvents).where(eq(leadEvents.userId, manager.user.id));
    expect(events).toHaveLength(0);
  });

  it("documents statusId next to SPEC's statusText in the OpenAPI description", async () => {
    const doc = (await t.request.get("/api/v1/openapi.json")).body;
    const body = doc.paths["/api/v1/status/update-and-get-lead"].put.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(["statusId", "statusText", "contactId", "userId", "filterId", "clientInfo", "callbackAt"]),
    );
  });

  it("answers 409 for a contact the caller does not hold, 403 for another user's id, 400 for an unknown status", async () => {
    const a = await setup(2);
    const b = await setup(2);
    const leadA = await a.getLead();
    const notHeld = await a.press(a.rows[1].id, "Отказ");
    expect(notHeld.status).toBe(409);
    expect(notHeld.body.message).toBe("Этот клиент уже не закреплён за вами: обновите страницу, чтобы получить следующего");
    const foreign = await a.press(leadA.body.id, "Отказ", { userId: b.manager.user.id, filterId: b.filter.id });
    expect(foreign.status).toBe(403);
    const unknown = await a.press(leadA.body.id, "Нет такого");
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("Такого статуса нет");
    const missing = await a.press(99999999, "Отказ");
    expect(missing.status).toBe(404);
    // Nothing was recorded by the refused presses.
    const events = await t.db.select().from(leadEvents).where(eq(leadEvents.userId, a.manager.user.id));
    expect(events).toHaveLength(0);
  });
});

describe("the report flow", () => {
  it("needs a filled client card", async () => {
    const { getLead, press, manager } = await setup(2);
    const lead = await getLead();
    const res = await press(lead.body.id, "Заявка", { clientInfo: "   " });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Заполните карточку клиента");
    expect((await reloadUser(t.db, manager.user.id)).balanceCents).toBe(0);
    const [contact] = await t.db.select().from(contacts).where(eq(contacts.id, lead.body.id));
    expect(contact.heldBy).toBe(manager.user.id);
  });

  it("stores the application with its text and passport flag, credits the manager, and forwards it", async () => {
    const { getLead, press, manager, token, rows } = await setup(3);
    const lead = await getLead();
    const clientInfo = "Сумма: 5000\nСрок: 12 месяцев";
    const next = await press(lead.body.id, "Заявка", { clientInfo, passport: "АВ123456" });
    expect(next.status).toBe(200);
    expect(next.body.id).toBe(rows[1].id);

    const [application] = await t.db.select().from(applications).where(eq(applications.contactId, lead.body.id));
    expect(application).toMatchObject({
      userId: manager.user.id,
      applicationText: clientInfo,
      phone: rows[0].phone,
      withPassport: true,
      amountCents: 1500,
      forwardedAt: null,
    });
    const [event] = await t.db.select().from(leadEvents).where(eq(leadEvents.id, application.leadEventId!));
    expect(event).toMatchObject({ isReport: true, withPassport: true, statusText: "Заявка" });
    const user = await reloadUser(t.db, manager.user.id);
    expect(user).toMatchObject({ balanceCents: 1500, notify: true, lastNotifyCents: 1500 });

    forwarded = [];
    const sent = await t.request
      .post("/api/v1/status/proxy-application")
      .set(bearer(token))
      .send({
        date: new Date().toISOString(),
        user: { id: manager.user.id, login: manager.login },
        applicationText: clientInfo,
        phone: rows[0].phone,
      });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({ success: true, message: "Данные отправлены", forwarded: true });
    expect(forwarded).toHaveLength(1);
    expect(forwarded[0]).toMatchObject({
      user: { id: manager.user.id, login: manager.login },
      applicationText: clientInfo,
      phone: rows[0].phone,
      withPassport: true,
    });
    const [after] = await t.db.select().from(applications).where(eq(applications.id, application.id));
    expect(after.forwardedAt).toBeInstanceOf(Date);

    // A report without a passport earns the other rate; a failing receiver gives Ошибка при отправке (502).
    const third = await press(next.body.id, "Заявка", { clientInfo: "Сумма: 100" });
    expect(third.status).toBe(200);
    expect((await reloadUser(t.db, manager.user.id)).balanceCents).toBe(2200);
    forwardStatus = 500;
    const failed = await t.request
      .post("/api/v1/status/proxy-application")
      .set(bearer(token))
      .send({ user: { id: manager.user.id, login: manager.login }, applicationText: "Сумма: 100", phone: rows[1].phone });
    forwardStatus = 200;
    expect(failed.status).toBe(502);
    expect(failed.body).toEqual({ error: "forward_failed", message: "Ошибка при отправке" });
    const [second] = await t.db.select().from(applications).where(eq(applications.contactId, rows[1].id));
    expect(second).toMatchObject({ withPassport: false, amountCents: 700, forwardedAt: null, forwardError: "HTTP 500" });
  });

  it("refuses proxy-application with no text, for another user, or with no stored application", async () => {
    const a = await setup(1);
    const b = await setup(1);
    const empty = await t.request
      .post("/api/v1/status/proxy-application")
      .set(bearer(a.token))
      .send({ user: { id: a.manager.user.id, login: a.manager.login }, applicationText: "", phone: "" });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe("Нет текста для отправки в отчет");
    const foreign = await t.request
      .post("/api/v1/status/proxy-application")
      .set(bearer(a.token))
      .send({ user: { id: b.manager.user.id, login: b.manager.login }, applicationText: "x", phone: "" });
    expect(foreign.status).toBe(403);
    const none = await t.request
      .post("/api/v1/status/proxy-application")
      .set(bearer(a.token))
      .send({ user: { id: a.manager.user.id, login: a.manager.login }, applicationText: "x", phone: "" });
    expect(none.status).toBe(404);
  });
});
