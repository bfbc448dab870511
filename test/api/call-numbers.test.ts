import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { calls, contacts, doNotCall, users } from "../../db/schema";
import { callNumbersOfDay } from "../../server/core/statistics/call-numbers";
import { kyivDate, kyivDay } from "../../common/business-time";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, useTestApp } from "../helpers/app";
import { createBase, createFilterRow } from "../helpers/leads";

/**
 * Issue 29 «Numbers»: today's calls out per topic and per manager on the dashboard and in GET /api/v1/statistics
 * (decision 060). Calls go through the same reports the softphone and the SIP proxy send.
 */
const SECRET = "kamailio-shares-this-secret-0123";
let adminToken: string;
let adminCookie: string;

const t = useTestApp({ web: true, env: { SIP_AUTH_SECRET: SECRET } });
beforeAll(async () => {
  adminToken = await t.adminToken();
  adminCookie = await pageSessionCookie(t, ADMIN);
});

const NONE = { attempts: 0, answered: 0, answeredPercent: null, talkSeconds: 0, contacts: 0, attemptsPerContact: null };

/** A call as the softphone reports it: started (on a client or a bare number), maybe answered N s ago, ended. */
async function call(
  token: string,
  options: { contactId?: number; number: string; direction?: "out" | "in"; talk?: number; sipCode?: number; cause?: string },
): Promise<number> {
  const started = await t.request
    .post("/api/v1/calls")
    .set(bearer(token))
    .send({ number: options.number, direction: options.direction ?? "out", ...(options.contactId ? { contactId: options.contactId } : {}) });
  expect(started.status).toBe(200);
  const id = started.body.id as number;
  if (options.talk !== undefined) {
    expect((await t.request.post(`/api/v1/calls/${id}/answer`).set(bearer(token))).status).toBe(204);
    await t.db
      .update(calls)
      .set({ answeredAt: sql`now() - make_interval(secs => ${options.talk})` })
      .where(eq(calls.id, id));
  }
  const ended = await t.request
    .post(`/api/v1/calls/${id}/end`)
    .set(bearer(token))
    .send({ cause: options.cause ?? (options.talk !== undefined ? "hangup" : "remote"), ...(options.sipCode ? { sipCode: options.sipCode } : {}) });
  expect(ended.status).toBe(200);
  if (options.talk !== undefined) expect(ended.body.talkSeconds).toBe(options.talk);
  return id;
}

const admit = (fields: Record<string, string>) =>
  t.request.post("/api/v1/telephony/calls").type("form").set("X-Sip-Auth-Secret", SECRET).send(fields);
const proxyEvent = (fields: Record<string, string>) =>
  t.request.post("/api/v1/telephony/call-events").type("form").set("X-Sip-Auth-Secret", SECRET).send(fields);

/** The text of each cell of each body row of the table with this test id, as a user reads it. */
function tableRows(html: string, testId: string): string[][] {
  const table = new RegExp(`<table[^>]*data-testid="${testId}"[^>]*>([\\s\\S]*?)</table>`).exec(html);
  if (!table) throw new Error(`no table ${testId}`);
  const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(table[1])![1];
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) =>
      cell[1]
        .replace(/<[^>]+>/g, "")
        .replace(/&nbsp;|\u00a0/g, " ")
        .trim(),
    ),
  );
}

/** The day's total cards: label → value. */
function totals(html: string): Record<string, string> {
  const dl = /<dl[^>]*data-testid="call-totals"[^>]*>([\s\S]*?)<\/dl>/.exec(html)![1];
  return Object.fromEntries(
    [...dl.matchAll(/<dt[^>]*>([\s\S]*?)<\/dt><dd[^>]*>([\s\S]*?)<\/dd>/g)].map((m) => [m[1].trim(), m[2].replace(/\u00a0/g, " ").trim()]),
  );
}

/** No calls in from the carrier (issue 42). */
const NO_INBOUND = { calls: 0, answered: 0, missed: 0, calledBack: 0, callBackSeconds: null };

