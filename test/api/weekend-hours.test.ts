import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { contacts, filters, users } from "../../db/schema";
import { type CallingHours, hoursLiteral, nextWindowLocal, waitsForHoursNote, withinCallingHours } from "../../server/core/filters/calling-hours";
import { fillPublicHolidays, holidayYears } from "../../server/core/filters/holidays";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";
import { createFilterRow, statusesByText } from "../helpers/leads";
import { clockIn } from "../helpers/zones";

/**
 * Weekday and weekend windows (issue 43, decision 076): on a Saturday, a Sunday, a public holiday of the client's
 * country (public_holidays, from date-holidays) and a day off of the topic, the topic's weekend window applies, in
 * the client's own zone and local date; the turn and the proxy's call check read the one rule.
 *
 * The database's clock cannot be fixed: the rule is checked at fixed instants (`withinCallingHours(…, at)`), and
 * the turn and the proxy with windows set around "now" whose answer is the same on any day and at any hour.
 */
const SECRET = "kamailio-shares-this-secret-0123";
const t = useTestApp({ web: true, env: { SIP_AUTH_SECRET: SECRET } });
let adminToken: string;

beforeAll(async () => {
  adminToken = await t.adminToken();
  // The years of the fixed instants below (2027), whatever year the test runs in.
  await fillPublicHolidays(t.db, holidayYears(new Date("2027-06-01T00:00:00Z")));
});

