import { sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { claimNext, loadWorkSet } from "../../server/core/leads/allocation";
import { kyivLocalToDate, dateToKyivLocal, callbackPresetTime } from "../../server/core/leads/callback-time";
import { bearer, useTestApp } from "../helpers/app";
import { statusesByText } from "../helpers/leads";
import { type ApiManager, pressApi, twoManagersHoldingLeads } from "../helpers/api-turns";

/**
 * Scheduled callbacks (issue 18, decision 035): a status that asks for a callback time, the callback handed
 * first and only to its manager once due, to any manager of the topic after the grace time, never before its time.
 */
let adminToken: string;
let callbackStatus: { id: number; text: string };

const t = useTestApp();
beforeAll(async () => {
  adminToken = await t.adminToken();
  const created = await t.request.post("/api/v1/status").set(bearer(adminToken)).send({ text: "Перезвонить позже" });
  expect(created.status).toBe(200);
  const toggled = await t.request.put(`/api/v1/status/${created.body.id}/callback`).set(bearer(adminToken));
  expect(toggled.status).toBe(200);
  expect(toggled.body.asksCallback).toBe(true);
  callbackStatus = { id: created.body.id, text: created.body.text };
});

/** A topic with `count` fresh contacts (the callback status worked again too) and two managers holding a lead each. */
const scene = async (count = 6) => twoManagersHoldingLeads(t, count, [callbackStatus.id, (await statusesByText(t.db))["Перезвонить"].id]);
const press = (m: ApiManager, filterId: number, statusText: string, extra?: Record<string, unknown>) => pressApi(t, m, filterId, statusText, extra);

const inOneHour = () => new Date(Date.now() + 3600_000).toISOString();

async function setDue(contactId: number, minutesAgo: number) {
  await t.db.execute(
    sql`update callbacks set due_at = now() - make_interval(mins => ${minutesAgo}) where contact_id = ${contactId} and handed_at is null`,
  );
}

beforeEach(async () => {
  await t.db.execute(sql`update settings set callback_grace_minutes = 15 where id = 1`);
});

describe("scheduling a callback", () => {
  it("asks for the time: a press without it is refused with a Russian message and records nothing", async () => {
    const { filter, a } = await scene(3);
    const before = a.lead;
    const res = await press(a, filter.id, callbackStatus.text);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Укажите время перезвона");
    const [{ n }] = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from lead_events where contact_id = ${before}`);
    expect(n).toBe(0);
    const past = await press(a, filter.id, callbackStatus.text, { callbackAt: new Date(Date.now() - 3600_000).toISOString() });
    expect(past.status).toBe(400);
    expect(past.body.message).toBe("Время перезвона уже прошло");
    const nonsense = await press(a, filter.id, callbackStatus.text, { callbackAt: "завтра" });
    expect(nonsense.status).toBe(400);
    expect(nonsense.body.message).toBe("Неверное время перезвона");
  });

  it("refuses a date that does not exist as such (30 February, 31 April, 29 February 2027, 25:00), before asking whether it is past", async () => {
    const { filter, a } = await scene(3);
    const before = a.lead;
    for (const callbackAt of [
      "2027-02-30T10:00:00+02:00",
      "2023-02-30T10:00:00+02:00",
      "2027-04-31T10:00:00Z",
      "2027-02-29T10:00:00+02:00",
      "2027-01-10T25:00:00+02:00",
      "2027-01-10T24:00:00+02:00",
      "2027-01-10T10:60:00+02:00",
      "2027-13-01T10:00:00+02:00",
      "2027-01-00T10:00:00+02:00",
    ]) {
      const res = await press(a, filter.id, callbackStatus.text, { callbackAt });
      expect({ callbackAt, status: res.status, message: res.body.message }).toEqual({ callbackAt, status: 400, message: "Такой даты не существует" });
    }
    expect(a.lead).toBe(before);
    const [{ n }] = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from callbacks where contact_id = ${before}`);
    expect(n).toBe(0);
    // A real date in the same form is still scheduled for the instant it names.
    const inAMonth = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 30 * 86_400_000);
    const written = `${new Date(inAMonth.getTime() + 2 * 3600_000).toISOString().slice(0, 16)}:00+02:00`;
    const ok = await press(a, filter.id, callbackStatus.text, { callbackAt: written });
    expect(ok.status).toBe(200);
    const [cb] = await queryRows<{ id: number; due_at: Date | string }>(t.db, sql`select id, due_at from callbacks where contact_id = ${before}`);
    expect(new Date(cb.due_at).toISOString()).toBe(inAMonth.toISOString());
    // The admin moving a callback is held to the same rule.
    const moved = await t.request
      .put(`/api/v1/callbacks/${cb.id}`)
      .set(bearer(adminToken))
      .send({ userId: a.id, dueAt: "2027-02-30T10:00:00+02:00" });
    expect(moved.status).toBe(400);
    expect(moved.body.message).toBe("Такой даты не существует");
  });

  it("keeps the contact for its manager until the time: nobody gets it before, even with nothing else left", async () => {
    const { filter, a, b } = await scene(3);
    const scheduled = a.lead;
    const res = await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() });
    expect(res.status).toBe(200);
    expect(res.body.id).not.toBe(scheduled);
    // Work the topic dry: the callback's status is one the topic works again, yet it is never handed out.
    const handed: number[] = [];
    for (let i = 0; i < 4; i++) {
      for (const m of [a, b]) {
        if (!m.lead) continue;
        const r = await press(m, filter.id, "Отказ");
        expect(r.status).toBe(200);
        if (m.lead) handed.push(m.lead);
      }
    }
    expect(handed).not.toContain(scheduled);
    expect(a.lead).toBe(0);
    expect(b.lead).toBe(0);
    // Мои перезвоны shows it as upcoming.
    const mine = await t.request.get("/api/v1/callbacks/mine").set(a.auth);
    expect(mine.status).toBe(200);
    expect(mine.body.map((c: { contactId: number }) => c.contactId)).toEqual([scheduled]);
    expect(mine.body[0].due).toBe(false);
    expect((await t.request.get("/api/v1/callbacks/mine").set(b.auth)).body).toEqual([]);
  });
});

