import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { calls, contacts, filters, settings, users } from "../../db/schema";
import { backfillZonesStep, mappedZones } from "../../server/core/bases/phone-zone";
import { type CallingHours, clientInHours, dayAndDate, hoursLiteral, withinCallingHours } from "../../server/core/filters/calling-hours";
import { loadLeadPanel } from "../../server/core/leads/panel";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";
import { createFilterRow, statusesByText } from "../helpers/leads";
import { clockIn } from "../helpers/zones";

/**
 * Calling hours (issue 29, decision 050): a topic calls its clients only inside its window in each client's own
 * local time, the zone from the phone number at import (the topic's zone when unknown). The claim, a waiting
 * callback, and the proxy's call check all apply it.
 *
 * The database's clock cannot be fixed, so the claim tests set the window around "now" in one zone and check the
 * others fall outside it (the zones are hours apart); the rule itself is checked at fixed instants.
 */
const SECRET = "kamailio-shares-this-secret-0123";
let adminToken: string;

const t = useTestApp({ env: { SIP_AUTH_SECRET: SECRET } });
beforeAll(async () => {
  adminToken = await t.adminToken();
});

const MOSCOW = "+7 495 123-45-67";
const NOVOSIBIRSK = "+7 383 212-34-56";
const VLADIVOSTOK = "+7 423 222-33-44";
const KALININGRAD = "+7 4012 12-34-56";

/** A window open now in `zone` (an hour either side), closed in zones three or more hours away. */
const openIn = (zone: string, timeZone = "Europe/Kyiv"): CallingHours => ({
  from: clockIn(zone, -60),
  until: clockIn(zone, 60),
  days: [1, 2, 3, 4, 5, 6, 7],
  timeZone,
});

async function setHours(filterId: number, hours: CallingHours) {
  await t.db
    .update(filters)
    .set({ callsFrom: hours.from, callsUntil: hours.until, callDays: hours.days, timeZone: hours.timeZone })
    .where(eq(filters.id, filterId));
}

/** A base imported through the API (so each contact's zone comes from the import), one contact per phone. */
async function importBase(name: string, phones: string[]) {
  const file = Buffer.from(csvText([["ФИО", "Телефон"], ...phones.map((phone, i) => [`Клиент ${i + 1}`, phone])]));
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(adminToken))
    .field("name", name)
    .field("mappings", JSON.stringify(["name", "phone"]))
    .attach("file", file, "base.csv");
  expect(res.status).toBe(200);
  const rows = await t.db.select().from(contacts).where(eq(contacts.databaseId, res.body.id)).orderBy(contacts.id);
  return { baseId: res.body.id as number, byPhone: Object.fromEntries(rows.map((r) => [r.phone, r])) };
}

/** A manager in a topic of these bases (re-working «Перезвонить»), signed in. */
async function managerIn(baseIds: number[]) {
  const s = await statusesByText(t.db);
  const manager = await createUser(t.db);
  const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: baseIds, statusIds: [s["Перезвонить"].id] });
  await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
  return { id: manager.user.id, manager, filter, auth: bearer(await t.tokenFor(manager)) };
}

