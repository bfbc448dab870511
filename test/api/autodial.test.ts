import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { doNotCall, filters } from "../../db/schema";
import { autodialFor } from "../../server/core/leads/autodial";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";
import { createBase, statusesByText } from "../helpers/leads";

/**
 * A topic's «Автонабор через N с» (issue 29, decision 058): the form with JavaScript off, the API (backward
 * compatible: a body without it keeps it), and what the lead panel is told about a lead it may dial by itself.
 */
let adminToken: string;
const t = useTestApp({ web: true });
beforeAll(async () => {
  adminToken = await t.adminToken();
});

const AUTODIAL_ERROR = "Автонабор: целое число секунд от 3 до 120";

async function topicFixture(name: string) {
  const m = await createUser(t.db, { login: `ad-${name}` });
  const [status] = Object.values(await statusesByText(t.db));
  const { base, contacts } = await createBase(t.db, { count: 2 });
  const body = { name, managers: [m.user.id], databases: [base.id], statuses: [status.id] };
  return { m, status, base, contacts, body };
}

describe("the topic's autodial setting", () => {
  it("is off on a new topic, set and read back through the API, kept when a body leaves it out, refused below 3 s in Russian", async () => {
    const { body } = await topicFixture("API автонабора");
    const created = await t.request.post("/api/v1/filters").set(bearer(adminToken)).send(body);
    expect(created.status).toBe(200);
    expect(created.body.autodialSeconds).toBeNull();
    const id = created.body.id;
    const on = await t.request
      .put(`/api/v1/filters/${id}`)
      .set(bearer(adminToken))
      .send({ ...body, autodialSeconds: 5 });
    expect(on.body.autodialSeconds).toBe(5);
    // An older client's body without the field changes nothing.
    const kept = await t.request
      .put(`/api/v1/filters/${id}`)
      .set(bearer(adminToken))
      .send({ ...body, name: "API автонабора 2" });
    expect(kept.body).toMatchObject({ name: "API автонабора 2", autodialSeconds: 5 });
    expect((await t.request.get("/api/v1/filters").set(bearer(adminToken))).body.find((f: { id: number }) => f.id === id).autodialSeconds).toBe(5);
    for (const bad of [2, 0, 3.5, 121, "скоро", true]) {
      const refused = await t.request
        .put(`/api/v1/filters/${id}`)
        .set(bearer(adminToken))
        .send({ ...body, autodialSeconds: bad });
      expect(refused.status, String(bad)).toBe(400);
      expect(refused.body.message).toBe(AUTODIAL_ERROR);
    }
    const off = await t.request
      .put(`/api/v1/filters/${id}`)
      .set(bearer(adminToken))
      .send({ ...body, autodialSeconds: null });
    expect(off.body.autodialSeconds).toBeNull();
    const createdOn = await t.request
      .post("/api/v1/filters")
      .set(bearer(adminToken))
      .send({ ...body, name: "Сразу с автонабором", autodialSeconds: 3 });
    expect(createdOn.body.autodialSeconds).toBe(3);
  });

  it("the topic form (JavaScript off) turns it on with its seconds, refuses 2 s in Russian, and an unchecked box is off", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const { m, status, base } = await topicFixture("Форма автонабора");
    const [topic] = await t.db.insert(filters).values({ name: "Форма автонабора" }).returning();
    const fields = { intent: "save", name: "Форма автонабора", managers: String(m.user.id), databases: String(base.id), statuses: String(status.id) };
    const form = await getPage(t, `/loadedbases/filters/${topic.id}`, cookie);
    expect(form.text).toContain("Автонабор через");
    expect(form.text).toMatch(/name="autodialSeconds"[^>]*value="5"/);
    const saved = await postPageForm(t, `/loadedbases/filters/${topic.id}`, cookie, { ...fields, autodial: "on", autodialSeconds: "7" });
    expect(saved.status).toBe(302);
    const row = async () => (await t.db.select().from(filters).where(eq(filters.id, topic.id)))[0];
    expect((await row()).autodialSeconds).toBe(7);
    const again = (await getPage(t, `/loadedbases/filters/${topic.id}`, cookie)).text;
    expect(again).toMatch(/name="autodialSeconds"[^>]*value="7"/);
    // The topic's card says it too.
    expect(again).toContain("через 7 с");
    const bad = await postPageForm(t, `/loadedbases/filters/${topic.id}`, cookie, { ...fields, autodial: "on", autodialSeconds: "2" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain(AUTODIAL_ERROR);
    expect((await row()).autodialSeconds).toBe(7);
    // The box unchecked: off, whatever the seconds field holds.
    await postPageForm(t, `/loadedbases/filters/${topic.id}`, cookie, { ...fields, autodialSeconds: "7" });
    expect((await row()).autodialSeconds).toBeNull();
  });
});

describe("what the lead panel is told about its lead", () => {
  it("nothing when the topic has autodial off; the seconds, and a block for a do-not-call number or outside the client's hours", async () => {
    const { contacts } = await topicFixture("Панель автонабора");
    const [topic] = await t.db.insert(filters).values({ name: "Панель автонабора" }).returning();
    const m = await createUser(t.db, { login: "ad-panel", gettingFilter: topic.id });
    const [lead, listed] = contacts;
    expect(await autodialFor(t.db, m.user.id, lead.id)).toBeNull();
    await t.db.update(filters).set({ autodialSeconds: 4, callsFrom: "00:00", callsUntil: "00:00" }).where(eq(filters.id, topic.id));
    expect(await autodialFor(t.db, m.user.id, lead.id)).toEqual({ seconds: 4, block: null });
    await t.db.insert(doNotCall).values({ phoneKey: listed.phoneKey, phone: listed.phone });
    expect(await autodialFor(t.db, m.user.id, listed.id)).toEqual({ seconds: 4, block: "do_not_call" });
    // Today is not a calling day in the client's zone (the topic's, his own unknown).
    const [{ today }] = await queryRows<{ today: number }>(t.db, sql`select extract(isodow from now() at time zone 'Europe/Kyiv')::int as today`);
    await t.db
      .update(filters)
      .set({ callDays: [1, 2, 3, 4, 5, 6, 7].filter((d) => d !== Number(today)), timeZone: "Europe/Kyiv" })
      .where(eq(filters.id, topic.id));
    expect(await autodialFor(t.db, m.user.id, lead.id)).toEqual({ seconds: 4, block: "outside_hours" });
  });
});