describe("handing out a due callback", () => {
  it("comes first in its manager's next turn, and only to him", async () => {
    const { filter, a, b } = await scene(8);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() })).status).toBe(200);
    await setDue(scheduled, 1);
    // B presses: fresh contacts, never A's callback.
    for (let i = 0; i < 2; i++) {
      expect((await press(b, filter.id, "Отказ")).status).toBe(200);
      expect(b.lead).not.toBe(scheduled);
    }
    // A's next press answers the callback before any fresh contact.
    const res = await press(a, filter.id, "Отказ");
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(scheduled);
    const [cb] = await queryRows<{ handed_to: number; handed: boolean }>(
      t.db,
      sql`select handed_to, handed_at is not null as handed from callbacks where contact_id = ${scheduled}`,
    );
    expect(cb).toEqual({ handed_to: a.id, handed: true });
    expect((await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body).toEqual([]);
  });

  it("a missed call's callback on a client never worked (no status) is its manager's too: another's turn does not take it first (issue 42)", async () => {
    const { filter, contacts, a, b } = await scene(4);
    // As a missed call leaves it (server/core/telephony/inbound.ts): due now, for the manager who called him.
    const client = contacts.find((c) => c.id !== a.lead && c.id !== b.lead)!;
    await t.db.execute(sql`insert into callbacks (contact_id, database_id, user_id, filter_id, status_text, due_at)
      values (${client.id}, ${client.databaseId}, ${a.id}, ${filter.id}, 'Пропущенный входящий, 10:00', now())`);
    expect((await press(b, filter.id, "Отказ")).status).toBe(200);
    expect(b.lead).not.toBe(client.id);
    expect((await press(a, filter.id, "Отказ")).status).toBe(200);
    expect(a.lead).toBe(client.id);
    const [cb] = await queryRows<{ handed_to: number }>(t.db, sql`select handed_to from callbacks where contact_id = ${client.id}`);
    expect(cb.handed_to).toBe(a.id);
  });

  it("passes to another manager of the topic after the grace time (the /basesettings setting), still ahead of fresh leads", async () => {
    const { filter, a, b } = await scene(8);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() })).status).toBe(200);
    // Due 10 minutes ago: within the default 15 minutes' grace it still waits for A.
    await setDue(scheduled, 10);
    expect((await press(b, filter.id, "Отказ")).status).toBe(200);
    expect(b.lead).not.toBe(scheduled);
    // The admin shortens the grace to 5 minutes: B's next turn takes it, ahead of the fresh contacts.
    const saved = await t.request
      .post("/api/v1/database/settings")
      .set(bearer(adminToken))
      .send({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false, defaultInfo: "", callbackGraceMinutes: 5 });
    expect(saved.status).toBe(200);
    expect(saved.body.callbackGraceMinutes).toBe(5);
    const admins = await t.request.get(`/api/v1/callbacks?filterId=${filter.id}`).set(bearer(adminToken));
    expect(admins.body).toHaveLength(1);
    expect(admins.body[0]).toMatchObject({ contactId: scheduled, due: true, overdue: true, user: { id: a.id } });
    const res = await press(b, filter.id, "Отказ");
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(scheduled);
  });

  it("refuses a bad grace time with a Russian message", async () => {
    const res = await t.request
      .post("/api/v1/database/settings")
      .set(bearer(adminToken))
      .send({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false, defaultInfo: "", callbackGraceMinutes: 0 });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Время ожидания перезвона: от 1 до 1440 минут");
  });

  it("each tier can be exercised alone: the due-callback tier finds only this manager's due callback", async () => {
    const { filter, a, b } = await scene(4);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() })).status).toBe(200);
    const work = await loadWorkSet(t.db, filter.id);
    expect(await claimNext(t.db, a.id, 30, work, ["dueCallback"])).toBeNull();
    await setDue(scheduled, 1);
    expect(await claimNext(t.db, b.id, 30, work, ["dueCallback"])).toBeNull();
    expect(await claimNext(t.db, b.id, 30, work, ["overdueCallback"])).toBeNull();
    expect(await claimNext(t.db, b.id, 30, work, ["rework"])).toBeNull();
    const lead = await claimNext(t.db, a.id, 30, work, ["dueCallback"]);
    expect(lead?.id).toBe(scheduled);
  });
});