describe("the rule at fixed instants", () => {
  const within = async (zone: string | null, iso: string, hours: Partial<CallingHours>) => {
    const window = hoursLiteral({ from: "08:00", until: "22:00", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Kyiv", ...hours });
    const [row] = await queryRows<{ ok: boolean }>(
      t.db,
      sql`select ${withinCallingHours(sql`${zone}::text`, window, sql`${iso}::timestamptz`)} as ok`,
    );
    return row.ok;
  };
  const law = { from: "08:00", until: "22:00", weekendFrom: "09:00", weekendUntil: "20:00" };

  it("switches to the weekend window at midnight in the client's zone, not ours", async () => {
    // Around the clock on working days, 09:00-20:00 on weekends. Friday 15 January 2027.
    const hours = { from: "00:00", until: "00:00", weekendFrom: "09:00", weekendUntil: "20:00" };
    // 13:30 UTC: Friday 23:30 in Vladivostok (UTC+10): still a working day.
    expect(await within("Asia/Vladivostok", "2027-01-15T13:30:00Z", hours)).toBe(true);
    // 14:30 UTC: Saturday 00:30 in Vladivostok: the weekend window, not open yet…
    expect(await within("Asia/Vladivostok", "2027-01-15T14:30:00Z", hours)).toBe(false);
    // …while in Moscow (UTC+3) it is Friday 17:30.
    expect(await within("Europe/Moscow", "2027-01-15T14:30:00Z", hours)).toBe(true);
    // Saturday 10:00 and 20:30 in Vladivostok.
    expect(await within("Asia/Vladivostok", "2027-01-16T00:00:00Z", hours)).toBe(true);
    expect(await within("Asia/Vladivostok", "2027-01-16T10:30:00Z", hours)).toBe(false);
    // Sunday 23:59 → Monday 00:01 in Moscow: back to the working days' window.
    expect(await within("Europe/Moscow", "2027-01-17T20:59:00Z", hours)).toBe(false);
    expect(await within("Europe/Moscow", "2027-01-17T21:01:00Z", hours)).toBe(true);
    // Without a weekend window a weekend is a working day's window (on the days ticked).
    expect(await within("Asia/Vladivostok", "2027-01-15T14:30:00Z", { from: "00:00", until: "00:00" })).toBe(true);
    expect(await within("Asia/Vladivostok", "2027-01-16T00:00:00Z", { days: [1, 2, 3, 4, 5], ...hours })).toBe(false);
  });

  // Issue 43: a waiting callback says when its client's window opens, on the day it opens (not the working days'
  // start on a weekend).
  it("tells a waiting callback when the window opens: the weekend window's start, or the next working day", async () => {
    const note = async (zone: string, iso: string, hours: Partial<CallingHours>) => {
      const window = hoursLiteral({ from: "09:00", until: "18:00", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Kyiv", ...hours });
      const [row] = await queryRows<{ local: string | null }>(
        t.db,
        sql`select ${nextWindowLocal(sql`${zone}::text`, window, sql`${iso}::timestamptz`)} as local`,
      );
      return waitsForHoursNote(row.local);
    };
    // Saturday 16 January 2027, 07:00 in Moscow; the weekend window opens at 10:00 that day.
    expect(await note("Europe/Moscow", "2027-01-16T04:00:00Z", { weekendFrom: "10:00", weekendUntil: "16:00" })).toBe(
      "ждёт рабочего времени клиента (с 10:00 по его времени)",
    );
    // The same Saturday at 17:00: past the weekend window; Sunday's opens at 10:00.
    expect(await note("Europe/Moscow", "2027-01-16T14:00:00Z", { weekendFrom: "10:00", weekendUntil: "16:00" })).toBe(
      "ждёт рабочего времени клиента (с вс 17.01 10:00 по его времени)",
    );
    // A topic that calls Monday to Friday: Monday 09:00.
    expect(await note("Europe/Moscow", "2027-01-16T14:00:00Z", { days: [1, 2, 3, 4, 5] })).toBe(
      "ждёт рабочего времени клиента (с пн 18.01 09:00 по его времени)",
    );
    // 7 January 2027 is Russia's holiday: a Moscow client at 06:00 waits for the law's 09:00, not 08:00.
    expect(await note("Europe/Moscow", "2027-01-07T03:00:00Z", law)).toBe("ждёт рабочего времени клиента (с 09:00 по его времени)");
    // No window within the horizon (no day ticked): said without a time.
    expect(await note("Europe/Moscow", "2027-01-16T14:00:00Z", { days: [] })).toBe("ждёт рабочего времени клиента");
  });

  it("keeps 230-FZ's hours on a Russian public holiday (7 January 2027, a Thursday) as on a weekend", async () => {
    // 05:30 UTC: 08:30 in Moscow. A working Thursday allows it; Christmas does not (from 09:00).
    expect(await within("Europe/Moscow", "2027-01-14T05:30:00Z", law)).toBe(true);
    expect(await within("Europe/Moscow", "2027-01-07T05:30:00Z", law)).toBe(false);
    expect(await within("Europe/Moscow", "2027-01-07T06:30:00Z", law)).toBe(true);
    // 17:30 UTC: 20:30 in Moscow; 7 January in Vladivostok too is Russia's: 00:30 UTC is 10:30 there.
    expect(await within("Europe/Moscow", "2027-01-07T17:30:00Z", law)).toBe(false);
    expect(await within("Europe/Moscow", "2027-01-14T17:30:00Z", law)).toBe(true);
    expect(await within("Asia/Vladivostok", "2027-01-06T22:30:00Z", law)).toBe(false); // 08:30 on the 7th
    // A topic that does not call on Saturdays or Sundays does not call on a holiday either.
    expect(await within("Europe/Moscow", "2027-01-07T09:00:00Z", { ...law, days: [1, 2, 3, 4, 5] })).toBe(false);
    expect(await within("Europe/Moscow", "2027-01-14T09:00:00Z", { ...law, days: [1, 2, 3, 4, 5] })).toBe(true);
    // A fixed offset (a base's «UTC+3») has no country and so no holidays.
    expect(await within("Etc/GMT-3", "2027-01-07T05:30:00Z", law)).toBe(true);
  });

  it("reads Ukraine's holidays for a Kyiv client under either name of the zone, and for a topic in Kyiv", async () => {
    // Independence Day, Tuesday 24 August 2027; 05:30 UTC is 08:30 in Kyiv (UTC+3 in summer).
    for (const zone of ["Europe/Kyiv", "Europe/Kiev", null]) {
      expect(await within(zone, "2027-08-24T05:30:00Z", law)).toBe(false);
      expect(await within(zone, "2027-08-31T05:30:00Z", law)).toBe(true);
    }
    // Moscow's clients work on Ukraine's holiday.
    expect(await within("Europe/Moscow", "2027-08-24T05:30:00Z", law)).toBe(true);
  });

  it("takes the topic's own day off as a weekend, by the client's local date", async () => {
    const hours = { from: "00:00", until: "00:00", weekendFrom: "09:00", weekendUntil: "20:00", daysOff: ["2027-01-14"] };
    // 21:30 UTC on the 13th: 00:30 on the 14th in Moscow (the day off), 23:30 on the 13th in Kaliningrad.
    expect(await within("Europe/Moscow", "2027-01-13T21:30:00Z", hours)).toBe(false);
    expect(await within("Europe/Kaliningrad", "2027-01-13T21:30:00Z", hours)).toBe(true);
    expect(await within("Europe/Moscow", "2027-01-14T07:00:00Z", hours)).toBe(true); // 10:00
    expect(await within("Europe/Moscow", "2027-01-15T21:30:00Z", hours)).toBe(false); // Saturday 00:30 anyway
    expect(await within("Europe/Moscow", "2027-01-12T21:30:00Z", hours)).toBe(true); // the 13th, a working day
  });

  it("fills the holidays of each zone's country from the data set", async () => {
    const days = async (zone: string) =>
      (
        await queryRows<{ day: string }>(
          t.db,
          sql`select day::text as day from public_holidays where zone = ${zone} and day between '2027-01-01' and '2027-12-31' order by day`,
        )
      ).map((r) => r.day);
    expect(await days("Europe/Moscow")).toEqual(expect.arrayContaining(["2027-01-01", "2027-01-07", "2027-05-09", "2027-06-12", "2027-11-04"]));
    expect(await days("Asia/Kamchatka")).toEqual(await days("Europe/Moscow"));
    expect(await days("Europe/Kyiv")).toEqual(expect.arrayContaining(["2027-01-01", "2027-06-28", "2027-08-24"]));
    expect(await days("Europe/Kyiv")).toEqual(await days("Europe/Kiev"));
    expect(await days("Europe/Moscow")).not.toContain("2027-08-24");
    expect(await days("Etc/GMT-3")).toEqual([]);
    // Filled once for a data set and its years: a second start writes nothing.
    expect(await fillPublicHolidays(t.db, holidayYears(new Date("2027-06-01T00:00:00Z")))).toBe(false);
  });
});

// ---- The turn and the proxy, with windows around now ----

const MOSCOW = "+7 495 123-45-67";

/** The local date in a zone now, "YYYY-MM-DD". */
const todayIn = (zone: string) => new Intl.DateTimeFormat("en-CA", { timeZone: zone }).format(new Date());
/** Open now in Moscow (an hour either side), and closed now (three to four hours ahead). */
const OPEN = () => [clockIn("Europe/Moscow", -60), clockIn("Europe/Moscow", 60)];
const CLOSED = () => [clockIn("Europe/Moscow", 180), clockIn("Europe/Moscow", 240)];

describe("the turn and the proxy's call check agree on weekends, holidays and days off", () => {
  const admit = (login: string, number: string, sipCallId: string) =>
    t.request.post("/api/v1/telephony/calls").type("form").set("X-Sip-Auth-Secret", SECRET).send({ login, number, sipCallId });
  let sequence = 0;

  async function world() {
    sequence += 1;
    const file = Buffer.from(
      csvText([
        ["ФИО", "Телефон"],
        ["Клиент в Москве", MOSCOW],
      ]),
    );
    const imported = await t.request
      .post("/api/v1/database/import")
      .set(bearer(adminToken))
      .field("name", `Выходные ${sequence}`)
      .field("mappings", JSON.stringify(["name", "phone"]))
      .attach("file", file, "base.csv");
    expect(imported.status).toBe(200);
    const [client] = await t.db.select().from(contacts).where(eq(contacts.databaseId, imported.body.id));
    expect(client.tz).toBe("Europe/Moscow");
    const sipLogin = String(8800 + sequence);
    const manager = await createUser(t.db, { login: `weekend-${sequence}`, sipLogin, sipPassword: `sip-${sipLogin}` });
    const s = await statusesByText(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [imported.body.id], statusIds: [s["Перезвонить"].id] });
    await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
    const auth = bearer(await t.tokenFor(manager));
    const turn = async () => {
      await t.db.update(contacts).set({ heldBy: null, heldUntil: null }).where(eq(contacts.id, client.id));
      const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(auth);
      expect(res.status).toBe(200);
      return res.body?.id === client.id;
    };
    let call = 0;
    const proxy = async () => {
      call += 1;
      const res = await admit(sipLogin, client.phoneKey, `weekend-${sequence}-${call}@browser`);
      if (res.status === 403) expect(res.text).toMatch(/\nOutside Calling Hours$/);
      else expect(res.status).toBe(200);
      return res.status === 200;
    };
    const set = (weekday: string[], weekend: string[], daysOff: string[] = []) =>
      t.db
        .update(filters)
        .set({
          callsFrom: weekday[0],
          callsUntil: weekday[1],
          weekendFrom: weekend[0],
          weekendUntil: weekend[1],
          daysOff,
          callDays: [1, 2, 3, 4, 5, 6, 7],
        })
        .where(eq(filters.id, filter.id));
    return { turn, proxy, set };
  }

  it("a day off of the topic today (the client's date) takes the weekend window for both", async () => {
    const w = await world();
    const today = todayIn("Europe/Moscow");
    // Working hours open now, weekend hours closed now, today a day off: neither hands him out nor lets him be called.
    await w.set(OPEN(), CLOSED(), [today]);
    expect(await w.turn()).toBe(false);
    expect(await w.proxy()).toBe(false);
    // The other way round: today's weekend window is open, and both let him be called.
    await w.set(CLOSED(), OPEN(), [today]);
    expect(await w.turn()).toBe(true);
    expect(await w.proxy()).toBe(true);
    // A day off that is not his today changes nothing: whichever window today has, both say the same.
    await w.set(OPEN(), CLOSED(), ["2020-01-01"]);
    expect(await w.proxy()).toBe(await w.turn());
  });

  it("a public holiday of his country today takes the weekend window for both", async () => {
    const w = await world();
    await t.db.execute(
      sql`insert into public_holidays (zone, day) values ('Europe/Moscow', ${todayIn("Europe/Moscow")}::date) on conflict do nothing`,
    );
    await w.set(OPEN(), CLOSED());
    expect(await w.turn()).toBe(false);
    expect(await w.proxy()).toBe(false);
    await w.set(CLOSED(), OPEN());
    expect(await w.turn()).toBe(true);
    expect(await w.proxy()).toBe(true);
  });
});

// ---- The API and the form ----

describe("the weekend window and days off through the API and the topic form", () => {
  async function topicBody(callingHours?: unknown) {
    const s = await statusesByText(t.db);
    const manager = await createUser(t.db);
    const [base] = await queryRows<{ id: number }>(t.db, sql`insert into databases (name) values ('Для выходных') returning id`);
    return { name: "Выходные", managers: [manager.user.id], databases: [base.id], statuses: [s["Перезвонить"].id], callingHours };
  }
  const hours = { from: "08:00", until: "22:00", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Moscow" };

  it("saves and shows them, and refuses bad ones in Russian", async () => {
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(adminToken))
      .send(await topicBody({ ...hours, weekendFrom: "09:00", weekendUntil: "20:00", daysOff: ["2027-01-05", "2026-12-31", "2027-01-05"] }));
    expect(created.status).toBe(200);
    expect(created.body.callingHours).toEqual({ ...hours, weekendFrom: "09:00", weekendUntil: "20:00", daysOff: ["2026-12-31", "2027-01-05"] });

    const bad = async (callingHours: unknown, message: string) => {
      const res = await t.request
        .put(`/api/v1/filters/${created.body.id}`)
        .set(bearer(adminToken))
        .send(await topicBody(callingHours));
      expect(res.status).toBe(400);
      expect(res.body.message).toBe(message);
    };
    await bad(
      { ...hours, weekendFrom: "25:00", weekendUntil: "20:00" },
      "Укажите начало времени звонков в выходные в формате ЧЧ:ММ (или оставьте пустым)",
    );
    await bad({ ...hours, weekendFrom: "09:00" }, "Время звонков в выходные: укажите и начало, и конец, или оставьте оба поля пустыми (как в будни)");
    await bad({ ...hours, daysOff: ["2027-02-30"] }, "Неверная дата выходного дня: укажите дату вида 2027-01-05");
    await bad({ ...hours, daysOff: ["05.01.2027"] }, "Неверная дата выходного дня: укажите дату вида 2027-01-05");
    await bad({ ...hours, daysOff: "2027-01-05" }, "Неверная дата выходного дня: укажите дату вида 2027-01-05");

    // A window without them: the same hours on weekends, no days off.
    const plain = await t.request
      .put(`/api/v1/filters/${created.body.id}`)
      .set(bearer(adminToken))
      .send(await topicBody(hours));
    expect(plain.status).toBe(200);
    expect(plain.body.callingHours).toEqual({ ...hours, weekendFrom: null, weekendUntil: null, daysOff: [] });
  });

  const postPlainForm = (path: string, cookie: string, fields: string[][]) =>
    t.request
      .post(path)
      .set("Cookie", cookie)
      .set("Host", "127.0.0.1")
      .set("Origin", "http://127.0.0.1")
      .set("Accept-Encoding", "identity")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(new URLSearchParams(fields).toString());

  /** The input named so: its value, aria-invalid, and the error text that follows it. */
  const fieldIn = (html: string, name: string) => {
    const input = new RegExp(`<input[^>]*name="${name.replace(".", "\\.")}"[^>]*>`).exec(html)?.[0] ?? "";
    const after = html.slice(html.indexOf(input) + input.length);
    return {
      value: /value="([^"]*)"/.exec(input)?.[1],
      invalid: input.includes('aria-invalid="true"'),
      message: /data-field-error[^>]*>([^<]*)</.exec(after.slice(0, 600))?.[1],
    };
  };

  it("the form without JavaScript saves them, says a bad one at its field, and the 230-FZ choice sets the law's hours", async () => {
    const body = await topicBody(hours);
    const created = await t.request.post("/api/v1/filters").set(bearer(adminToken)).send(body);
    const cookie = await pageSessionCookie(t, ADMIN);
    const page = `/loadedbases/filters/${created.body.id}`;
    const form = (await getPage(t, page, cookie)).text;
    expect(form).toContain("В выходные и праздники");
    expect(form).toContain("Дополнительные выходные дни (даты через запятую)");
    const topic = [
      ["intent", "save"],
      ["name", "Выходные в форме"],
      ["managers", String(body.managers[0])],
      ["databases", String(body.databases[0])],
      ["statuses", String(body.statuses[0])],
      ["callingHours.from", "10:00"],
      ["callingHours.until", "19:00"],
      ...[1, 2, 3, 4, 5, 6].map((d) => ["callingHours.days", String(d)]),
      ["callingHours.timeZone", "Europe/Moscow"],
    ];
    const shown = async () =>
      (await t.request.get("/api/v1/filters").set(bearer(adminToken))).body.find((f: { id: number }) => f.id === created.body.id).callingHours;

    const saved = await postPlainForm(page, cookie, [
      ...topic,
      ["callingHours.weekendFrom", "11:00"],
      ["callingHours.weekendUntil", "16:00"],
      ["callingHours.daysOff", "31.12.2026, 2027-01-05\n8.1.2027"],
    ]);
    expect(saved.status).toBe(302);
    expect(await shown()).toEqual({
      from: "10:00",
      until: "19:00",
      days: [1, 2, 3, 4, 5, 6],
      timeZone: "Europe/Moscow",
      weekendFrom: "11:00",
      weekendUntil: "16:00",
      daysOff: ["2026-12-31", "2027-01-05", "2027-01-08"],
    });
    const again = (await getPage(t, page, cookie)).text;
    expect(fieldIn(again, "callingHours.weekendFrom").value).toBe("11:00");
    expect(fieldIn(again, "callingHours.daysOff").value).toBe("31.12.2026, 05.01.2027, 08.01.2027");
    expect(again).toContain("10:00–19:00, Пн, Вт, Ср, Чт, Пт, Сб; в выходные и праздники 11:00–16:00; доп. выходных: 3");

    const badDate = await postPlainForm(page, cookie, [...topic, ["callingHours.daysOff", "31.12.2026, 32.01.2027"]]);
    expect(badDate.status).toBe(400);
    expect(fieldIn(badDate.text, "callingHours.daysOff")).toEqual({
      value: "31.12.2026, 32.01.2027",
      invalid: true,
      message: "Неверная дата «32.01.2027»: укажите даты через запятую в виде ДД.ММ.ГГГГ, например 31.12.2026, 08.01.2027",
    });
    const half = await postPlainForm(page, cookie, [...topic, ["callingHours.weekendUntil", "16:00"]]);
    expect(half.status).toBe(400);
    expect(fieldIn(half.text, "callingHours.weekendFrom")).toMatchObject({
      invalid: true,
      message: "Время звонков в выходные: укажите и начало, и конец, или оставьте оба поля пустыми (как в будни)",
    });
    // Nothing was saved by the refused posts.
    expect((await shown()).daysOff).toHaveLength(3);

    // Emptied fields: the same hours on weekends, no days off.
    expect((await postPlainForm(page, cookie, topic)).status).toBe(302);
    expect(await shown()).toMatchObject({ weekendFrom: null, weekendUntil: null, daysOff: [] });

    // 230-FZ with one choice: the limits, and the law's hours where the typed ones are wider. 10:00-19:00 (and the
    // weekend's, the same) lie inside the law's, so they are kept…
    const law = await postPlainForm(page, cookie, [...topic, ["contactLimits.preset", "law230"]]);
    expect(law.status).toBe(302);
    expect(await shown()).toMatchObject({ from: "10:00", until: "19:00", weekendFrom: "10:00", weekendUntil: "19:00" });
    // …07:00 and 08:00-21:00 do not: the law's hours.
    const wide = await postPlainForm(page, cookie, [
      ...topic.map(([k, v]) => (k === "callingHours.from" ? [k, "07:00"] : [k, v])),
      ["callingHours.weekendFrom", "08:00"],
      ["callingHours.weekendUntil", "21:00"],
      ["contactLimits.preset", "law230"],
    ]);
    expect(wide.status).toBe(302);
    expect(await shown()).toMatchObject({ from: "08:00", until: "22:00", weekendFrom: "09:00", weekendUntil: "20:00" });
  });
});
