import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { callScores, calls, contacts, users } from "../../db/schema";
import { ADMIN, bearer, createUser, formBody, getPage, pageSessionCookie, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

let manager: Awaited<ReturnType<typeof createUser>>;
let managerCookie: string;
let adminCookie: string;

const form = formBody;
const loginCookie = (credentials: { login: string; password: string; accessKey: string }) => pageSessionCookie(t, credentials);

/** What the softphone's reporter posts to /calls (a same-origin form post with the session cookie). */
const report = (cookie: string, fields: Record<string, string>) =>
  t.request
    .post("/calls")
    .set("Cookie", cookie)
    .set("Host", "127.0.0.1")
    .set("Origin", "http://127.0.0.1")
    .set("Content-Type", "application/x-www-form-urlencoded")
    .send(form(fields));

const t = useTestApp({ web: true });
beforeAll(async () => {
  manager = await createUser(t.db, { login: "history-manager" });
  const { base } = await createBase(t.db, { count: 2, prefix: "Ирина" });
  const statuses = await statusesByText(t.db);
  const filter = await createFilterRow(t.db, {
    managerIds: [manager.user.id],
    databaseIds: [base.id],
    statusIds: Object.values(statuses).map((s) => s.id),
  });
  await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, manager.user.id));
  managerCookie = await loginCookie(manager);
  adminCookie = await loginCookie(ADMIN);
});

/** The lead on the manager's panel right now: its contact id, from the page's hidden field, and its phone. */
async function currentLead(): Promise<{ page: string; contactId: string; phone: string }> {
  const page = await getPage(t, "/leadpanel", managerCookie);
  expect(page.status).toBe(200);
  const contactId = /name="contactId" value="(\d+)"/.exec(page.text)![1];
  const [{ phone }] = await t.db
    .select({ phone: contacts.phone })
    .from(contacts)
    .where(eq(contacts.id, Number(contactId)));
  return { page: page.text, contactId, phone };
}