describe("Мои перезвоны and the admin's list", () => {
  it("the manager takes his callback now: it becomes his lead and the one he held goes back", async () => {
    const { filter, a } = await scene(4);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() })).status).toBe(200);
    const held = a.lead;
    const [mine] = (await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body;
    const taken = await t.request.post(`/api/v1/callbacks/${mine.id}/take`).set(a.auth);
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ contactId: scheduled, filterId: filter.id });
    const lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${a.id}`).set(a.auth);
    expect(lead.body.id).toBe(scheduled);
    const [{ held_by }] = await queryRows<{ held_by: number | null }>(t.db, sql`select held_by from contacts where id = ${held}`);
    expect(held_by).toBeNull();
    // Taken twice: it is no longer pending.
    const again = await t.request.post(`/api/v1/callbacks/${mine.id}/take`).set(a.auth);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe("Перезвон не найден");
  });

  it("a callback whose number went on «Не звонить» after it was scheduled: taking it is refused, and it is closed and leaves the lists", async () => {
    const { contacts, filter, a, b } = await scene(6);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() })).status).toBe(200);
    const held = a.lead;
    await setDue(scheduled, 1);
    const phone = contacts.find((c) => c.id === scheduled)!.phone;
    expect((await t.request.post("/api/v1/do-not-call").set(bearer(adminToken)).send({ phone })).status).toBe(200);
    // The turn rightly skips it when due.
    expect((await press(b, filter.id, "Отказ")).body.id).not.toBe(scheduled);
    const [mine] = (await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body;
    expect(mine).toMatchObject({ contactId: scheduled, due: true });

    const taken = await t.request.post(`/api/v1/callbacks/${mine.id}/take`).set(a.auth);
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe("Номер клиента в списке «Не звонить»: перезвон закрыт");
    // The lead he held is still his, and the listed contact is nobody's.
    const lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${a.id}`).set(a.auth);
    expect(lead.body.id).toBe(held);
    const [{ held_by }] = await queryRows<{ held_by: number | null }>(t.db, sql`select held_by from contacts where id = ${scheduled}`);
    expect(held_by).toBeNull();
    // Closed with its reason: gone from Мои перезвоны and the admin's list, and not pending any more.
    const [row] = await queryRows<{ pending: boolean; handed_to: number | null; closed_reason: string | null }>(
      t.db,
      sql`select handed_at is null as pending, handed_to, closed_reason from callbacks where id = ${mine.id}`,
    );
    expect(row).toEqual({ pending: false, handed_to: null, closed_reason: "do_not_call" });
    expect((await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body).toEqual([]);
    const admins = await t.request.get(`/api/v1/callbacks?filterId=${filter.id}`).set(bearer(adminToken));
    expect(admins.body.map((c: { id: number }) => c.id)).not.toContain(mine.id);
    const again = await t.request.post(`/api/v1/callbacks/${mine.id}/take`).set(a.auth);
    expect(again.status).toBe(404);
  });

  it("only its own manager's take closes a listed callback: another manager is refused as before and it stays his", async () => {
    const { contacts, filter, a, b } = await scene(4);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() })).status).toBe(200);
    const phone = contacts.find((c) => c.id === scheduled)!.phone;
    expect((await t.request.post("/api/v1/do-not-call").set(bearer(adminToken)).send({ phone })).status).toBe(200);
    const [mine] = (await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body;
    const refused = await t.request.post(`/api/v1/callbacks/${mine.id}/take`).set(b.auth);
    expect(refused.status).toBe(403);
    expect((await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body.map((c: { id: number }) => c.id)).toEqual([mine.id]);
  });

  it("a manager cannot take another's callback; the admin reassigns it and then it is the other's", async () => {
    const { filter, a, b } = await scene(4);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour() })).status).toBe(200);
    const [mine] = (await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body;
    const refused = await t.request.post(`/api/v1/callbacks/${mine.id}/take`).set(b.auth);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("Можно работать только со своими перезвонами");
    expect((await t.request.get("/api/v1/callbacks").set(b.auth)).status).toBe(403);
    // A new time with the new manager: the body reaches core as sent, so the time parses once (decision 064).
    const later = new Date(Date.now() + 2 * 3600_000);
    const moved = await t.request.put(`/api/v1/callbacks/${mine.id}`).set(bearer(adminToken)).send({ userId: b.id, dueAt: later.toISOString() });
    expect(moved.status).toBe(200);
    expect(moved.body.user.id).toBe(b.id);
    expect(Date.parse(moved.body.dueAt)).toBe(later.getTime());
    await setDue(scheduled, 1);
    expect((await press(a, filter.id, "Отказ")).body.id).not.toBe(scheduled);
    expect((await press(b, filter.id, "Отказ")).body.id).toBe(scheduled);
    const bad = await t.request.put(`/api/v1/callbacks/${mine.id}`).set(bearer(adminToken)).send({ userId: b.id });
    expect(bad.status).toBe(404);
  });
});