const leadOf = async (m: { id: number; filter: { id: number }; auth: ReturnType<typeof bearer> }) => {
  const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${m.filter.id}&userId=${m.id}`).set(m.auth);
  expect(res.status).toBe(200);
  return res.body === "" || res.body === null ? null : (res.body as { id: number; phone: string });
};

const release = (managerId: number) => t.db.update(contacts).set({ heldBy: null, heldUntil: null }).where(eq(contacts.heldBy, managerId));

describe("the rule at a fixed instant (09:00-21:00 in the client's zone)", () => {
  const at = (iso: string) => sql`${iso}::timestamptz`;
  const within = async (zone: string | null, iso: string, hours: Partial<CallingHours> = {}) => {
    const window = hoursLiteral({ from: "09:00", until: "21:00", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Kyiv", ...hours });
    const [row] = await queryRows<{ ok: boolean }>(t.db, sql`select ${withinCallingHours(sql`${zone}::text`, window, at(iso))} as ok`);
    return row.ok;
  };

  it("reads the local time of each of Russia's zones, and the topic's zone for an unknown one", async () => {
    // 06:30 UTC on a Thursday in January: Kaliningrad 08:30, Kyiv 08:30, Moscow 09:30, Novosibirsk 13:30, Vladivostok 16:30.
    const winter = "2026-01-15T06:30:00Z";
    expect(await within("Europe/Kaliningrad", winter)).toBe(false);
    expect(await within("Europe/Moscow", winter)).toBe(true);
    expect(await within("Asia/Novosibirsk", winter)).toBe(true);
    expect(await within("Asia/Vladivostok", winter)).toBe(true);
    expect(await within(null, winter)).toBe(false);
    expect(await within(null, winter, { timeZone: "Europe/Moscow" })).toBe(true);
    // 11:30 UTC: Vladivostok 21:30, past the window; Kaliningrad 13:30.
    expect(await within("Asia/Vladivostok", "2026-01-15T11:30:00Z")).toBe(false);
    expect(await within("Europe/Kaliningrad", "2026-01-15T11:30:00Z")).toBe(true);
    // Kaliningrad keeps UTC+2 in summer: 06:30 UTC in July is 08:30 there (09:30 in Bucharest).
    expect(await within("Europe/Kaliningrad", "2026-07-15T06:30:00Z")).toBe(false);
  });

  it("keeps the days of the week, an overnight window and one around the clock", async () => {
    // Saturday 17 January 2026, 10:00 in Moscow.
    const saturday = "2026-01-17T07:00:00Z";
    expect(await within("Europe/Moscow", saturday, { days: [1, 2, 3, 4, 5] })).toBe(false);
    expect(await within("Europe/Moscow", saturday, { days: [6] })).toBe(true);
    // The local date decides: 23:30 UTC Friday is already Saturday 08:30 in Vladivostok.
    expect(await within("Asia/Vladivostok", "2026-01-16T23:30:00Z", { from: "08:00", days: [5] })).toBe(false);
    expect(await within("Europe/Moscow", "2026-01-15T20:00:00Z", { from: "22:00", until: "06:00" })).toBe(true);
    expect(await within("Europe/Moscow", "2026-01-15T12:00:00Z", { from: "22:00", until: "06:00" })).toBe(false);
    expect(await within("Europe/Moscow", "2026-01-15T00:30:00Z", { from: "00:00", until: "00:00" })).toBe(true);
  });

  it("reads the client's own zone before the dialled number's (the base's column outranks the phone, issue 43)", async () => {
    const window = hoursLiteral({ from: "09:00", until: "21:00", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Kyiv" });
    const client = async (contactZone: string | null, dialledZone: string | null, iso: string) => {
      const [row] = await queryRows<{ ok: boolean }>(
        t.db,
        sql`select ${clientInHours(sql`${contactZone}::text`, window, dialledZone, sql`${iso}::timestamptz`)} as ok`,
      );
      return row.ok;
    };
    // 20:30 UTC on Thursday 15 January 2026: Moscow 23:30, Vladivostok 06:30 on Friday. Neither may be called.
    expect(await client("Asia/Vladivostok", "Europe/Moscow", "2026-01-15T20:30:00Z")).toBe(false);
    // 01:00 UTC: Vladivostok 11:00, Moscow 04:00. A +7 9… number (Moscow in the data set) of a Vladivostok client may.
    expect(await client("Asia/Vladivostok", "Europe/Moscow", "2026-01-15T01:00:00Z")).toBe(true);
    // 08:30 UTC: Moscow 11:30, Vladivostok 18:30; 12:30 UTC: Moscow 15:30, Vladivostok 22:30, too late for him.
    expect(await client("Asia/Vladivostok", "Europe/Moscow", "2026-01-15T12:30:00Z")).toBe(false);
    // No client known: the dialled number's zone, else the topic's.
    expect(await client(null, "Europe/Moscow", "2026-01-15T12:30:00Z")).toBe(true);
    expect(await client(null, null, "2026-01-15T12:30:00Z")).toBe(true); // Kyiv 14:30
  });

  it("knows every zone the phone data set may give a contact (the database reads them all)", async () => {
    const zones = mappedZones();
    const known = await queryRows<{ name: string }>(t.db, sql`select name from pg_timezone_names where name = any(${sql.param(zones)}::text[])`);
    expect(zones.filter((z) => !known.some((k) => k.name === z))).toEqual([]);
  });
});

describe("the claim hands out a contact only inside its client's hours", () => {
  it("stores each contact's zone from its area code at import", async () => {
    const { byPhone } = await importBase("Зоны по коду", [MOSCOW, NOVOSIBIRSK, VLADIVOSTOK, KALININGRAD, "12345"]);
    expect(byPhone[MOSCOW].tz).toBe("Europe/Moscow");
    expect(byPhone[NOVOSIBIRSK].tz).toBe("Asia/Novosibirsk");
    expect(byPhone[VLADIVOSTOK].tz).toBe("Asia/Vladivostok");
    expect(byPhone[KALININGRAD].tz).toBe("Europe/Kaliningrad");
    expect(byPhone["12345"].tz).toBeNull();
  });

  it("gives only the client whose local time is inside the window, zone by zone", async () => {
    const { baseId, byPhone } = await importBase("Россия", [MOSCOW, NOVOSIBIRSK, VLADIVOSTOK, KALININGRAD]);
    const m = await managerIn([baseId]);
    await setHours(m.filter.id, openIn("Asia/Novosibirsk"));
    const first = await leadOf(m);
    expect(first?.id).toBe(byPhone[NOVOSIBIRSK].id);
    // Nothing else is inside the window: the Novosibirsk client let go, no lead at all.
    await release(m.id);
    await t.db
      .update(contacts)
      .set({ statusId: (await statusesByText(t.db))["Отказ"].id })
      .where(eq(contacts.id, first!.id));
    expect(await leadOf(m)).toBeNull();

    await setHours(m.filter.id, openIn("Asia/Vladivostok"));
    expect((await leadOf(m))?.id).toBe(byPhone[VLADIVOSTOK].id);
    await release(m.id);
    await setHours(m.filter.id, openIn("Europe/Moscow"));
    // Kaliningrad is an hour behind Moscow, so an hour either side of Moscow's now may hold it too: both are fine.
    expect([byPhone[MOSCOW].id, byPhone[KALININGRAD].id]).toContain((await leadOf(m))?.id);
  });

  it("reads an unknown zone in the topic's own zone", async () => {
    const { baseId } = await importBase("Без зоны", ["12345", "67890"]);
    const m = await managerIn([baseId]);
    await setHours(m.filter.id, openIn("Asia/Tokyo", "Europe/Kyiv"));
    expect(await leadOf(m)).toBeNull();
    // The lead panel says why there is no lead.
    const actor = { id: m.id, login: m.manager.login, isAdmin: false };
    expect(await loadLeadPanel(t.db, actor, 30, "UA")).toMatchObject({ lead: null, waitingForHours: true });
    await setHours(m.filter.id, openIn("Asia/Tokyo", "Asia/Tokyo"));
    expect((await leadOf(m))?.phone).toBe("12345");
    expect(await loadLeadPanel(t.db, actor, 30, "UA")).toMatchObject({ lead: { phone: "12345" }, waitingForHours: false });
  });

  it("walks each base's open zones in import order: a closed zone first, a client without a zone in the topic's", async () => {
    // Issue 43: the claim asks the hours once per zone of a base and walks only the open ones. One base: a
    // Vladivostok client, one without a zone, a Novosibirsk client, a second without a zone; a base before it all in
    // Moscow.
    const moscow = await importBase("Москва", [MOSCOW, "+7 495 765-43-21"]);
    const { baseId, byPhone } = await importBase("Смесь", [VLADIVOSTOK, "12345", NOVOSIBIRSK, "67890"]);
    expect(byPhone["12345"].tz).toBeNull();
    const m = await managerIn([moscow.baseId, baseId]);
    // Open in Novosibirsk, the topic's zone Kyiv (closed): the Novosibirsk client, past the closed ones before him.
    await setHours(m.filter.id, openIn("Asia/Novosibirsk", "Europe/Kyiv"));
    expect((await leadOf(m))?.id).toBe(byPhone[NOVOSIBIRSK].id);
    await release(m.id);
    // The topic's zone open too: the client without a zone comes first, in the base's import order.
    await setHours(m.filter.id, openIn("Asia/Novosibirsk", "Asia/Novosibirsk"));
    expect((await leadOf(m))?.id).toBe(byPhone["12345"].id);
    await release(m.id);
    // Only the topic's zone open (New York, hours from every other): the clients without a zone, and no other.
    await setHours(m.filter.id, openIn("America/New_York", "America/New_York"));
    const refused = (await statusesByText(t.db))["Отказ"].id;
    const handed: string[] = [];
    for (let lead = await leadOf(m); lead; lead = await leadOf(m)) {
      handed.push(lead.phone);
      await t.db.update(contacts).set({ statusId: refused, heldBy: null, heldUntil: null }).where(eq(contacts.id, lead.id));
    }
    expect(handed).toEqual(["12345", "67890"]);
    // Moscow's hours: the first base's clients, in order, before anything of the second.
    await setHours(m.filter.id, openIn("Europe/Moscow", "America/New_York"));
    expect((await leadOf(m))?.id).toBe(moscow.byPhone[MOSCOW].id);
  });

  it("keeps a held lead whose client's hours ended, and a status press hands out only clients inside theirs", async () => {
    const { baseId, byPhone } = await importBase("Смена", [VLADIVOSTOK, MOSCOW, NOVOSIBIRSK]);
    const m = await managerIn([baseId]);
    await setHours(m.filter.id, openIn("Asia/Vladivostok"));
    const held = await leadOf(m);
    expect(held?.id).toBe(byPhone[VLADIVOSTOK].id);
    const press = await t.request
      .put("/api/v1/status/update-and-get-lead")
      .set(m.auth)
      .send({ statusText: "Отказ", contactId: held!.id, userId: m.id, passport: "", filterId: m.filter.id, clientInfo: "" });
    expect(press.status).toBe(200);
    // Moscow and Novosibirsk are both hours behind Vladivostok: nothing is handed out.
    expect(press.body === "" || press.body === null).toBe(true);

    await setHours(m.filter.id, openIn("Asia/Novosibirsk"));
    const next = await leadOf(m);
    expect(next?.id).toBe(byPhone[NOVOSIBIRSK].id);
    // Novosibirsk's hours end while he holds it: it stays his (he may be on the call).
    await setHours(m.filter.id, openIn("Europe/Moscow"));
    expect((await leadOf(m))?.id).toBe(next!.id);
    const pressed = await t.request
      .put("/api/v1/status/update-and-get-lead")
      .set(m.auth)
      .send({ statusText: "Отказ", contactId: next!.id, userId: m.id, passport: "", filterId: m.filter.id, clientInfo: "" });
    expect(pressed.body.id).toBe(byPhone[MOSCOW].id);
  });
});

describe("a callback due outside its client's hours waits", () => {
  it("is not handed out, says why in Мои перезвоны, and comes when the hours begin", async () => {
    const { baseId, byPhone } = await importBase("Перезвоны", [VLADIVOSTOK, MOSCOW]);
    const m = await managerIn([baseId]);
    const vladivostok = byPhone[VLADIVOSTOK];
    await t.db.execute(sql`insert into callbacks (contact_id, database_id, user_id, filter_id, status_text, due_at)
      values (${vladivostok.id}, ${baseId}, ${m.id}, ${m.filter.id}, 'Перезвонить', now() - interval '5 minutes')`);
    const moscowHours = openIn("Europe/Moscow");
    await setHours(m.filter.id, moscowHours);

    expect((await leadOf(m))?.id).toBe(byPhone[MOSCOW].id);
    const mine = await t.request.get("/api/v1/callbacks/mine").set(m.auth);
    expect(mine.status).toBe(200);
    expect(mine.body).toHaveLength(1);
    // His window opens at the window's start on his clock: today, or tomorrow (his date named) once it has passed.
    const vladivostokNow = clockIn("Asia/Vladivostok", 0);
    const opens =
      vladivostokNow < moscowHours.from
        ? moscowHours.from
        : `${dayAndDate(new Date(Date.now() + 86_400_000).toLocaleDateString("sv-SE", { timeZone: "Asia/Vladivostok" }))} ${moscowHours.from}`;
    const waiting = `ждёт рабочего времени клиента (с ${opens} по его времени)`;
    expect(mine.body[0]).toMatchObject({ due: true, waitsForHours: waiting });

    // «Позвонить сейчас» is refused too (the proxy would refuse the call), and the callback keeps waiting.
    const take = await t.request.post(`/api/v1/callbacks/${mine.body[0].id}/take`).set(m.auth);
    expect(take.status).toBe(409);
    expect(take.body.message).toBe(`Сейчас у клиента нерабочее время: перезвон ${waiting}`);

    await release(m.id);
    await setHours(m.filter.id, openIn("Asia/Vladivostok"));
    expect((await leadOf(m))?.id).toBe(vladivostok.id);
    const after = await t.request.get("/api/v1/callbacks/mine").set(m.auth);
    expect(after.body).toEqual([]);
  });
});

describe("POST /api/v1/telephony/calls refuses a call outside the client's hours", () => {
  const admit = (fields: Record<string, string>) =>
    t.request.post("/api/v1/telephony/calls").type("form").set("X-Sip-Auth-Secret", SECRET).send(fields);
  let sequence = 0;

  async function caller() {
    sequence += 1;
    const sipLogin = String(8700 + sequence);
    const { baseId, byPhone } = await importBase(`Звонки ${sequence}`, [VLADIVOSTOK, MOSCOW]);
    const person = await createUser(t.db, { login: `hours-${sequence}`, sipLogin, sipPassword: `sip-${sipLogin}` });
    await t.tokenFor(person);
    const s = await statusesByText(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [person.user.id], databaseIds: [baseId], statusIds: [s["Перезвонить"].id] });
    await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, person.user.id));
    return { sipLogin, filter, person, byPhone };
  }

  it("answers 403 Outside Calling Hours with the Russian reason in the call log, and lets the same call through in hours", async () => {
    const c = await caller();
    const lead = c.byPhone[VLADIVOSTOK];
    await t.db
      .update(contacts)
      .set({ heldBy: c.person.user.id, heldUntil: sql`now() + interval '30 minutes'` })
      .where(eq(contacts.id, lead.id));
    await setHours(c.filter.id, openIn("Europe/Moscow"));
    const refused = await admit({ login: c.sipLogin, number: lead.phoneKey, sipCallId: "hours-1@browser" });
    expect(refused.status).toBe(403);
    expect(refused.text).toMatch(/^id=\d+;sip=403\nOutside Calling Hours$/);
    const id = Number(/id=(\d+)/.exec(refused.text)![1]);
    const [row] = await t.db.select().from(calls).where(eq(calls.id, id));
    expect(row).toMatchObject({ outcome: "failed", sipCode: 403, reason: "У клиента сейчас нерабочее время", contactId: lead.id });

    await setHours(c.filter.id, openIn("Asia/Vladivostok"));
    const allowed = await admit({ login: c.sipLogin, number: lead.phoneKey, sipCallId: "hours-2@browser" });
    expect(allowed.status).toBe(200);
  });

  it("reads the zone of the number dialled by hand, even when it is no lead", async () => {
    const c = await caller();
    await setHours(c.filter.id, openIn("Asia/Vladivostok"));
    expect((await admit({ login: c.sipLogin, number: "+74232223355", sipCallId: "hours-3@browser" })).status).toBe(200);
    const moscow = await admit({ login: c.sipLogin, number: "+74951234500", sipCallId: "hours-4@browser" });
    expect(moscow.status).toBe(403);
    expect(moscow.text).toMatch(/\nOutside Calling Hours$/);
  });
});

describe("the base's zone column decides for the turn and the proxy alike (issue 43)", () => {
  const admit = (fields: Record<string, string>) =>
    t.request.post("/api/v1/telephony/calls").type("form").set("X-Sip-Auth-Secret", SECRET).send(fields);

  it("hands out a +7 9… client mapped to Vladivostok in his hours and lets his call through; at Moscow's hour refuses both", async () => {
    const MOBILE = "+7 916 123-45-67";
    const file = Buffer.from(
      csvText([
        ["ФИО", "Телефон", "Часовой пояс"],
        ["Клиент во Владивостоке", MOBILE, "Asia/Vladivostok"],
      ]),
    );
    const imported = await t.request
      .post("/api/v1/database/import")
      .set(bearer(adminToken))
      .field("name", "Мобильные с поясом")
      .field("mappings", JSON.stringify(["name", "phone", "timeZone"]))
      .attach("file", file, "base.csv");
    expect(imported.status).toBe(200);
    const [client] = await t.db.select().from(contacts).where(eq(contacts.databaseId, imported.body.id));
    expect(client.tz).toBe("Asia/Vladivostok");

    const m = await managerIn([imported.body.id]);
    const sipLogin = "8790";
    await t.db.update(users).set({ sipLogin, sipPassword: "sip-8790" }).where(eq(users.id, m.id));

    // Vladivostok's hours (Moscow's clock is seven hours behind): the turn gives him, and the proxy lets his call out.
    await setHours(m.filter.id, openIn("Asia/Vladivostok"));
    expect((await leadOf(m))?.id).toBe(client.id);
    const inHours = await admit({ login: sipLogin, number: client.phoneKey, sipCallId: "zone-column-1@browser" });
    expect(inHours.status).toBe(200);

    // Moscow's hours: the held lead's call is refused in his zone although it is Moscow's daytime…
    await setHours(m.filter.id, openIn("Europe/Moscow"));
    const held = await admit({ login: sipLogin, number: client.phoneKey, sipCallId: "zone-column-2@browser" });
    expect(held.status).toBe(403);
    expect(held.text).toMatch(/\nOutside Calling Hours$/);
    // …and, let go, the turn does not give him, and a call by hand to his number is refused all the same.
    await release(m.id);
    expect(await leadOf(m)).toBeNull();
    const byHand = await admit({ login: sipLogin, number: "+7 (916) 123-45-67", sipCallId: "zone-column-3@browser" });
    expect(byHand.status).toBe(403);
    expect(byHand.text).toMatch(/\nOutside Calling Hours$/);
    // Another +7 916 number no contact has is Moscow's by the data set: let through at Moscow's hour.
    expect((await admit({ login: sipLogin, number: "+79161112233", sipCallId: "zone-column-4@browser" })).status).toBe(200);
  });
});

describe("the topic's calling hours through the API", () => {
  async function topicBody(callingHours?: unknown) {
    const s = await statusesByText(t.db);
    const manager = await createUser(t.db);
    const [base] = await queryRows<{ id: number }>(t.db, sql`insert into databases (name) values ('Для формы') returning id`);
    return { name: "Часы", managers: [manager.user.id], databases: [base.id], statuses: [s["Перезвонить"].id], callingHours };
  }

  it("saves and shows the window, and refuses a bad one with a Russian message", async () => {
    const hours = {
      from: "10:00",
      until: "19:30",
      days: [1, 2, 3, 4, 5],
      timeZone: "Asia/Novosibirsk",
      weekendFrom: null,
      weekendUntil: null,
      daysOff: [],
    };
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(adminToken))
      .send(await topicBody(hours));
    expect(created.status).toBe(200);
    expect(created.body.callingHours).toEqual(hours);

    const bad = async (callingHours: unknown, message: string) => {
      const res = await t.request
        .put(`/api/v1/filters/${created.body.id}`)
        .set(bearer(adminToken))
        .send(await topicBody(callingHours));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    };
    await bad({ ...hours, from: "25:00" }, "Укажите начало времени звонков в формате ЧЧ:ММ");
    await bad({ ...hours, until: "" }, "Укажите конец времени звонков в формате ЧЧ:ММ");
    await bad({ ...hours, days: [] }, "Выберите хотя бы один день звонков");
    await bad({ ...hours, timeZone: "Europe/Atlantis" }, "Неизвестный часовой пояс «Europe/Atlantis»");

    // An edit without the window keeps it.
    const kept = await t.request
      .put(`/api/v1/filters/${created.body.id}`)
      .set(bearer(adminToken))
      .send(await topicBody());
    expect(kept.status).toBe(200);
    expect(kept.body.callingHours).toEqual(hours);
  });
});

describe("contacts imported before calling hours get their zone at start", () => {
  it("fills the zones of the old range step by step, and then stops", async () => {
    const [base] = await queryRows<{ id: number }>(t.db, sql`insert into databases (name) values ('Старая') returning id`);
    await t.db.execute(sql`insert into contacts (database_id, name, phone, phone_key) values
      (${base.id}, 'Москва', ${MOSCOW}, '74951234567'), (${base.id}, 'Владивосток', ${VLADIVOSTOK}, '74232223344'),
      (${base.id}, 'Никто', '12345', '12345')`);
    const [{ last }] = await queryRows<{ last: string }>(t.db, sql`select max(id) as last from contacts`);
    await t.db
      .update(settings)
      .set({ tzBackfilledTo: Number(last) - 3, tzBackfillEnd: Number(last) })
      .where(eq(settings.id, 1));
    expect(await backfillZonesStep(t.db, "UA", 2)).toBe("more");
    expect(await backfillZonesStep(t.db, "UA", 2)).toBe("done");
    expect(await backfillZonesStep(t.db, "UA", 2)).toBe("done");
    const rows = await t.db
      .select({ name: contacts.name, tz: contacts.tz })
      .from(contacts)
      .where(eq(contacts.databaseId, base.id))
      .orderBy(contacts.id);
    expect(rows).toEqual([
      { name: "Москва", tz: "Europe/Moscow" },
      { name: "Владивосток", tz: "Asia/Vladivostok" },
      { name: "Никто", tz: null },
    ]);
  });
});
