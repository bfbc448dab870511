import fs from "node:fs";
import path from "node:path";
import { inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { formatKyiv, formatKyivClock } from "../../common/business-time";
import { migrationsFolder, queryRows } from "../../db/client";
import { users } from "../../db/schema";
import { ADMIN, bearer, createUser, flashCookie, formBody, getPage, pageSessionCookie, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

/**
 * Scheduled callbacks in the pages, without JavaScript (issue 18): the status flag on /edit-statuses, the callback
 * time as a section of /leadpanel, Мои перезвоны with "Позвонить сейчас", the admin's list with reassigning, the
 * grace time on /basesettings, the menu's count.
 */
const t = useTestApp({ web: true });
const post = (path: string, cookie: string, fields: Record<string, string>) =>
  t.request
    .post(path)
    .set("Cookie", cookie)
    .set("Host", "127.0.0.1")
    .set("Origin", "http://127.0.0.1")
    .set("Content-Type", "application/x-www-form-urlencoded")
    .set("Accept-Encoding", "identity")
    .send(formBody(fields));

/** A status press from the lead panel's form without JavaScript (`fields`: the callback's time and note). */
/** A callback's note as stored. */
const noteOf = async (id: number | string) => (await queryRows<{ note: string }>(t.db, sql`select note from callbacks where id = ${id}`))[0].note;
/** A note's field on the page, open, marked invalid and still holding what was typed, with the length refusal. */
function expectRefusedNote(html: string, id: number | string, typed: string) {
  expect(html).toMatch(
    new RegExp(`<details[^>]*open=""[\\s\\S]*<textarea id="callback-note-${id}" name="note"[^>]*aria-invalid="true"[^>]*>${typed}</textarea>`),
  );
  expect(html).toMatch(/data-field-error="">Заметка к перезвону не длиннее 500 символов</);
}
const pressStatus = (cookie: string, statusId: number | string, contactId: string, fields: Record<string, string> = {}) =>
  post("/leadpanel", cookie, { intent: "status", statusId: String(statusId), contactId, passport: "", ...fields });

/**
 * A status that asks for a callback time, a base of two and a manager (with `others` more) working it through a
 * topic: the status's id, the manager's page cookie and the lead his panel shows first.
 */
async function callbackScene(statusText: string, prefix: string, others = 0) {
  const adminToken = await t.adminToken();
  const created = await t.request.post("/api/v1/status").set(bearer(adminToken)).send({ text: statusText });
  await t.db.execute(sql`update statuses set asks_callback = true where id = ${created.body.id}`);
  const { base } = await createBase(t.db, { count: 2, prefix });
  const people = [await createUser(t.db)];
  for (let i = 0; i < others; i++) people.push(await createUser(t.db));
  const ids = people.map((p) => p.user.id);
  const filter = await createFilterRow(t.db, { managerIds: ids, databaseIds: [base.id], statusIds: [] });
  await t.db.update(users).set({ gettingFilter: filter.id }).where(inArray(users.id, ids));
  const cookie = await pageSessionCookie(t, people[0]);
  const first = /name="contactId" value="(\d+)"/.exec((await getPage(t, "/leadpanel", cookie)).text)![1];
  return { statusId: created.body.id as number, base, manager: people[0], other: people[1], cookie, first };
}

describe("callbacks without JavaScript", () => {
  it("schedules a callback from the lead panel, shows it in Мои перезвоны, and the admin reassigns it", async () => {
    const admin = await pageSessionCookie(t, ADMIN);
    const adminToken = await t.adminToken();
    const created = await t.request.post("/api/v1/status").set(bearer(adminToken)).send({ text: "Перезвон по времени" });
    // The flag on /edit-statuses, like report and technical.
    const flagged = await post("/edit-statuses", admin, { intent: "callback", id: String(created.body.id) });
    expect(flagged.status).toBe(302);
    const statuses = (await t.request.get("/api/v1/status").set(bearer(adminToken))).body as Array<{ id: number; asksCallback: boolean }>;
    expect(statuses.find((s) => s.id === created.body.id)?.asksCallback).toBe(true);
    expect((await getPage(t, "/edit-statuses", admin)).text).toContain("Спрашивает время перезвона");

    // The grace time on /basesettings.
    const saved = await post("/basesettings", admin, { intent: "save", removeDuplicatesInBase: "on", defaultInfo: "", callbackGraceMinutes: "20" });
    expect(saved.status).toBe(200);
    expect(saved.text).toContain("Настройки успешно сохранены");
    const [{ grace }] = await queryRows<{ grace: number }>(t.db, sql`select callback_grace_minutes as grace from settings where id = 1`);
    expect(grace).toBe(20);

    const { base } = await createBase(t.db, { count: 3, prefix: "Перезвон" });
    const s = await statusesByText(t.db);
    const manager = await createUser(t.db);
    const other = await createUser(t.db, { displayName: "Другой менеджер" });
    const filter = await createFilterRow(t.db, {
      managerIds: [manager.user.id, other.user.id],
      databaseIds: [base.id],
      statusIds: [s["Перезвонить"].id],
    });
    await t.db.execute(sql`update users set getting_filter = ${filter.id} where id = ${manager.user.id}`);
    const cookie = await pageSessionCookie(t, manager);
    const panel = await getPage(t, "/leadpanel", cookie);
    expect(panel.status).toBe(200);
    const contactId = /name="contactId" value="(\d+)"/.exec(panel.text)![1];

    // The press without a time: the page asks for it, with the quick choices.
    const asked = await pressStatus(cookie, created.body.id, contactId, {});
    expect(asked.status).toBe(200);
    expect(asked.text).toContain("Когда перезвонить? Время киевское.");
    for (const label of ["Через 15 минут", "Через 1 час", "Завтра в 10:00", "Другое время"]) expect(asked.text).toContain(label);
    expect(await queryRows(t.db, sql`select id from callbacks where contact_id = ${contactId}`)).toHaveLength(0);

    // A free time in the past is refused with a Russian message; a quick choice schedules it.
    const past = await pressStatus(cookie, created.body.id, contactId, { callbackLocal: "2020-01-01T10:00" });
    expect(past.status).toBe(400);
    expect(past.text).toContain("Время перезвона уже прошло");
    // A date that does not exist is refused as such, never rolled over to 2 March (nor called past when it is).
    for (const callbackLocal of ["2027-02-30T10:00", "2020-02-30T10:00", "2027-04-31T10:00", "2027-01-10T25:00"]) {
      const impossible = await pressStatus(cookie, created.body.id, contactId, { callbackLocal });
      expect({ callbackLocal, status: impossible.status }).toEqual({ callbackLocal, status: 400 });
      expect(impossible.text).toContain("Такой даты не существует");
      expect(impossible.text).not.toContain("Время перезвона уже прошло");
    }
    expect(await queryRows(t.db, sql`select id from callbacks where contact_id = ${contactId}`)).toHaveLength(0);
    const done = await pressStatus(cookie, created.body.id, contactId, { callbackPreset: "1h", callbackLocal: "2020-01-01T10:00" });
    expect(done.status).toBe(302);
    const [cb] = await queryRows<{ id: number; minutes: number }>(
      t.db,
      sql`select id, round(extract(epoch from due_at - now()) / 60)::int as minutes from callbacks where contact_id = ${contactId}`,
    );
    expect(cb.minutes).toBeGreaterThanOrEqual(58);
    expect(cb.minutes).toBeLessThanOrEqual(60);

    // Мои перезвоны: upcoming, not yet counted in the menu.
    let mine = await getPage(t, "/callbacks", cookie);
    expect(mine.text).toContain("Мои перезвоны");
    expect(mine.text).toMatch(/data-testid="callbacks-upcoming-list"[\s\S]*Перезвон-1/);
    // Why it is there: the status that scheduled it (a missed call says «Пропущенный входящий, 14:02»: issue 42).
    expect(mine.text).toContain('data-testid="callback-reason">Перезвон по времени</span>');
    expect(mine.text).not.toContain('data-testid="callbacks-due"');
    // Its time comes: counted in the menu, listed as due.
    await t.db.execute(sql`update callbacks set due_at = now() - interval '1 minute' where id = ${cb.id}`);
    mine = await getPage(t, "/callbacks", cookie);
    expect(mine.text).toMatch(/data-testid="callbacks-due"[^>]*>1</);
    expect(mine.text).toMatch(/data-testid="callbacks-due-list"[\s\S]*Перезвон-1[\s\S]*data-testid="callbacks-upcoming-list"/);

    // The admin sees it with its manager and topic, and gives it to the other manager.
    const list = await getPage(t, `/callbacks?filterId=${filter.id}`, admin);
    expect(list.text).toMatch(/data-testid="callback-row"[\s\S]*Перезвон-1[\s\S]*Тематика[\s\S]*Пора звонить[\s\S]*Перезвон по времени/);
    const moved = await post("/callbacks", admin, {
      intent: "reassign",
      id: String(cb.id),
      userId: String(other.user.id),
      back: `/callbacks?userId=&filterId=${filter.id}`,
    });
    expect(moved.status).toBe(302);
    expect(moved.headers.location).toBe(`/callbacks?userId=&filterId=${filter.id}`);
    expect((await getPage(t, "/callbacks", cookie)).text).toContain("Просроченных перезвонов нет");

    // The other manager takes it now: it is his lead on the panel.
    await t.db.execute(sql`update users set getting_filter = ${filter.id} where id = ${other.user.id}`);
    const otherCookie = await pageSessionCookie(t, other);
    const taken = await post("/callbacks", otherCookie, { intent: "take", id: String(cb.id) });
    expect(taken.status).toBe(302);
    expect(taken.headers.location).toBe("/leadpanel");
    const otherPanel = await getPage(t, "/leadpanel", otherCookie);
    expect(otherPanel.text).toContain(`name="contactId" value="${contactId}"`);
    // The manager who no longer owns it cannot take it.
    const refused = await post("/callbacks", cookie, { intent: "take", id: String(cb.id) });
    expect(refused.status).toBe(404);
    expect(refused.text).toContain("Перезвон не найден");
  });

  it("«Позвонить сейчас» on a callback whose number went on «Не звонить» is refused with the reason, and the callback leaves the list", async () => {
    const adminToken = await t.adminToken();
    const created = await t.request.post("/api/v1/status").set(bearer(adminToken)).send({ text: "Перезвон, потом в список" });
    expect((await t.request.put(`/api/v1/status/${created.body.id}/callback`).set(bearer(adminToken))).status).toBe(200);
    const { base, contacts } = await createBase(t.db, { count: 3, prefix: "Запрет" });
    const manager = await createUser(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [] });
    await t.db.execute(sql`update users set getting_filter = ${filter.id} where id = ${manager.user.id}`);
    const cookie = await pageSessionCookie(t, manager);
    const panel = await getPage(t, "/leadpanel", cookie);
    const contactId = Number(/name="contactId" value="(\d+)"/.exec(panel.text)![1]);
    const scheduled = await pressStatus(cookie, created.body.id, String(contactId), { callbackPreset: "1h" });
    expect(scheduled.status).toBe(302);
    const held = /name="contactId" value="(\d+)"/.exec((await getPage(t, "/leadpanel", cookie)).text)![1];
    const [cb] = await queryRows<{ id: number }>(t.db, sql`select id from callbacks where contact_id = ${contactId}`);
    await t.db.execute(sql`update callbacks set due_at = now() - interval '1 minute' where id = ${cb.id}`);
    const phone = contacts.find((c) => c.id === contactId)!.phone;
    expect((await t.request.post("/api/v1/do-not-call").set(bearer(adminToken)).send({ phone })).status).toBe(200);
    expect((await getPage(t, "/callbacks", cookie)).text).toMatch(
      /data-testid="callbacks-due-list"[\s\S]*Запрет-1[\s\S]*data-testid="callbacks-upcoming-list"/,
    );

    const refused = await post("/callbacks", cookie, { intent: "take", id: String(cb.id) });
    expect(refused.status).toBe(409);
    expect(refused.text).toContain("Номер клиента в списке «Не звонить»: перезвон закрыт");
    expect(refused.text).toContain("Просроченных перезвонов нет");
    expect(refused.text).not.toContain("Запрет-1");
    // The lead on his panel is still the one he held.
    expect((await getPage(t, "/leadpanel", cookie)).text).toContain(`name="contactId" value="${held}"`);
    const [row] = await queryRows<{ closed_reason: string | null }>(t.db, sql`select closed_reason from callbacks where id = ${cb.id}`);
    expect(row.closed_reason).toBe("do_not_call");
  });

  it("an address edited by hand (?userId=abc) shows the Russian message over an empty list, not an error page", async () => {
    const admin = await pageSessionCookie(t, ADMIN);
    const page = await getPage(t, "/callbacks?userId=abc&filterId=", admin);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Неверный идентификатор");
    expect(page.text).toContain("Запланированных перезвонов нет");
  });

  it("a due callback comes back with «Перезвон на …» and the manager's note, in the history too, and Мои перезвоны shows the note (issue 41 §7)", async () => {
    const { statusId, cookie, first } = await callbackScene("Перезвонить с заметкой", "Заметка");
    const s = await statusesByText(t.db);

    // «Перезвонить» with a note typed beside the time (the question's section without JavaScript).
    const asked = await pressStatus(cookie, statusId, first, {});
    expect(asked.text).toContain("Заметка к перезвону");
    const note = "Просил набрать после обеда, спросить про рассрочку";
    // A time refused (past) asks again with the note as he typed it.
    const past = await pressStatus(cookie, statusId, first, { callbackLocal: "2020-01-01T10:00", callbackNote: note });
    expect(past.status).toBe(400);
    expect(past.text).toContain("Время перезвона уже прошло");
    expect(past.text).toMatch(new RegExp(`<textarea id="callback-note-nojs" name="callbackNote"[^>]*>${note}</textarea>`));
    const done = await pressStatus(cookie, statusId, first, { callbackPreset: "15m", callbackNote: note });
    expect(done.status).toBe(302);
    // Мои перезвоны shows it with its note.
    expect((await getPage(t, "/callbacks", cookie)).text).toMatch(
      new RegExp(`data-testid="callbacks-upcoming-list"[\\s\\S]*Заметка-1[\\s\\S]*${note}`),
    );

    // The next lead is the other client, with no callback on its card.
    const second = await getPage(t, "/leadpanel", cookie);
    const secondId = /name="contactId" value="(\d+)"/.exec(second.text)![1];
    expect(secondId).not.toBe(first);
    expect(second.text).not.toContain('data-testid="lead-callback"');

    // Its time comes; the next press hands it back to him: the top of the card says so, with the note.
    const [{ due }] = await queryRows<{ due: Date | string }>(
      t.db,
      sql`update callbacks set due_at = now() - interval '1 minute' where contact_id = ${first} returning due_at as due`,
    );
    // The page's script gets it in the press's answer (the turn reads it with the lead)...
    const pressed = await post("/leadpanel/press", cookie, {
      intent: "status",
      statusId: String(s["Отказ"].id),
      contactId: secondId,
      passport: "",
      answer: "panel",
    });
    expect(pressed.text).toContain('"callback":{');
    expect(pressed.status).toBe(200);
    expect(String(pressed.body.next.lead.id)).toBe(first);
    expect(pressed.body.next.callback).toMatchObject({ dueText: formatKyivClock(due), note });
    // ...and the page as loaded shows it too.
    const back = await getPage(t, "/leadpanel", cookie);
    expect(back.text).toContain(`name="contactId" value="${first}"`);
    expect(back.text).toMatch(new RegExp(`data-testid="lead-callback"[\\s\\S]*Перезвон на <!-- -->${formatKyivClock(due)}[\\s\\S]*${note}`));
    // The client's history: the press with its callback's time and note, not only «Статус: …».
    expect(back.text).toMatch(
      new RegExp(
        `Статус: <strong>Перезвонить с заметкой</strong>[\\s\\S]*data-testid="history-callback"[^>]*>Перезвон на <strong>${formatKyiv(due)}</strong>[\\s\\S]*Заметка: <!-- -->${note}`,
      ),
    );
  });

  it("the manager writes his callback's note again on Мои перезвоны without JavaScript; too long is refused at the field, another's callback is not his (issue 41 §7)", async () => {
    const { statusId, other, cookie, first } = await callbackScene("Перезвонить, заметка правится", "Правка", 1);
    const done = await pressStatus(cookie, statusId, first, { callbackPreset: "1h", callbackNote: "Спросить про рассрочку" });
    expect(done.status).toBe(302);
    const [cb] = await queryRows<{ id: number }>(t.db, sql`select id from callbacks where contact_id = ${first}`);

    // The list offers the note's field under the callback, with the note in it.
    const mine = await getPage(t, "/callbacks", cookie);
    expect(mine.text).toContain("Изменить заметку");
    expect(mine.text).toMatch(new RegExp(`<textarea id="callback-note-${cb.id}" name="note"[^>]*>Спросить про рассрочку</textarea>`));

    const saved = await post("/callbacks", cookie, { intent: "note", id: String(cb.id), note: "Звонить после 15:00, жена дома" });
    expect(saved.status).toBe(302);
    expect(saved.headers.location).toBe("/callbacks");
    const after = await getPage(t, "/callbacks", `${cookie}; ${flashCookie(saved)}`);
    expect(after.text).toContain("Заметка сохранена");
    expect(after.text).toMatch(/data-testid="callback-note">Звонить после 15:00, жена дома</);
    expect(after.text).not.toContain("Спросить про рассрочку");

    // Too long: 400, the Russian message under this callback's field, what he typed kept, nothing saved.
    const long = "я".repeat(501);
    const refused = await post("/callbacks", cookie, { intent: "note", id: String(cb.id), note: long });
    expect(refused.status).toBe(400);
    expectRefusedNote(refused.text, cb.id, long);
    expect(await noteOf(cb.id)).toBe("Звонить после 15:00, жена дома");

    // Another manager posting to it is refused with the reason on his page; the note stays.
    const stranger = await post("/callbacks", await pageSessionCookie(t, other), { intent: "note", id: String(cb.id), note: "Чужая заметка" });
    expect(stranger.status).toBe(403);
    expect(stranger.text).toContain("Можно работать только со своими перезвонами");
    expect(await noteOf(cb.id)).toBe("Звонить после 15:00, жена дома");

    // An emptied field clears it: the list offers to add one.
    expect((await post("/callbacks", cookie, { intent: "note", id: String(cb.id), note: "" })).status).toBe(302);
    const cleared = await getPage(t, "/callbacks", cookie);
    expect(cleared.text).not.toContain('data-testid="callback-note"');
    expect(cleared.text).toContain("Добавить заметку");
  });

  it("the admin writes any manager's callback note again in his table without JavaScript; too long is refused at that row's field; a manager still only his own (issue 41 §7)", async () => {
    const { statusId, manager, other, cookie, first } = await callbackScene("Перезвонить, заметку правит админ", "Админ", 1);
    const done = await pressStatus(cookie, statusId, first, { callbackPreset: "15m", callbackNote: "Спросить про рассрочку" });
    expect(done.status).toBe(302);
    const second = /name="contactId" value="(\d+)"/.exec((await getPage(t, "/leadpanel", cookie)).text)![1];
    expect((await pressStatus(cookie, statusId, second, { callbackPreset: "1h", callbackNote: "Жена дома после шести" })).status).toBe(302);
    const [cb, next] = await queryRows<{ id: number }>(t.db, sql`select id from callbacks where contact_id in (${first}, ${second}) order by due_at`);
    const admin = await pageSessionCookie(t, ADMIN);
    const listed = `/callbacks?userId=${manager.user.id}&filterId=`;
    /** The admin table's row that holds this callback's note field. */
    const rowOf = (html: string, id: number) => {
      expect(html).toContain('data-testid="callbacks-table"');
      return html.split('data-testid="callback-row"').find((row) => row.includes(`id="callback-note-${id}"`)) ?? "";
    };

    // His table offers each row's note field, with the note in it.
    const page = await getPage(t, listed, admin);
    expect(rowOf(page.text, cb.id)).toMatch(/Изменить заметку/);
    expect(rowOf(page.text, cb.id)).toMatch(new RegExp(`<textarea id="callback-note-${cb.id}" name="note"[^>]*>Спросить про рассрочку</textarea>`));

    // Saved: back to the list as he filtered it, the new note in its row.
    const saved = await post(listed, admin, { intent: "note", id: String(cb.id), note: "Звонить после 15:00", back: listed });
    expect(saved.status).toBe(302);
    expect(saved.headers.location).toBe(listed);
    const after = await getPage(t, listed, `${admin}; ${flashCookie(saved)}`);
    expect(after.text).toContain("Заметка сохранена");
    expect(rowOf(after.text, cb.id)).toMatch(/data-testid="callback-note">Звонить после 15:00</);
    expect(after.text).not.toContain("Спросить про рассрочку");
    expect(await noteOf(cb.id)).toBe("Звонить после 15:00");
    // The manager sees the admin's note in Мои перезвоны.
    expect((await getPage(t, "/callbacks", cookie)).text).toMatch(/data-testid="callback-note">Звонить после 15:00</);

    // Too long: 400, the Russian message under the field of that row only, what he typed kept, nothing saved.
    const long = "я".repeat(501);
    const refused = await post(listed, admin, { intent: "note", id: String(next.id), note: long, back: listed });
    expect(refused.status).toBe(400);
    const refusedRow = rowOf(refused.text, next.id);
    expectRefusedNote(refusedRow, next.id, long);
    expect(rowOf(refused.text, cb.id)).not.toContain("data-field-error");
    expect(refused.text.match(/data-field-error=/g)).toHaveLength(1);
    expect(await noteOf(next.id)).toBe("Жена дома после шести");

    // Another manager may not (403, said on his page); the note stays the admin's.
    const stranger = await post("/callbacks", await pageSessionCookie(t, other), { intent: "note", id: String(cb.id), note: "Чужая заметка" });
    expect(stranger.status).toBe(403);
    expect(stranger.text).toContain("Можно работать только со своими перезвонами");
    expect(await noteOf(cb.id)).toBe("Звонить после 15:00");
  });

  it("a callback scheduled before migration 0035 (no press linked to it) still comes back with «Перезвон на HH:MM» once 0041 has run (issue 41 §7)", async () => {
    const { statusId, base, manager, cookie, first } = await callbackScene("Перезвонить (старый)", "Старый");
    const s = await statusesByText(t.db);
    const done = await pressStatus(cookie, statusId, first, { callbackPreset: "15m" });
    expect(done.status).toBe(302);
    // The row as the press wrote it before 0035, which 0035 gave an empty note and no lead event.
    const [{ due }] = await queryRows<{ due: Date | string }>(
      t.db,
      sql`update callbacks set lead_event_id = null, note = '', due_at = now() - interval '1 minute' where contact_id = ${first} returning due_at as due`,
    );
    // A missed call's callback (issue 42) has no press at all: it stays without one.
    await t.db.execute(
      sql`insert into callbacks (contact_id, database_id, user_id, status_text, due_at) select id, database_id, ${manager.user.id}, 'Пропущенный входящий, 10:00', now() + interval '1 day' from contacts where id <> ${first} and database_id = ${base.id}`,
    );

    await t.db.execute(sql.raw(fs.readFileSync(path.join(migrationsFolder, "0041_backfill_callback_lead_events.sql"), "utf8")));
    const rows = await queryRows<{ status: string; linked: boolean }>(
      t.db,
      sql`select status_text as status, lead_event_id is not null as linked from callbacks where database_id = ${base.id} order by id`,
    );
    expect(rows).toEqual([
      { status: "Перезвонить (старый)", linked: true },
      { status: "Пропущенный входящий, 10:00", linked: false },
    ]);

    // The next press hands it back: the top of the card and the history say when it was due.
    const secondId = /name="contactId" value="(\d+)"/.exec((await getPage(t, "/leadpanel", cookie)).text)![1];
    expect(secondId).not.toBe(first);
    expect((await pressStatus(cookie, s["Отказ"].id, secondId, {})).status).toBe(302);
    const back = await getPage(t, "/leadpanel", cookie);
    expect(back.text).toContain(`name="contactId" value="${first}"`);
    expect(back.text).toMatch(new RegExp(`data-testid="lead-callback"[\\s\\S]*Перезвон на <!-- -->${formatKyivClock(due)}`));
    expect(back.text).toMatch(new RegExp(`data-testid="history-callback"[^>]*>Перезвон на <strong>${formatKyiv(due)}</strong>`));
  });
});
