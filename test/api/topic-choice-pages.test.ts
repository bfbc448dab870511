import { eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { callbacks, contacts, doNotCall, filterRetryRules, filters, users } from "../../db/schema";
import { claimNext, loadWorkSet } from "../../server/core/leads/allocation";
import { DEFAULT_CALLING_HOURS } from "../../server/core/filters/calling-hours";
import { callsResume, callsResumeText } from "../../server/core/filters/topic-choice";
import { fillPublicHolidays, holidayYears } from "../../server/core/filters/holidays";
import { ADMIN, createUser, getPage, pageSessionCookie, reloadUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { clockIn } from "../helpers/zones";

/**
 * Issue 41, item 12: choosing a topic. /getFilters shows each topic's calling hours and its free clients now; a
 * manager with one topic enters it by himself (and is not offered «Сменить тематику», which would bring him back);
 * an admin without topics is told how to make one, not to ask the administrator; and a panel whose clients all
 * wait for their hours says when calls resume, by the rule the turn applies.
 */
const t = useTestApp({ web: true });

const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7];
/** A window that opened an hour ago / opens in three hours, in Kyiv (the topic's zone, for clients of no zone). */
const OPEN = () => ({ callsFrom: clockIn("Europe/Kyiv", -60), callsUntil: clockIn("Europe/Kyiv", 60) });
const CLOSED = () => ({ callsFrom: clockIn("Europe/Kyiv", 180), callsUntil: clockIn("Europe/Kyiv", 240) });

async function manager() {
  const m = await createUser(t.db);
  return { ...m, cookie: await pageSessionCookie(t, m) };
}

/** The page's text without tags (and with its entities read), as a person reads it. */
const textOf = (html: string) =>
  html
    .replace(/<script[\s\S]*?<\/script>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

beforeAll(async () => {
  await fillPublicHolidays(t.db, holidayYears(new Date("2027-06-01T00:00:00Z")));
});

describe("/getFilters", () => {
  it("shows each topic's calling hours and how many of its new clients may be called now", async () => {
    const m = await manager();
    const s = await statusesByText(t.db);
    const shared = await createBase(t.db, { count: 4 });
    const other = await createBase(t.db, { count: 3 });
    // Of the shared base: one worked, one held by somebody: two free. Of the other: one on the do-not-call list.
    await t.db.update(contacts).set({ statusId: s["Занято"].id }).where(eq(contacts.id, shared.contacts[0].id));
    await t.db
      .update(contacts)
      .set({ heldBy: m.user.id, heldUntil: new Date(Date.now() + 600_000) })
      .where(eq(contacts.id, shared.contacts[1].id));
    await t.db.update(contacts).set({ listed: true }).where(eq(contacts.id, other.contacts[0].id));
    const day = await createFilterRow(t.db, { name: "Дневная", managerIds: [m.user.id], databaseIds: [shared.base.id], statusIds: [] });
    const later = await createFilterRow(t.db, {
      name: "Вечерняя",
      managerIds: [m.user.id],
      databaseIds: [shared.base.id, other.base.id],
      statusIds: [],
    });
    await t.db.update(filters).set({ callsFrom: "00:00", callsUntil: "00:00", callDays: ALL_DAYS }).where(eq(filters.id, day.id));
    const closed = CLOSED();
    await t.db
      .update(filters)
      .set({ ...closed, callDays: [1, 2, 3, 4, 5], weekendFrom: null, weekendUntil: null })
      .where(eq(filters.id, later.id));

    const res = await getPage(t, "/getFilters", m.cookie);
    expect(res.status).toBe(200);
    const text = textOf(res.text);
    expect(text).toContain("Выберите тематику:");
    expect(text).toMatch(/Дневная Часы звонков: ежедневно круглосуточно · по местному времени клиента Можно звонить сейчас: 2 /);
    expect(text).toContain(
      `Вечерняя Часы звонков: Пн–Пт ${closed.callsFrom}–${closed.callsUntil}; в праздники не звоним · по местному времени клиента ` +
        "Можно звонить сейчас: 0 из 4 (у остальных нерабочее время)",
    );

    // One client of the other base in India, whose hours (an hour either side of his clock) are open now: he is
    // free now, the Kyiv clients (2.5 or 3.5 hours behind him) are not.
    await t.db.update(contacts).set({ tz: "Asia/Kolkata" }).where(eq(contacts.id, other.contacts[1].id));
    await t.db
      .update(filters)
      .set({ callsFrom: clockIn("Asia/Kolkata", -60), callsUntil: clockIn("Asia/Kolkata", 60), callDays: ALL_DAYS })
      .where(eq(filters.id, later.id));
    const again = textOf((await getPage(t, "/getFilters", m.cookie)).text);
    expect(again).toContain("Можно звонить сейчас: 1 из 4 (у остальных нерабочее время)");
  });

  it("counts the clients the panel would give now, by its own rules: a due callback and a due retry, not only new ones", async () => {
    const m = await manager();
    const s = await statusesByText(t.db);
    const base = await createBase(t.db, { count: 5 });
    const [retryDue, retryNotYet, callback, done, listedRetry] = base.contacts;
    // «Отказ» comes back after an hour by the topic's retry rule; «Заявка» is never worked again here.
    const topic = await createFilterRow(t.db, { name: "Повторы", managerIds: [m.user.id], databaseIds: [base.base.id], statusIds: [] });
    await t.db.update(filters).set({ callsFrom: "00:00", callsUntil: "00:00", callDays: ALL_DAYS }).where(eq(filters.id, topic.id));
    await t.db
      .insert(filterRetryRules)
      .values({ filterId: topic.id, statusId: s["Отказ"].id, delayMinutes: 60, maxAttempts: 5, finalStatusId: s["Заявка"].id });
    const pressed = (id: number, status: string, minutesAgo: number) =>
      t.db.execute(sql`update contacts set status_id = ${s[status].id}, status_at = now() - make_interval(mins => ${minutesAgo}) where id = ${id}`);
    await pressed(retryDue.id, "Отказ", 120);
    await pressed(retryNotYet.id, "Отказ", 10);
    await pressed(listedRetry.id, "Отказ", 120);
    await t.db.insert(doNotCall).values({ phoneKey: listedRetry.phoneKey, phone: listedRetry.phone });
    await pressed(done.id, "Заявка", 120);
    // His callback, due half an hour ago (past the grace time: the overdue tier would give it too; it is one client).
    await pressed(callback.id, "Перезвонить", 60);
    await t.db.insert(callbacks).values({
      contactId: callback.id,
      databaseId: base.base.id,
      userId: m.user.id,
      filterId: topic.id,
      statusText: "Перезвонить",
      dueAt: new Date(Date.now() - 30 * 60_000),
    });
    // A second topic, so that he is asked to choose.
    await createFilterRow(t.db, { name: "Пустая", managerIds: [m.user.id], databaseIds: [], statusIds: [] });

    const text = textOf((await getPage(t, "/getFilters", m.cookie)).text);
    expect(text).toMatch(/Повторы Часы звонков: ежедневно круглосуточно · по местному времени клиента Можно звонить сейчас: 2 /);
    expect(text).toMatch(/Пустая Часы звонков: [^·]+· по местному времени клиента Сейчас звонить некому/);

    // The turn gives exactly those two, the callback first, then nothing.
    const work = await loadWorkSet(t.db, topic.id);
    expect((await claimNext(t.db, m.user.id, 30, work))?.id).toBe(callback.id);
    expect((await claimNext(t.db, m.user.id, 30, work))?.id).toBe(retryDue.id);
    expect(await claimNext(t.db, m.user.id, 30, work)).toBeNull();
  });

  it("puts a manager with one topic straight into it, and does not offer him «Сменить тематику»", async () => {
    const m = await manager();
    const base = await createBase(t.db, { count: 1 });
    const only = await createFilterRow(t.db, { name: "Единственная", managerIds: [m.user.id], databaseIds: [base.base.id], statusIds: [] });
    const res = await getPage(t, "/getFilters", m.cookie);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/leadpanel");
    expect((await reloadUser(t.db, m.user.id)).gettingFilter).toBe(only.id);
    const panel = textOf((await getPage(t, "/leadpanel", m.cookie)).text);
    expect(panel).toContain("Тематика: Единственная");
    expect(panel).not.toContain("Сменить тематику");
    expect(panel).toContain("другой у вас нет: её даёт администратор");

    // A second topic for him: the choice is his again, and the panel offers it.
    await createFilterRow(t.db, { name: "Вторая", managerIds: [m.user.id], databaseIds: [base.base.id], statusIds: [] });
    expect(textOf((await getPage(t, "/leadpanel", m.cookie)).text)).toContain("Сменить тематику");
    await t.db.update(users).set({ gettingFilter: 0 }).where(eq(users.id, m.user.id));
    const list = await getPage(t, "/getFilters", m.cookie);
    expect(list.status).toBe(200);
    expect(textOf(list.text)).toMatch(/Единственная Часы звонков.*Вторая Часы звонков/);
  });

  it("tells an admin without topics how to make one, and a manager to ask the administrator", async () => {
    const admin = await pageSessionCookie(t, ADMIN);
    const res = await getPage(t, "/getFilters", admin);
    expect(res.status).toBe(200);
    const text = textOf(res.text);
    expect(text).toContain("Вы не назначены менеджером ни в одной активной тематике.");
    expect(text).not.toContain("Обратитесь к администратору");
    expect(res.text).toContain('href="/loadedbases/filters/new"');
    expect(res.text).toContain('href="/loadedbases"');

    const m = await manager();
    expect(textOf((await getPage(t, "/getFilters", m.cookie)).text)).toContain("Для вас пока нет тематик. Обратитесь к администратору.");

    // An admin in one topic enters it too; his panel says where topics get their managers, not «ask the administrator».
    const [adminUser] = await t.db.select().from(users).where(eq(users.login, ADMIN.login));
    const base = await createBase(t.db, { count: 1 });
    const own = await createFilterRow(t.db, { name: "Своя", managerIds: [adminUser.id], databaseIds: [base.base.id], statusIds: [] });
    expect((await getPage(t, "/getFilters", admin)).headers.location).toBe("/leadpanel");
    const panel = await getPage(t, "/leadpanel", admin);
    expect(textOf(panel.text)).toContain("другой у вас нет: менеджеров тематик назначают в «Мои базы»");
    expect(textOf(panel.text)).not.toContain("её даёт администратор");
    await t.db.update(filters).set({ isActive: false }).where(eq(filters.id, own.id));
  });
});

describe("the panel says when calls resume", () => {
  it("names the start of the window and the time left, with the clients' hours closed now", async () => {
    const m = await manager();
    const base = await createBase(t.db, { count: 2 });
    const topic = await createFilterRow(t.db, { name: "Ночная", managerIds: [m.user.id], databaseIds: [base.base.id], statusIds: [] });
    const closed = CLOSED();
    await t.db
      .update(filters)
      .set({ ...closed, callDays: ALL_DAYS, weekendFrom: null, weekendUntil: null })
      .where(eq(filters.id, topic.id));
    await t.db.update(users).set({ gettingFilter: topic.id }).where(eq(users.id, m.user.id));
    const text = textOf((await getPage(t, "/leadpanel", m.cookie)).text);
    expect(text).toContain("Для вас нет доступных лидов");
    const said =
      /У остальных клиентов тематики сейчас нерабочее время по их часовому поясу: звонки продолжатся в (\d\d:\d\d) по их времени, через (\d+) ч(?: (\d+) мин)?/.exec(
        text,
      );
    expect(said, text.slice(text.indexOf("Для вас"), text.indexOf("Для вас") + 300)).not.toBeNull();
    expect(said![1]).toBe(closed.callsFrom);
    const minutes = Number(said![2]) * 60 + Number(said![3] ?? 0);
    expect(minutes).toBeGreaterThanOrEqual(178);
    expect(minutes).toBeLessThanOrEqual(181);
    expect(text).not.toContain("они появятся, когда оно начнётся");

    // Open again: a lead, and nothing said of hours.
    await t.db.update(filters).set(OPEN()).where(eq(filters.id, topic.id));
    const open = textOf((await getPage(t, "/leadpanel", m.cookie)).text);
    expect(open).not.toContain("звонки продолжатся");
  });

  it("finds the next window across a weekend, a public holiday and a day off, the earliest of the clients' zones", async () => {
    const moscow = await createBase(t.db, { count: 1 });
    const both = await createBase(t.db, { count: 2 });
    await t.db
      .update(contacts)
      .set({ tz: "Europe/Moscow" })
      .where(inArray(contacts.databaseId, [moscow.base.id, both.base.id]));
    await t.db.update(contacts).set({ tz: "Asia/Vladivostok" }).where(eq(contacts.id, both.contacts[1].id));
    const weekdays = { ...DEFAULT_CALLING_HOURS, until: "18:00", days: [1, 2, 3, 4, 5] };
    const at = (iso: string) => new Date(iso);
    const said = async (databaseIds: number[], hours: typeof weekdays | Record<string, unknown>, iso: string) => {
      const resume = await callsResume(t.db, { databaseIds, hours: { ...weekdays, ...hours } }, at(iso));
      return resume && callsResumeText(resume);
    };
    // Friday 15 January 2027, 19:00 in Moscow: Monday 09:00 there, 2 days 14 hours on.
    expect(await said([moscow.base.id], {}, "2027-01-15T16:00:00Z")).toBe("звонки продолжатся в пн 18.01 в 09:00 по их времени, через 2 дн 14 ч");
    // With a weekend window (Saturday 11:00-15:00 on a topic that calls on weekends): Saturday 11:00, 16 hours on.
    expect(await said([moscow.base.id], { days: [1, 2, 3, 4, 5, 6, 7], weekendFrom: "11:00", weekendUntil: "15:00" }, "2027-01-15T16:00:00Z")).toBe(
      "звонки продолжатся в 11:00 по их времени, через 16 ч",
    );
    // A day off of the topic on the Monday after: Tuesday 09:00.
    expect(await said([moscow.base.id], { daysOff: ["2027-01-18"] }, "2027-01-15T16:00:00Z")).toBe(
      "звонки продолжатся в вт 19.01 в 09:00 по их времени, через 3 дн 14 ч",
    );
    // Calling on Sundays but not Saturdays: Sunday 11:00.
    expect(await said([moscow.base.id], { days: [1, 2, 3, 4, 5, 7], weekendFrom: "11:00", weekendUntil: "15:00" }, "2027-01-15T16:00:00Z")).toBe(
      "звонки продолжатся в вс 17.01 в 11:00 по их времени, через 1 дн 16 ч",
    );
    // Unity Day, Thursday 4 November 2027, a public holiday in Russia: from Wednesday 19:00, Friday 09:00.
    expect(await said([moscow.base.id], {}, "2027-11-03T16:00:00Z")).toBe("звонки продолжатся в пт 05.11 в 09:00 по их времени, через 1 дн 14 ч");
    // A Wednesday evening before an ordinary Thursday: the next morning.
    expect(await said([moscow.base.id], {}, "2027-11-10T16:00:00Z")).toBe("звонки продолжатся в 09:00 по их времени, через 14 ч");
    // Moscow and Vladivostok (UTC+10) waiting over a weekend: Vladivostok's Monday 09:00 comes 7 hours earlier.
    expect(await said([both.base.id], {}, "2027-01-15T16:00:00Z")).toBe("звонки продолжатся в пн 18.01 в 09:00 по их времени, через 2 дн 7 ч");
    // Nobody waits when the window is open for every client: nothing to say.
    expect(await said([moscow.base.id], {}, "2027-01-14T08:00:00Z")).toBeNull();
  });
});
