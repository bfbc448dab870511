import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { calls, contacts, filters, users } from "../../db/schema";
import { contactCallsLabel } from "../../common/contact-limits";
import { underContactLimits } from "../../server/core/filters/contact-limits";
import { loadLeadPanel } from "../../server/core/leads/panel";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";
import { createFilterRow, statusesByText } from "../helpers/leads";

/**
 * Contact limits per client (issue 43, decision 075): a topic allows at most N calls to one client a day, M a week,
 * K a month in his own zone, counting every attempt that left for the carrier or only the answered calls. The turn
 * never hands out a client at his limit, the proxy refuses his call (403 Contact Limit), the card says how many.
 * The period boundaries are checked at fixed instants (the rule takes the instant); the turn and the proxy at now,
 * with calls the test writes into the log.
 */
const SECRET = "kamailio-shares-this-secret-0123";
let adminToken: string;
const t = useTestApp({ env: { SIP_AUTH_SECRET: SECRET } });
beforeAll(async () => {
  adminToken = await t.adminToken();
});

const FIRST = "+7 495 123-45-01";
const SECOND = "+7 495 123-45-02";
let sequence = 0;

/** A base of two Moscow clients, a signed-in manager with a SIP login in a topic of it (around the clock). */
async function world() {
  sequence += 1;
  const file = Buffer.from(
    csvText([
      ["ФИО", "Телефон"],
      ["Первый", FIRST],
      ["Второй", SECOND],
    ]),
  );
  const imported = await t.request
    .post("/api/v1/database/import")
    .set(bearer(adminToken))
    .field("name", `Лимиты ${sequence}`)
    .field("mappings", JSON.stringify(["name", "phone"]))
    .attach("file", file, "base.csv");
  expect(imported.status).toBe(200);
  const rows = await t.db.select().from(contacts).where(eq(contacts.databaseId, imported.body.id)).orderBy(contacts.id);
  const s = await statusesByText(t.db);
  const sipLogin = String(8800 + sequence);
  const manager = await createUser(t.db, { login: `limits-${sequence}`, sipLogin, sipPassword: `sip-${sipLogin}` });
  const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [imported.body.id], statusIds: [s["Перезвонить"].id] });
  await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
  return { first: rows[0], second: rows[1], manager, filter, sipLogin, auth: bearer(await t.tokenFor(manager)) };
}
type World = Awaited<ReturnType<typeof world>>;

async function setLimits(w: World, contactLimits: Record<string, unknown>) {
  const s = await statusesByText(t.db);
  const res = await t.request
    .put(`/api/v1/filters/${w.filter.id}`)
    .set(bearer(adminToken))
    .send({ name: "Лимиты", managers: [w.manager.user.id], databases: [w.first.databaseId], statuses: [s["Перезвонить"].id], contactLimits });
  expect(res.status).toBe(200);
  return res.body;
}

/** A call to the client in the log, `minutesAgo` before now (0: now, so no day or week boundary falls between); answered or not; `reason` for a refused one. */
async function logCall(w: World, contactId: number, fields: { answered: boolean; minutesAgo?: number; reason?: string }) {
  const startedAt = sql`now() - make_interval(mins => ${fields.minutesAgo ?? 0})`;
  await t.db.insert(calls).values({
    userId: w.manager.user.id,
    contactId,
    number: FIRST,
    direction: "out",
    startedAt,
    answeredAt: fields.answered ? startedAt : null,
    endedAt: startedAt,
    outcome: fields.answered ? "answered" : fields.reason ? "failed" : "no_answer",
    reason: fields.reason ?? null,
    filterId: w.filter.id,
  });
}