describe("the callback's note, written again (issue 41 §7)", () => {
  it("its manager changes or clears it, an admin any; another manager is refused (403), a note too long too (400), a callback handed out is gone (404)", async () => {
    const { filter, a, b } = await scene(4);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour(), callbackNote: "Спросить про рассрочку" })).status).toBe(200);
    const [mine] = (await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body;
    expect(mine.note).toBe("Спросить про рассрочку");

    const edited = await t.request.put(`/api/v1/callbacks/${mine.id}/note`).set(a.auth).send({ note: "  Звонить после 15:00, жена дома  " });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id: mine.id, note: "Звонить после 15:00, жена дома", user: { id: a.id } });
    expect((await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body[0].note).toBe("Звонить после 15:00, жена дома");

    // Another manager: refused before his body is read (a too long note from him is a 403 as well), nothing changed.
    for (const note of ["Моя заметка", "я".repeat(501)]) {
      const refused = await t.request.put(`/api/v1/callbacks/${mine.id}/note`).set(b.auth).send({ note });
      expect(refused.status).toBe(403);
      expect(refused.body.message).toBe("Можно работать только со своими перезвонами");
    }
    const tooLong = await t.request
      .put(`/api/v1/callbacks/${mine.id}/note`)
      .set(a.auth)
      .send({ note: "я".repeat(501) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.message).toBe("Заметка к перезвону не длиннее 500 символов");
    expect((await t.request.get("/api/v1/callbacks/mine").set(a.auth)).body[0].note).toBe("Звонить после 15:00, жена дома");

    // The admin writes anyone's; an empty note clears it.
    const byAdmin = await t.request
      .put(`/api/v1/callbacks/${mine.id}/note`)
      .set(bearer(adminToken))
      .send({ note: "я".repeat(500) });
    expect(byAdmin.status).toBe(200);
    const cleared = await t.request.put(`/api/v1/callbacks/${mine.id}/note`).set(a.auth).send({ note: "" });
    expect(cleared.status).toBe(200);
    expect(cleared.body.note).toBe("");

    // Handed out (its time came and the turn gave it to him): no longer a pending callback to write on.
    await setDue(scheduled, 1);
    expect((await press(a, filter.id, "Отказ")).body.id).toBe(scheduled);
    const gone = await t.request.put(`/api/v1/callbacks/${mine.id}/note`).set(a.auth).send({ note: "Поздно" });
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe("Перезвон не найден");
    expect((await t.request.put(`/api/v1/callbacks/999999/note`).set(bearer(adminToken)).send({ note: "x" })).status).toBe(404);
  });
});