describe("the call log in the pages", () => {
  it("the lead panel shows a new client's empty history, then his calls and status presses, newest first", async () => {
    const first = await currentLead();
    expect(first.page).toContain("История клиента");
    expect(first.page).toContain("С этим клиентом ещё не работали: звонков и статусов нет.");

    // The softphone reports a busy call, then an answered one of 65 seconds.
    const busy = await report(managerCookie, { intent: "start", number: first.phone, direction: "out", contactId: first.contactId });
    expect(busy.status).toBe(200);
    expect((await report(managerCookie, { intent: "end", id: String(busy.body.id), sipCode: "486", cause: "remote" })).body).toMatchObject({
      outcome: "busy",
      reason: "Абонент занят",
    });
    const talk = await report(managerCookie, { intent: "start", number: first.phone, contactId: first.contactId });
    expect((await report(managerCookie, { intent: "answer", id: String(talk.body.id) })).status).toBe(204);
    expect((await report(managerCookie, { intent: "alive", id: String(talk.body.id) })).status).toBe(204);
    await t.db
      .update(calls)
      // 64.6 s when the end arrives a few ms later: 65, rounded (a loaded machine may take longer than half a second).
      .set({ answeredAt: sql`now() - interval '64.6 seconds'` })
      .where(eq(calls.id, talk.body.id));
    expect((await report(managerCookie, { intent: "end", id: String(talk.body.id), cause: "hangup" })).body.talkSeconds).toBe(65);

    const own = await getPage(t, "/calls", managerCookie);
    expect(own.status).toBe(200);
    expect(own.body.calls.map((c: { outcome: string }) => c.outcome)).toEqual(["answered", "busy"]);

    const after = (await currentLead()).page;
    const answered = after.indexOf("Исходящий звонок: разговор 1:05");
    const refused = after.indexOf("Исходящий звонок: занято (Абонент занят)");
    expect(answered).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(answered);
    // The manager named as everywhere (issue 41): his display name, his login on hover.
    expect(after).toContain(`· <span title="history-manager">${manager.user.displayName}</span>`);
  });

  it("an admin finds the client in /searchlead with the same history, and today's calls on the dashboard", async () => {
    const search = await getPage(t, `/searchlead?term=${encodeURIComponent("Ирина")}`, adminCookie);
    expect(search.status).toBe(200);
    expect(search.text).toContain("История клиента (2)");
    expect(search.text).toContain("Исходящий звонок: разговор 1:05");

    const home = await getPage(t, "/", adminCookie);
    expect(home.text).toContain("Звонки за сегодня");
    // Named as in the top managers and the breaks (issue 31): the display name, the login on hover.
    const name = `<span title="history-manager">${manager.user.displayName}</span>`;
    const row = new RegExp(`<tr[^>]*><td[^>]*>${name}</td>(.*?)</tr>`).exec(home.text)![1];
    // Attempts, answered, answered %, talk time (ч:мм:сс), attempts per client (issue 29, decision 060).
    expect([...row.matchAll(/>([^<>]+)<\/td>/g)].map((m) => m[1])).toEqual(["2", "1", "50\u00a0%", "0:01:05", "2"]);
  });

  it("his history shows the score of his own scored call, linked to his /profile; an admin's links to the scoring page; another's score stays hidden (issue 39)", async () => {
    const lead = await currentLead();
    const contactId = Number(lead.contactId);
    const [own] = await t.db
      .select({ id: calls.id })
      .from(calls)
      .where(and(eq(calls.contactId, contactId), eq(calls.userId, manager.user.id), eq(calls.outcome, "answered")));
    // Another manager called the same client before; his call is scored too.
    const other = await createUser(t.db, { login: "history-other" });
    const [theirs] = await t.db
      .insert(calls)
      .values({
        userId: other.user.id,
        contactId,
        number: lead.phone,
        direction: "out",
        startedAt: new Date(Date.now() - 3_600_000),
        endedAt: new Date(Date.now() - 3_500_000),
        outcome: "answered",
        talkSeconds: 100,
      })
      .returning({ id: calls.id });
    await t.db.insert(callScores).values([
      { callId: own.id, managerId: manager.user.id, answers: [], score: 83 },
      { callId: theirs.id, managerId: other.user.id, answers: [], score: 41 },
    ]);
    const scoresIn = (html: string) =>
      [...html.matchAll(/data-testid="history-score"[^]*?data-testid="history-score-value">(\d+)<\/span>[^]*?<a href="([^"]+)"/g)].map((m) => [
        Number(m[1]),
        m[2],
      ]);

    const panel = (await currentLead()).page;
    expect(scoresIn(panel)).toEqual([[83, `/profile#score-${own.id}`]]);
    expect(panel).toContain("Подробнее в профиле");
    // The link's target is there: /profile's «Мои оценки» holds the score under that anchor.
    expect((await getPage(t, "/profile", managerCookie)).text).toContain(`id="score-${own.id}"`);

    const search = await getPage(t, `/searchlead?term=${encodeURIComponent("Ирина")}`, adminCookie);
    expect(scoresIn(search.text)).toEqual([
      [83, `/quality/call/${own.id}`],
      [41, `/quality/call/${theirs.id}`],
    ]);
    // The API's history gives the admin both scores.
    const api = await t.request.get(`/api/v1/contacts/${contactId}/history`).set(bearer(await t.adminToken()));
    expect(
      (api.body as Array<{ id?: number; score?: number | null }>).filter((e) => e.id === own.id || e.id === theirs.id).map((e) => [e.id, e.score]),
    ).toEqual([
      [own.id, 83],
      [theirs.id, 41],
    ]);
  });

  it("the search says how many pages there are beyond its five buttons, and when it stopped at its limit (issue 31)", async () => {
    await createBase(t.db, { count: 210, prefix: "Многостраничный" });
    const many = await getPage(t, `/searchlead?term=${encodeURIComponent("Многостраничный")}&size=5&page=2`, adminCookie);
    expect(many.status).toBe(200);
    expect(many.text).toContain("Найдено 200 или больше: показаны первые 200, уточните поиск");
    expect(/data-testid="page-of"[^>]*>([^<]*(?:<!-- -->[^<]*)*)</.exec(many.text)?.[1].replace(/<!-- -->/g, "")).toBe("Страница 2 из 40");
  });

  it("refuses a report without a session, for a client who is not his, or that names no known action", async () => {
    const anonymous = await t.request
      .post("/calls")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(form({ intent: "start", number: "1" }));
    expect(anonymous.status).toBe(401);
    const other = await createBase(t.db, { count: 1 });
    const foreign = await report(managerCookie, { intent: "start", number: "1", contactId: String(other.contacts[0].id) });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe("Этот клиент сейчас не закреплён за вами");
    expect((await report(managerCookie, { intent: "dance" })).body.message).toBe("Неизвестное действие");
    const crossSite = await t.request
      .post("/calls")
      .set("Cookie", managerCookie)
      .set("Host", "127.0.0.1")
      .set("Origin", "https://evil.example")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(form({ intent: "start", number: "1" }));
    expect(crossSite.status).toBe(403);
  });
});