const lead = async (w: World) => {
  const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${w.filter.id}&userId=${w.manager.user.id}`).set(w.auth);
  expect(res.status).toBe(200);
  return res.body === "" || res.body === null ? null : (res.body as { id: number; name: string });
};
const release = (w: World) => t.db.update(contacts).set({ heldBy: null, heldUntil: null }).where(eq(contacts.heldBy, w.manager.user.id));
const admit = (w: World, number: string, id: string) =>
  t.request
    .post("/api/v1/telephony/calls")
    .type("form")
    .set("X-Sip-Auth-Secret", SECRET)
    .send({ login: w.sipLogin, number, sipCallId: `${id}@browser` });

describe("the topic's contact limits through the API", () => {
  it("saves and shows them, keeps them on an edit without them, and refuses bad ones in Russian", async () => {
    const w = await world();
    const saved = await setLimits(w, { day: 1, week: 2, month: 8, counts: "connected" });
    expect(saved.contactLimits).toEqual({ day: 1, week: 2, month: 8, counts: "connected" });
    const s = await statusesByText(t.db);
    const kept = await t.request
      .put(`/api/v1/filters/${w.filter.id}`)
      .set(bearer(adminToken))
      .send({ name: "Лимиты", managers: [w.manager.user.id], databases: [w.first.databaseId], statuses: [s["Перезвонить"].id] });
    expect(kept.body.contactLimits).toEqual({ day: 1, week: 2, month: 8, counts: "connected" });
    const bad = async (contactLimits: unknown, message: string) => {
      const res = await t.request
        .put(`/api/v1/filters/${w.filter.id}`)
        .set(bearer(adminToken))
        .send({ name: "Лимиты", managers: [w.manager.user.id], databases: [w.first.databaseId], statuses: [s["Перезвонить"].id], contactLimits });
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    };
    await bad({ day: 0, counts: "connected" }, "Звонков клиенту в день: целое число от 1 до 1000 (пусто: без ограничения)");
    await bad({ week: "2", counts: "connected" }, "Звонков клиенту в неделю: целое число от 1 до 1000 (пусто: без ограничения)");
    await bad({ month: 3, counts: "all" }, "Считать звонки: все попытки (attempts) или только состоявшиеся разговоры (connected)");
  });
});

describe("the rule at fixed instants: the client's own day, week and month", () => {
  it("counts a call late on his day for that day only; in Moscow's zone the same call is still today", async () => {
    const w = await world();
    await setLimits(w, { day: 1, week: null, month: null, counts: "attempts" });
    // Thursday 15 January 2026, 13:30 UTC: 23:30 in Vladivostok, 16:30 in Moscow.
    await t.db.insert(calls).values({
      userId: w.manager.user.id,
      contactId: w.first.id,
      number: FIRST,
      direction: "out",
      startedAt: new Date("2026-01-15T13:30:00Z"),
      filterId: w.filter.id,
    });
    const may = async (zone: string, iso: string) => {
      const [row] = await queryRows<{ ok: boolean }>(
        t.db,
        sql`select ${underContactLimits(sql`${w.first.id}::bigint`, sql`${zone}::text`, sql`${w.filter.id}::int`, sql`${iso}::timestamptz`)} as ok`,
      );
      return row.ok;
    };
    // 14:30 UTC: past midnight in Vladivostok (Friday), so he may be called again; in Moscow it is still Thursday.
    expect(await may("Asia/Vladivostok", "2026-01-15T14:30:00Z")).toBe(true);
    expect(await may("Europe/Moscow", "2026-01-15T14:30:00Z")).toBe(false);
    expect(await may("Asia/Vladivostok", "2026-01-15T13:45:00Z")).toBe(false);
    // Before the call, nothing counted.
    expect(await may("Asia/Vladivostok", "2026-01-15T13:00:00Z")).toBe(true);

    // A week of two: Monday 12 and Thursday 15 January in Moscow; Sunday the 18th still that week, Monday the 19th a new one.
    await setLimits(w, { day: null, week: 2, month: null, counts: "attempts" });
    await t.db.insert(calls).values({
      userId: w.manager.user.id,
      contactId: w.first.id,
      number: FIRST,
      direction: "out",
      startedAt: new Date("2026-01-12T09:00:00Z"),
      filterId: w.filter.id,
    });
    expect(await may("Europe/Moscow", "2026-01-18T18:00:00Z")).toBe(false);
    expect(await may("Europe/Moscow", "2026-01-18T21:30:00Z")).toBe(true);
  });
});

describe("the turn and the proxy keep the limits", () => {
  it("by connected calls: an answered call today puts the client at his daily limit, an unanswered one does not", async () => {
    const w = await world();
    await setLimits(w, { day: 1, week: 2, month: 8, counts: "connected" });
    await logCall(w, w.first.id, { answered: false });
    expect((await lead(w))?.id).toBe(w.first.id);
    expect((await admit(w, FIRST, "limits-1")).status).toBe(200);
    await release(w);

    await logCall(w, w.first.id, { answered: true });
    // The first client is at his limit: the turn gives the second, and a call to the first is refused.
    expect((await lead(w))?.id).toBe(w.second.id);
    const refused = await admit(w, FIRST, "limits-2");
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/^id=\d+;sip=403\nContact Limit$/);
    const id = Number(/id=(\d+)/.exec(refused.text)![1]);
    const [row] = await t.db.select().from(calls).where(eq(calls.id, id));
    expect(row).toMatchObject({ outcome: "failed", sipCode: 403, reason: "Лимит звонков клиенту исчерпан" });
    // The second, not called yet, may be.
    expect((await admit(w, SECOND, "limits-3")).status).toBe(200);
    // With both at their limit, no lead at all.
    await release(w);
    await logCall(w, w.second.id, { answered: true });
    expect(await lead(w)).toBeNull();
  });

  it("by attempts: every call that left counts, a call the proxy refused does not", async () => {
    const w = await world();
    await setLimits(w, { day: 2, week: null, month: null, counts: "attempts" });
    await logCall(w, w.first.id, { answered: false });
    await logCall(w, w.first.id, { answered: false, reason: "У клиента сейчас нерабочее время" });
    expect((await lead(w))?.id).toBe(w.first.id);
    await release(w);
    await logCall(w, w.first.id, { answered: false });
    expect((await lead(w))?.id).toBe(w.second.id);
    expect((await admit(w, FIRST, "limits-4")).text).toMatch(/\nContact Limit$/);
  });

  it("counts the calls of the week and month, and the card says them", async () => {
    const w = await world();
    await setLimits(w, { day: null, week: 2, month: null, counts: "connected" });
    await logCall(w, w.first.id, { answered: true });
    const actor = { id: w.manager.user.id, login: w.manager.login, isAdmin: false };
    const panel = await loadLeadPanel(t.db, actor, 30, "UA");
    expect(panel.lead?.id).toBe(w.first.id);
    expect(contactCallsLabel(panel.lead?.contactCalls ?? [])).toBe("звонков клиенту: 1 из 2 на этой неделе");
    await release(w);
    await setLimits(w, { day: 1, week: 2, month: 8, counts: "connected" });
    await logCall(w, w.second.id, { answered: false });
    const second = await loadLeadPanel(t.db, actor, 30, "UA");
    expect(second.lead?.id).toBe(w.second.id);
    expect(contactCallsLabel(second.lead?.contactCalls ?? [])).toBe("звонков клиенту: 0 из 1 сегодня · 0 из 2 на этой неделе · 0 из 8 в этом месяце");
  });

  it("a topic without limits hands out and lets through however often the client was called", async () => {
    const w = await world();
    for (let i = 0; i < 5; i++) await logCall(w, w.first.id, { answered: true });
    expect((await lead(w))?.id).toBe(w.first.id);
    expect((await admit(w, FIRST, "limits-5")).status).toBe(200);
    const actor = { id: w.manager.user.id, login: w.manager.login, isAdmin: false };
    expect((await loadLeadPanel(t.db, actor, 30, "UA")).lead?.contactCalls).toBeUndefined();
  });
});

describe("the dashboard's numbers of the rules (GET /api/v1/statistics)", () => {
  it("counts a topic's clients at their limit and its new clients waiting for their hours", async () => {
    const w = await world();
    const rulesOf = async () => {
      const res = await t.request.get("/api/v1/statistics").set(bearer(adminToken));
      expect(res.status).toBe(200);
      return res.body.contactRules.find((r: { filterId: number }) => r.filterId === w.filter.id);
    };
    // No limits, around the clock: nobody held back.
    expect(await rulesOf()).toEqual({ filterId: w.filter.id, topic: "Тематика", atLimit: null, waitingForHours: 0, waitingCapped: false });

    await setLimits(w, { day: 1, week: null, month: null, counts: "connected" });
    await logCall(w, w.first.id, { answered: true });
    await logCall(w, w.second.id, { answered: false });
    expect(await rulesOf()).toMatchObject({ topic: "Лимиты", atLimit: 1, waitingForHours: 0 });

    // A window three to four hours after Moscow's present hour: closed now for both (Moscow) clients.
    const moscowHour = Number(new Intl.DateTimeFormat("en-GB", { timeZone: "Europe/Moscow", hour: "2-digit", hourCycle: "h23" }).format(new Date()));
    const from = `${String((moscowHour + 3) % 24).padStart(2, "0")}:00`;
    const until = `${String((moscowHour + 4) % 24).padStart(2, "0")}:00`;
    await t.db.update(filters).set({ callsFrom: from, callsUntil: until, timeZone: "Europe/Moscow" }).where(eq(filters.id, w.filter.id));
    expect(await rulesOf()).toMatchObject({ atLimit: 1, waitingForHours: 2, waitingCapped: false });
  });
});

describe("the 230-FZ preset through the API: one rule with the topic form's (issue 43)", () => {
  const LAW_LIMITS = { day: 1, week: 2, month: 8, counts: "connected" };
  const hoursOf = (topic: { callingHours: Record<string, unknown> }) => {
    const { from, until, weekendFrom, weekendUntil } = topic.callingHours;
    return { from, until, weekendFrom, weekendUntil };
  };
  async function save(w: World, fields: Record<string, unknown>, id: number | null = w.filter.id) {
    const s = await statusesByText(t.db);
    const topic = { name: "230-ФЗ", managers: [w.manager.user.id], databases: [w.first.databaseId], statuses: [s["Перезвонить"].id], ...fields };
    return id === null
      ? t.request.post("/api/v1/filters").set(bearer(adminToken)).send(topic)
      : t.request.put(`/api/v1/filters/${id}`).set(bearer(adminToken)).send(topic);
  }
  const listed = async (id: number) =>
    (await t.request.get("/api/v1/filters").set(bearer(adminToken))).body.find((f: { id: number }) => f.id === id) as {
      preset: string | null;
      contactLimits: unknown;
      callingHours: Record<string, unknown>;
    };

  it("a new topic with preset law230 gets the law's limits and its default hours brought within the law's; GET says it follows 230-FZ", async () => {
    const w = await world();
    const made = await save(w, { preset: "law230" }, null);
    expect(made.status).toBe(200);
    expect(made.body.contactLimits).toEqual(LAW_LIMITS);
    // The default 09:00-21:00 lies within 08:00-22:00 and is kept; weekends (the same as working days) become 09:00-20:00.
    expect(hoursOf(made.body)).toEqual({ from: "09:00", until: "21:00", weekendFrom: "09:00", weekendUntil: "20:00" });
    expect(made.body.preset).toBe("law230");
    expect((await listed(made.body.id)).preset).toBe("law230");
  });

  it("on an edit: the hours sent, or the topic's own when none are sent, are brought within the law's; a narrower window stays", async () => {
    const w = await world();
    const wide = { from: "07:00", until: "23:30", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Moscow", weekendFrom: null, weekendUntil: null };
    const sent = await save(w, { preset: "law230", callingHours: wide });
    expect(sent.status).toBe(200);
    expect(sent.body.contactLimits).toEqual(LAW_LIMITS);
    expect(hoursOf(sent.body)).toEqual({ from: "08:00", until: "22:00", weekendFrom: "09:00", weekendUntil: "20:00" });
    expect(sent.body.callingHours).toMatchObject({ days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Moscow" });
    expect(sent.body.preset).toBe("law230");

    // Around the clock, stored by an edit without the preset: saved as sent, and no longer 230-FZ's.
    const allDay = await save(w, { callingHours: { ...wide, from: "00:00", until: "00:00" } });
    expect(allDay.status).toBe(200);
    expect(allDay.body.contactLimits).toEqual(LAW_LIMITS);
    expect(hoursOf(allDay.body)).toEqual({ from: "00:00", until: "00:00", weekendFrom: null, weekendUntil: null });
    expect(allDay.body.preset).toBe(null);
    expect((await listed(w.filter.id)).preset).toBe(null);
    // The preset alone brings the stored hours within the law's.
    const stored = await save(w, { preset: "law230" });
    expect(hoursOf(stored.body)).toEqual({ from: "08:00", until: "22:00", weekendFrom: "09:00", weekendUntil: "20:00" });
    expect(stored.body.preset).toBe("law230");

    // A centre calling less than the law allows keeps its window.
    const narrow = await save(w, {
      preset: "law230",
      callingHours: { ...wide, from: "10:00", until: "19:00", weekendFrom: "11:00", weekendUntil: "16:00" },
    });
    expect(hoursOf(narrow.body)).toEqual({ from: "10:00", until: "19:00", weekendFrom: "11:00", weekendUntil: "16:00" });
    expect(narrow.body.preset).toBe("law230");
  });

  it("the law's numbers with wider hours are not 230-FZ's; other limits beside the preset and an unknown preset are refused in Russian", async () => {
    const w = await world();
    const wide = { from: "08:00", until: "22:00", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Moscow", weekendFrom: null, weekendUntil: null };
    const own = await save(w, { contactLimits: LAW_LIMITS, callingHours: wide });
    expect(own.status).toBe(200);
    // Saved as sent: on a Saturday at 21:00 this topic calls, which 230-FZ forbids.
    expect(hoursOf(own.body)).toEqual({ from: "08:00", until: "22:00", weekendFrom: null, weekendUntil: null });
    expect(own.body.preset).toBe(null);
    // The same numbers with the law's weekend hours: 230-FZ's, though no preset was sent.
    const lawful = await save(w, { contactLimits: LAW_LIMITS, callingHours: { ...wide, weekendFrom: "09:00", weekendUntil: "20:00" } });
    expect(lawful.body.preset).toBe("law230");

    const conflict = await save(w, { preset: "law230", contactLimits: { day: 2, week: 3, month: 8, counts: "connected" } });
    expect(conflict.status).toBe(400);
    expect(conflict.body).toMatchObject({
      error: "preset_conflict",
      message:
        "С набором правил 230-ФЗ ограничение звонков задаёт закон (1 разговор в день, 2 в неделю, 8 в месяц): не указывайте contactLimits или укажите эти числа",
    });
    const unknown = await save(w, { preset: "law231" });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toBe("Неизвестный набор правил: есть только law230 (230-ФЗ)");
    // Nothing of the refused saves was kept.
    expect(await listed(w.filter.id)).toMatchObject({ preset: "law230", contactLimits: LAW_LIMITS });
  });
});