describe("callback times in Europe/Kyiv", () => {
  it("reads a wall-clock time as Kyiv time, winter and summer", () => {
    expect(kyivLocalToDate("2026-12-01T10:00").toISOString()).toBe("2026-12-01T08:00:00.000Z");
    expect(kyivLocalToDate("2026-07-01T10:00").toISOString()).toBe("2026-07-01T07:00:00.000Z");
    expect(dateToKyivLocal(new Date("2026-12-01T08:00:00Z"))).toBe("2026-12-01T10:00");
  });

  it("a wall-clock date that does not exist is refused, not rolled over to the next month", () => {
    expect(() => kyivLocalToDate("2027-02-30T10:00")).toThrow("Такой даты не существует");
    expect(() => kyivLocalToDate("2027-02-29T10:00")).toThrow("Такой даты не существует");
    expect(() => kyivLocalToDate("2027-04-31T10:00")).toThrow("Такой даты не существует");
    expect(() => kyivLocalToDate("2027-01-10T25:00")).toThrow("Такой даты не существует");
    expect(kyivLocalToDate("2028-02-29T10:00").toISOString()).toBe("2028-02-29T08:00:00.000Z");
  });

  it("tomorrow at 10:00 is 10:00 Kyiv time of the next Kyiv day", () => {
    // 23:30 Kyiv on 30 November (21:30 UTC): tomorrow is 1 December.
    expect(callbackPresetTime("tomorrow10", new Date("2026-11-30T21:30:00Z")).toISOString()).toBe("2026-12-01T08:00:00.000Z");
    expect(callbackPresetTime("15m", new Date("2026-11-30T21:30:00Z")).toISOString()).toBe("2026-11-30T21:45:00.000Z");
  });
});