describe("today's call numbers on the dashboard and in GET /api/v1/statistics", () => {
  it("an empty day: zeros and empty lists in the API, a plain sentence on the page", async () => {
    const res = await t.request.get("/api/v1/statistics").set(bearer(adminToken));
    expect(res.status).toBe(200);
    expect(res.body.calls).toEqual({ day: kyivDate(new Date()), inbound: NO_INBOUND, total: NONE, managers: [], topics: [] });
    const home = await getPage(t, "/", adminCookie);
    expect(home.status).toBe(200);
    expect(home.text).toContain("Звонки за сегодня");
    expect(home.text).toContain("Сегодня ещё никто не звонил: попыток нет");
    expect(home.text).not.toContain('data-testid="call-totals"');
  });

  it("counts two managers' calls out in two topics, and one without a topic; not yesterday's, calls in or the call check's refusals", async () => {
    const {
      contacts: [c1, c2, c3, c4],
    } = await createBase(t.db, { count: 4 });
    const anna = await createUser(t.db, { login: "anna", displayName: "Анна" });
    const boris = await createUser(t.db, { login: "boris", displayName: "Борис", sipLogin: "8201", sipPassword: "sip-8201" });
    const vera = await createUser(t.db, { login: "vera", displayName: "" });
    const credits = await createFilterRow(t.db, { name: "Кредиты", managerIds: [anna.user.id], databaseIds: [], statusIds: [] });
    const insurance = await createFilterRow(t.db, { name: "Страховки", managerIds: [anna.user.id, boris.user.id], databaseIds: [], statusIds: [] });
    const hold = (contactId: number, userId: number) =>
      t.db
        .update(contacts)
        .set({ heldBy: userId, heldUntil: sql`now() + interval '30 minutes'` })
        .where(eq(contacts.id, contactId));
    const topic = (userId: number, filterId: number) => t.db.update(users).set({ gettingFilter: filterId }).where(eq(users.id, userId));
    const [annaToken, borisToken, veraToken] = await Promise.all([t.tokenFor(anna), t.tokenFor(boris), t.tokenFor(vera)]);

    // Anna in «Кредиты»: busy, then 65 s of talk with client 1; client 2 does not answer.
    await topic(anna.user.id, credits.id);
    await hold(c1.id, anna.user.id);
    await call(annaToken, { contactId: c1.id, number: c1.phone, sipCode: 486 });
    await call(annaToken, { contactId: c1.id, number: c1.phone, talk: 65 });
    await hold(c2.id, anna.user.id);
    await call(annaToken, { contactId: c2.id, number: c2.phone, sipCode: 480 });
    // She moves to «Страховки» and reaches client 2 there: that call counts in the new topic.
    await topic(anna.user.id, insurance.id);
    await call(annaToken, { contactId: c2.id, number: c2.phone, talk: 120 });
    // Yesterday (a second before Kyiv's midnight): not today's.
    const yesterday = await call(annaToken, { contactId: c1.id, number: c1.phone, talk: 300 });
    await t.db
      .update(calls)
      .set({ startedAt: new Date(kyivDay(new Date()).start.getTime() - 1000) })
      .where(eq(calls.id, yesterday));

    // Boris in «Страховки»: 30 s with client 3, no answer from client 4, a number dialled by hand and dropped.
    await topic(boris.user.id, insurance.id);
    await hold(c3.id, boris.user.id);
    await hold(c4.id, boris.user.id);
    await call(borisToken, { contactId: c3.id, number: c3.phone, talk: 30 });
    await call(borisToken, { contactId: c4.id, number: c4.phone, sipCode: 480 });
    await call(borisToken, { number: "+380441234567", cause: "hangup" });
    // Through the SIP proxy: the carrier refuses client 4 with 403 (an attempt); the call check refuses a number on
    // the do-not-call list (it never left: no attempt).
    const carrier = await admit({ login: "8201", number: c4.phoneKey, sipCallId: "numbers-carrier@browser" });
    expect(carrier.status).toBe(200);
    const carrierId = /id=(\d+)/.exec(carrier.text)![1];
    expect((await proxyEvent({ id: carrierId, event: "fail", code: "403" })).status).toBe(204);
    await t.db.insert(doNotCall).values({ phoneKey: "380449999999", phone: "+380449999999" });
    expect((await admit({ login: "8201", number: "380449999999", sipCallId: "numbers-dnc@browser" })).status).toBe(403);
    // A call in, answered: not an attempt.
    await call(borisToken, { number: "+380447777777", direction: "in", talk: 50 });

    // Vera has no topic: one number by hand, no answer.
    await call(veraToken, { number: "+380445555555", sipCode: 480 });

    const res = await t.request.get("/api/v1/statistics").set(bearer(adminToken));
    expect(res.status).toBe(200);
    expect(res.body.calls).toEqual({
      day: kyivDate(new Date()),
      // The softphone's own reports are no calls in from the carrier (issue 42 counts the proxy's).
      inbound: NO_INBOUND,
      total: { attempts: 9, answered: 3, answeredPercent: 33.3, talkSeconds: 215, contacts: 4, attemptsPerContact: 1.75 },
      managers: [
        {
          userId: anna.user.id,
          login: "anna",
          displayName: "Анна",
          manager: "Анна",
          attempts: 4,
          answered: 2,
          answeredPercent: 50,
          talkSeconds: 185,
          contacts: 2,
          attemptsPerContact: 2,
        },
        {
          userId: boris.user.id,
          login: "boris",
          displayName: "Борис",
          manager: "Борис",
          attempts: 4,
          answered: 1,
          answeredPercent: 25,
          talkSeconds: 30,
          contacts: 2,
          attemptsPerContact: 1.5,
        },
        {
          userId: vera.user.id,
          login: "vera",
          displayName: "",
          manager: "vera",
          attempts: 1,
          answered: 0,
          answeredPercent: 0,
          talkSeconds: 0,
          contacts: 0,
          attemptsPerContact: null,
        },
      ],
      topics: [
        {
          filterId: credits.id,
          topic: "Кредиты",
          attempts: 3,
          answered: 1,
          answeredPercent: 33.3,
          talkSeconds: 65,
          contacts: 2,
          attemptsPerContact: 1.5,
        },
        {
          filterId: insurance.id,
          topic: "Страховки",
          attempts: 5,
          answered: 2,
          answeredPercent: 40,
          talkSeconds: 150,
          contacts: 3,
          attemptsPerContact: 1.33,
        },
        {
          filterId: null,
          topic: "Без тематики",
          attempts: 1,
          answered: 0,
          answeredPercent: 0,
          talkSeconds: 0,
          contacts: 0,
          attemptsPerContact: null,
        },
      ],
    });

    // /calls/today reads the same numbers (its average call is talk time / answered).
    const today = await t.request.get("/api/v1/calls/today").set(bearer(adminToken));
    expect(
      today.body.map((row: { login: string; attempts: number; answered: number; averageSeconds: number }) => [
        row.login,
        row.attempts,
        row.answered,
        row.averageSeconds,
      ]),
    ).toEqual([
      ["anna", 4, 2, 93],
      ["boris", 4, 1, 30],
      ["vera", 1, 0, 0],
    ]);

    // Yesterday's Kyiv day, asked of core with its clock: Anna's one call of 300 s.
    const before = await callNumbersOfDay(t.db, new Date(kyivDay(new Date()).start.getTime() - 1000));
    expect(before.total).toEqual({ attempts: 1, answered: 1, answeredPercent: 100, talkSeconds: 300, contacts: 1, attemptsPerContact: 1 });
    expect(before.managers.map((m) => m.manager)).toEqual(["Анна"]);

    // The page shows the same numbers, talk time as ч:мм:сс.
    const home = await getPage(t, "/", adminCookie);
    expect(home.status).toBe(200);
    expect(totals(home.text)).toEqual({
      Попытки: "9",
      Дозвон: "3",
      "Дозвон, %": "33,3 %",
      "Время разговоров": "0:03:35",
      "Попыток на клиента": "1,8",
    });
    expect(tableRows(home.text, "call-topics")).toEqual([
      ["Кредиты", "3", "1", "33,3 %", "0:01:05", "1,5"],
      ["Страховки", "5", "2", "40 %", "0:02:30", "1,3"],
      ["Без тематики", "1", "0", "0 %", "0:00:00", "—"],
    ]);
    expect(tableRows(home.text, "call-managers")).toEqual([
      ["Анна", "4", "2", "50 %", "0:03:05", "2"],
      ["Борис", "4", "1", "25 %", "0:00:30", "1,5"],
      ["vera", "1", "0", "0 %", "0:00:00", "—"],
    ]);
  });

  it("keeps a deleted manager's calls in the totals as Неизвестно", async () => {
    const gone = await createUser(t.db, { login: "gone", displayName: "Уволенный" });
    const token = await t.tokenFor(gone);
    await call(token, { number: "+380443333333", talk: 10 });
    await call(token, { number: "+380443333334", sipCode: 486 });
    const day = new Date(Date.UTC(2021, 5, 10, 9));
    await t.db.update(calls).set({ startedAt: day }).where(eq(calls.userId, gone.user.id));
    expect((await t.request.delete(`/api/v1/users/${gone.user.id}`).set(bearer(adminToken))).status).toBe(200);
    const numbers = await callNumbersOfDay(t.db, day);
    expect(numbers.managers).toEqual([
      {
        userId: null,
        login: "",
        displayName: "",
        manager: "Неизвестно",
        attempts: 2,
        answered: 1,
        answeredPercent: 50,
        talkSeconds: 10,
        contacts: 0,
        attemptsPerContact: null,
      },
    ]);
    expect(numbers.topics.map((row) => [row.topic, row.attempts])).toEqual([["Без тематики", 2]]);
  });

  it("is the admin's alone: a manager gets 403 from the API and his own home page, a stranger 401", async () => {
    const manager = await createUser(t.db, { login: "numbers-manager" });
    const token = await t.tokenFor(manager);
    const refused = await t.request.get("/api/v1/statistics").set(bearer(token));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBeTruthy();
    expect((await t.request.get("/api/v1/calls/today").set(bearer(token))).status).toBe(403);
    expect((await t.request.get("/api/v1/statistics")).status).toBe(401);
    const home = await getPage(t, "/", await pageSessionCookie(t, manager));
    expect(home.status).toBe(200);
    expect(home.text).toContain("Моя статистика");
    expect(home.text).not.toContain("Звонки за сегодня");
    expect(home.text).not.toContain("Анна");
  });
});
