import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { queryRows } from "../../db/client";
import { breakTimeToday } from "../../server/core/breaks/breaks";
import { closeSilentCalls } from "../../server/core/calls/calls";
import { kyivDay } from "../../common/business-time";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, postPageForm, useTestApp, flashCookie } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { apiManager, type ApiManager, pressApi, takeApiLead, twoManagersHoldingLeads } from "../helpers/api-turns";

/**
 * Breaks and agent state (issue 18, decision 038): no lead is handed out during a break, even with free contacts;
 * the lead a manager holds stays his however long the break lasts; ending it resumes the flow; logging out ends
 * it; /users shows who is in a call, on a break, working a lead or idle; the dashboard adds up today's break time
 * (Kyiv day, a break over midnight split); a manager on a break counts as not working for the callback grace rule.
 */
let adminToken: string;
let wsUrl: string;
let callbackStatus: { id: number; text: string };

const SIP_SECRET = "kamailio-shares-this-secret-0123";
const t = useTestApp({ web: true, env: { SIP_AUTH_SECRET: SIP_SECRET } });
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  wsUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/realtime`;
  adminToken = await t.adminToken();
  const created = await t.request.post("/api/v1/status").set(bearer(adminToken)).send({ text: "Перезвонить в срок" });
  expect(created.status).toBe(200);
  expect((await t.request.put(`/api/v1/status/${created.body.id}/callback`).set(bearer(adminToken))).status).toBe(200);
  callbackStatus = { id: created.body.id, text: created.body.text };
});

beforeEach(async () => {
  await t.db.execute(sql`update settings set callback_grace_minutes = 15 where id = 1`);
});

/** A topic with `count` fresh contacts (the callback status worked again too) and two managers holding a lead each. */
const scene = async (count: number) => twoManagersHoldingLeads(t, count, [callbackStatus.id, (await statusesByText(t.db))["Перезвонить"].id]);
const getLead = (m: ApiManager, filterId: number) => takeApiLead(t, m, filterId);
const press = (m: ApiManager, filterId: number, statusText: string, extra?: Record<string, unknown>) => pressApi(t, m, filterId, statusText, extra);

const startBreak = (m: ApiManager) => t.request.post("/api/v1/breaks").set(m.auth);
const endBreak = (m: ApiManager) => t.request.delete("/api/v1/breaks/current").set(m.auth);

async function heldBy(contactId: number): Promise<number | null> {
  const [row] = await queryRows<{ held_by: number | null }>(t.db, sql`select held_by from contacts where id = ${contactId}`);
  return row.held_by;
}

describe("a break stops the lead flow", () => {
  it("hands out no lead during a break, even with free contacts; a press on the held lead is saved; ending the break resumes", async () => {
    const { filter, a } = await scene(6);
    const held = a.lead;
    expect(held).toBeGreaterThan(0);

    const started = await startBreak(a);
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ onBreak: true, mayBreak: true, elapsedSeconds: 0 });
    expect(Date.parse(started.body.startedAt)).toBeGreaterThan(Date.now() - 60_000);
    // Starting it again changes nothing.
    const again = await startBreak(a);
    expect(again.body.startedAt).toBe(started.body.startedAt);
    expect((await t.request.get("/api/v1/breaks/current").set(a.auth)).body).toMatchObject({ onBreak: true, startedAt: started.body.startedAt });

    // The lead he holds still comes back to him, marked as a break.
    const kept = await getLead(a, filter.id);
    expect(kept.body.id).toBe(held);
    expect(kept.headers["x-on-break"]).toBe("1");

    // A status on it is saved; no next lead, although four contacts are free.
    const pressed = await press(a, filter.id, "Отказ");
    expect(pressed.status).toBe(200);
    expect(pressed.body).toBe("");
    expect(pressed.headers["x-on-break"]).toBe("1");
    const [event] = await queryRows<{ status_text: string; user_id: number }>(
      t.db,
      sql`select status_text, user_id from lead_events where contact_id = ${held}`,
    );
    expect(event).toEqual({ status_text: "Отказ", user_id: a.id });
    const [free] = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from contacts where database_id = (select database_id from contacts where id = ${held}) and status_id is null and held_by is null`,
    );
    expect(free.n).toBe(4);
    const [{ n: holding }] = await queryRows<{ n: number }>(t.db, sql`select count(*)::int as n from contacts where held_by = ${a.id}`);
    expect(holding).toBe(0);

    // Asking again during the break: still nothing.
    const none = await getLead(a, filter.id);
    expect(none.status).toBe(200);
    expect(none.body).toBe("");
    expect(none.headers["x-on-break"]).toBe("1");

    // He ends it: the next ask hands him a fresh contact, and the answer no longer says "break".
    const ended = await endBreak(a);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ onBreak: false, startedAt: null, ended: { startedAt: started.body.startedAt } });
    expect(ended.body.ended.seconds).toBeGreaterThanOrEqual(0);
    const next = await getLead(a, filter.id);
    expect(next.body.id).toEqual(expect.any(Number));
    expect(next.body.id).not.toBe(held);
    expect(next.headers["x-on-break"]).toBeUndefined();
    // Ending it again changes nothing.
    expect((await endBreak(a)).body).toMatchObject({ onBreak: false, ended: null });
  });

  it("keeps the held lead his through a break longer than the hold: nobody else gets it, even as the last contact", async () => {
    const { filter, a, b } = await scene(3);
    const kept = a.lead;
    expect((await startBreak(a)).status).toBe(200);
    // The hold ran out during the break (HOLD_MINUTES is 30; a long lunch).
    await t.db.execute(sql`update contacts set held_until = now() - interval '5 minutes' where id = ${kept}`);

    // B works the topic dry: the third contact, then nothing — never A's lead.
    expect((await press(b, filter.id, "Отказ")).status).toBe(200);
    expect(b.lead).not.toBe(kept);
    expect(b.lead).toBeGreaterThan(0);
    expect((await press(b, filter.id, "Отказ")).body).toBe("");
    expect((await getLead(b, filter.id)).body).toBe("");
    expect(await heldBy(kept)).toBe(a.id);

    // He ends the break: the hold is renewed, the lead is still his.
    expect((await endBreak(a)).status).toBe(200);
    const [row] = await queryRows<{ minutes: number }>(
      t.db,
      sql`select floor(extract(epoch from (held_until - now())) / 60)::int as minutes from contacts where id = ${kept}`,
    );
    expect(row.minutes).toBeGreaterThanOrEqual(28);
    expect((await getLead(a, filter.id)).body.id).toBe(kept);
  });

  it("logging out ends the break; from then on an expired hold is anyone's again", async () => {
    const { filter, a, b } = await scene(2);
    const kept = a.lead;
    expect((await press(b, filter.id, "Отказ")).body).toBe("");
    expect((await startBreak(a)).status).toBe(200);
    await t.db.execute(sql`update contacts set held_until = now() - interval '5 minutes' where id = ${kept}`);
    expect((await getLead(b, filter.id)).body).toBe("");

    expect((await t.request.post(`/api/v1/users/logout/${a.id}`).set(a.auth)).status).toBe(200);
    const [closed] = await queryRows<{ ended_by: string; open: boolean }>(
      t.db,
      sql`select ended_by, ended_at is null as open from manager_breaks where user_id = ${a.id}`,
    );
    expect(closed).toEqual({ ended_by: "logout", open: false });
    // Not on a break any more and the hold has run out: the expired-hold tier hands it to B.
    expect((await getLead(b, filter.id)).body.id).toBe(kept);
  });

  it("a forced logout ends the break too", async () => {
    const { a } = await scene(1);
    expect((await startBreak(a)).status).toBe(200);
    expect((await t.request.post(`/api/v1/auth/force-logout/${a.id}`).set(bearer(adminToken))).status).toBe(200);
    const [closed] = await queryRows<{ ended_by: string }>(t.db, sql`select ended_by from manager_breaks where user_id = ${a.id}`);
    expect(closed.ended_by).toBe("forced");
  });

  it("lets only those who work leads take breaks: a manager, an admin in a topic; not an admin in none", async () => {
    const refused = await t.request.post("/api/v1/breaks").set(bearer(adminToken));
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({
      error: "not_working_leads",
      message: "Перерыв берут только те, кто работает с лидами: вас нет ни в одной тематике",
    });
    expect((await t.request.get("/api/v1/breaks/current").set(bearer(adminToken))).body).toEqual({
      onBreak: false,
      startedAt: null,
      elapsedSeconds: 0,
      mayBreak: false,
    });
    const [{ n }] = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from manager_breaks b join users u on u.id = b.user_id where u.login = ${ADMIN.login}`,
    );
    expect(n).toBe(0);

    // A manager with no topic yet is still a manager.
    const loner = await createUser(t.db);
    expect((await t.request.post("/api/v1/breaks").set(bearer(await t.tokenFor(loner)))).status).toBe(200);

    // An admin who is a manager of a topic works leads.
    const worker = await createUser(t.db, { isAdmin: true });
    const { base } = await createBase(t.db, { count: 1 });
    await createFilterRow(t.db, { managerIds: [worker.user.id], databaseIds: [base.id], statusIds: [] });
    const took = await t.request.post("/api/v1/breaks").set(bearer(await t.tokenFor(worker)));
    expect(took.status).toBe(200);
    expect(took.body.onBreak).toBe(true);

    expect((await t.request.post("/api/v1/breaks")).status).toBe(401);
    expect((await t.request.get("/api/v1/breaks/today").set(bearer(await t.tokenFor(loner)))).status).toBe(403);
  });
});

describe("a break and scheduled callbacks", () => {
  it("a manager on a break is not working: his due callback is not handed to him, and passes to another after the grace time", async () => {
    const { filter, a, b } = await scene(8);
    const scheduled = a.lead;
    const inOneHour = new Date(Date.now() + 3600_000).toISOString();
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour })).status).toBe(200);
    expect((await startBreak(a)).status).toBe(200);
    // The lead he got after scheduling is released by a press during the break: he holds nothing.
    expect((await press(a, filter.id, "Отказ")).body).toBe("");

    // Due a minute ago: still within the grace time. His own asks during the break do not take it...
    await t.db.execute(sql`update callbacks set due_at = now() - interval '1 minute' where contact_id = ${scheduled}`);
    expect((await getLead(a, filter.id)).body).toBe("");
    // ...and B does not get it yet.
    expect((await press(b, filter.id, "Отказ")).status).toBe(200);
    expect(b.lead).not.toBe(scheduled);
    const mine = await t.request.get("/api/v1/callbacks/mine").set(a.auth);
    expect(mine.body).toMatchObject([{ contactId: scheduled, due: true, overdue: false }]);

    // The break goes on past the grace time: the callback is B's next lead, ahead of the fresh contacts.
    await t.db.execute(sql`update callbacks set due_at = now() - interval '16 minutes' where contact_id = ${scheduled}`);
    const passed = await press(b, filter.id, "Отказ");
    expect(passed.status).toBe(200);
    expect(passed.body.id).toBe(scheduled);
    const [cb] = await queryRows<{ handed_to: number }>(t.db, sql`select handed_to from callbacks where contact_id = ${scheduled}`);
    expect(cb.handed_to).toBe(b.id);
  });

  it("without a break, the same due callback within the grace time goes to its own manager's next ask", async () => {
    const { filter, a } = await scene(4);
    const scheduled = a.lead;
    const inOneHour = new Date(Date.now() + 3600_000).toISOString();
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: inOneHour })).status).toBe(200);
    await t.db.execute(sql`update callbacks set due_at = now() - interval '1 minute' where contact_id = ${scheduled}`);
    expect((await press(a, filter.id, "Отказ")).body.id).toBe(scheduled);
  });

  it("Позвонить сейчас is refused during a break with the reason", async () => {
    const { filter, a } = await scene(3);
    const scheduled = a.lead;
    expect((await press(a, filter.id, callbackStatus.text, { callbackAt: new Date(Date.now() + 3600_000).toISOString() })).status).toBe(200);
    const [cb] = await queryRows<{ id: number }>(t.db, sql`select id from callbacks where contact_id = ${scheduled}`);
    expect((await startBreak(a)).status).toBe(200);
    const res = await t.request.post(`/api/v1/callbacks/${cb.id}/take`).set(a.auth);
    expect(res.status).toBe(409);
    expect(res.body.message).toBe("Вы на перерыве: закончите перерыв, чтобы взять клиента");
    expect((await endBreak(a)).status).toBe(200);
    expect((await t.request.post(`/api/v1/callbacks/${cb.id}/take`).set(a.auth)).status).toBe(200);
  });
});

/** A realtime socket that has said updateStatus: the user is online. */
async function present(token: string): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl, { headers: bearer(token) });
  await new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("unexpected-response", (_q, res) => reject(new Error(String(res.statusCode))));
  });
  ws.send(JSON.stringify({ event: "updateStatus" }));
  return ws;
}

interface OnlineRow {
  login: string;
  state: string | null;
  stateSince: string | null;
  callId: number | null;
}

async function onlineRow(login: string): Promise<OnlineRow | undefined> {
  const res = await t.request.get("/api/v1/users/online").set(bearer(adminToken));
  expect(res.status).toBe(200);
  return (res.body as OnlineRow[]).find((u) => u.login === login);
}

/** His row on the online list once it shows `state` (the socket's first touch and the list are not instant). */
async function stateOf(login: string, state: string | null): Promise<OnlineRow> {
  for (let i = 0; i < 100; i++) {
    const row = await onlineRow(login);
    if (row && row.state === state) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${login} never showed ${state}: ${JSON.stringify(await onlineRow(login))}`);
}

describe("agent states on /users", () => {
  it("shows idle, working a lead, on a break and in a call, each with since when; an admin off the leads has none", async () => {
    const { base } = await createBase(t.db, { count: 3 });
    const m = await createUser(t.db, { login: "state-watch", displayName: "Оля" });
    const filter = await createFilterRow(t.db, { managerIds: [m.user.id], databaseIds: [base.id], statusIds: [] });
    const me = await apiManager(t, m);
    const token = me.token;
    const socket = await present(token);
    const adminSocket = await present(adminToken);
    try {
      const idle = await stateOf("state-watch", "idle");
      expect(Date.parse(idle.stateSince!)).toBeGreaterThan(Date.now() - 60_000);
      const adminRow = await stateOf(ADMIN.login, null);
      expect(adminRow.stateSince).toBeNull();

      await getLead(me, filter.id);
      const [{ held_since }] = await queryRows<{ held_since: Date | string }>(t.db, sql`select held_since from contacts where id = ${me.lead}`);
      const working = await stateOf("state-watch", "lead");
      expect(working.stateSince).toBe(new Date(held_since).toISOString());

      const started = await startBreak(me);
      expect((await stateOf("state-watch", "break")).stateSince).toBe(started.body.startedAt);

      // A call from the softphone (its report to the call log) wins over the break while it lasts.
      const [{ phone }] = await queryRows<{ phone: string }>(t.db, sql`select phone from contacts where id = ${me.lead}`);
      const call = await t.request.post("/api/v1/calls").set(me.auth).send({ number: phone, contactId: me.lead });
      expect(call.status).toBe(200);
      const [{ started_at }] = await queryRows<{ started_at: Date | string }>(t.db, sql`select started_at from calls where id = ${call.body.id}`);
      expect((await stateOf("state-watch", "call")).stateSince).toBe(new Date(started_at).toISOString());
      expect((await t.request.post(`/api/v1/calls/${call.body.id}/end`).set(me.auth).send({ cause: "hangup" })).status).toBe(200);
      await stateOf("state-watch", "break");

      // The break ends: back to his lead. A press with nothing left: idle, since that press.
      expect((await endBreak(me)).status).toBe(200);
      await stateOf("state-watch", "lead");
      await press(me, filter.id, "Отказ");
      await press(me, filter.id, "Отказ");
      await press(me, filter.id, "Отказ");
      expect(me.lead).toBe(0);
      const [{ last }] = await queryRows<{ last: Date | string }>(
        t.db,
        sql`select max(created_at) as last from lead_events where user_id = ${me.id}`,
      );
      expect((await stateOf("state-watch", "idle")).stateSince).toBe(new Date(last).toISOString());
    } finally {
      socket.close();
      adminSocket.close();
    }
  });

  it("a call the proxy logs is «Разговор» from its answer to its end: 5 minutes on, no keep-alive, «Слушать» still finds it, the sweeper leaves it, its talk time is whole", async () => {
    const { a } = await scene(2);
    await t.db.execute(sql`update users set sip_login = '8771', sip_password = 'sip-8771' where id = ${a.id}`);
    const sockets = [await present(a.token), await present(adminToken)];
    const proxy = (path: string, fields: Record<string, string>) =>
      t.request.post(`/api/v1/telephony/${path}`).type("form").set("X-Sip-Auth-Secret", SIP_SECRET).send(fields);
    const adminCookie = await pageSessionCookie(t, ADMIN);
    const listen = () => postPageForm(t, "/listen", adminCookie, { intent: "start", managerId: String(a.id) });
    const pageState = async () => {
      const page = await getPage(t, "/users", adminCookie);
      const row = new RegExp(`data-testid="online-row-${a.login}"[^]*?</tr>`).exec(page.text)?.[0] ?? "";
      return /data-testid="agent-state"[^>]*>(?:<span[^>]*>)?([^<]*)</.exec(row)?.[1];
    };
    const scoreLink = async () => {
      const page = await getPage(t, "/users", adminCookie);
      const row = new RegExp(`data-testid="online-row-${a.login}"[^]*?</tr>`).exec(page.text)?.[0] ?? "";
      const link = /<a [^>]*data-testid="score-live-call"[^>]*>Оценить<\/a>/.exec(row)?.[0];
      if (link) expect(link).toContain('target="_blank"');
      return link ? /href="([^"]+)"/.exec(link)?.[1] : undefined;
    };
    try {
      await stateOf(a.login, "lead");
      const [{ phone_key }] = await queryRows<{ phone_key: string }>(t.db, sql`select phone_key from contacts where id = ${a.lead}`);
      const admitted = await proxy("calls", { login: "8771", number: phone_key, sipCallId: "state-5min@browser" });
      expect(admitted.status).toBe(200);
      const id = Number(/id=(\d+)/.exec(admitted.text)![1]);

      // Ringing is not a talk: the row stays on his lead, and «Слушать» is told the call is not answered yet.
      expect((await onlineRow(a.login))?.state).toBe("lead");
      expect(await pageState()).toBe("Работает с лидом");
      const ringing = await listen();
      expect(ringing.status).toBe(409);
      expect(ringing.body.message).toBe("Звонок ещё не принят");

      expect((await proxy("call-events", { id: String(id), event: "answer" })).status).toBe(204);
      // Five minutes into the call, the browser silent all along (its keep-alives never write a proxy's row).
      await t.db.execute(sql`update calls set started_at = now() - interval '305 seconds', answered_at = now() - interval '300 seconds',
        last_seen_at = now() - interval '300 seconds' where id = ${id}`);
      const [{ answered_at }] = await queryRows<{ answered_at: Date | string }>(t.db, sql`select answered_at from calls where id = ${id}`);
      const talking = await stateOf(a.login, "call");
      expect(talking.stateSince).toBe(new Date(answered_at).toISOString());
      expect(await pageState()).toBe("Разговор");
      // «Оценить» on the row, without JavaScript too, opens this call's scoring page in a tab of its own (issue 39).
      expect(await scoreLink()).toBe(`/quality/call/${id}`);
      expect((await onlineRow(a.login))?.callId).toBe(id);
      const scoring = await getPage(t, `/quality/call/${id}`, adminCookie);
      expect(scoring.status).toBe(200);
      expect(scoring.text).toContain("Оценка звонка");
      // «Слушать» is offered in state "call" and gets past the call check: only the relay (not set here) is missing.
      const heard = await listen();
      expect(heard.status).toBe(503);
      expect(heard.body.message).toMatch(/^Прослушивание недоступно/);

      // The sweep of silent calls leaves it open.
      await closeSilentCalls(t.db);
      const [open] = await queryRows<{ ended_at: Date | null }>(t.db, sql`select ended_at from calls where id = ${id}`);
      expect(open.ended_at).toBeNull();
      expect((await onlineRow(a.login))?.state).toBe("call");

      // The proxy's end: the whole five minutes are talk time, and he is back on his lead.
      expect((await proxy("call-events", { id: String(id), event: "end" })).status).toBe(204);
      const [ended] = await queryRows<{ talk_seconds: number; outcome: string }>(t.db, sql`select talk_seconds, outcome from calls where id = ${id}`);
      expect(ended.outcome).toBe("answered");
      expect(ended.talk_seconds).toBeGreaterThanOrEqual(300);
      expect(ended.talk_seconds).toBeLessThanOrEqual(302);
      await stateOf(a.login, "lead");
      expect(await pageState()).toBe("Работает с лидом");
      expect(await scoreLink()).toBeUndefined();
    } finally {
      for (const s of sockets) s.close();
    }
  });

  it("a call only the browser reports ends for /users when its keep-alives stop, and the sweeper closes it where they stopped", async () => {
    const { a } = await scene(2);
    const sockets = [await present(a.token), await present(adminToken)];
    try {
      const [{ phone }] = await queryRows<{ phone: string }>(t.db, sql`select phone from contacts where id = ${a.lead}`);
      const call = await t.request.post("/api/v1/calls").set(a.auth).send({ number: phone, contactId: a.lead });
      expect((await t.request.post(`/api/v1/calls/${call.body.id}/answer`).set(a.auth)).status).toBe(204);
      await stateOf(a.login, "call");
      await t.db.execute(sql`update calls set started_at = now() - interval '200 seconds', answered_at = now() - interval '190 seconds',
        last_seen_at = now() - interval '100 seconds' where id = ${call.body.id}`);
      await stateOf(a.login, "lead");
      await closeSilentCalls(t.db);
      const [row] = await queryRows<{ talk_seconds: number; ended_at: Date | null }>(
        t.db,
        sql`select talk_seconds, ended_at from calls where id = ${call.body.id}`,
      );
      expect(row.ended_at).not.toBeNull();
      expect(row.talk_seconds).toBeGreaterThanOrEqual(89);
      expect(row.talk_seconds).toBeLessThanOrEqual(91);
    } finally {
      for (const s of sockets) s.close();
    }
  });

  it("the /users page shows the states without JavaScript, correct on reload", async () => {
    const { a, b } = await scene(4);
    const sockets = [await present(a.token), await present(b.token), await present(adminToken)];
    try {
      expect((await startBreak(a)).status).toBe(200);
      await stateOf(a.login, "break");
      await stateOf(b.login, "lead");
      const page = await getPage(t, "/users", await pageSessionCookie(t, ADMIN));
      expect(page.status).toBe(200);
      const cells = (login: string) => {
        const row = new RegExp(`data-testid="online-row-${login}"[^]*?</tr>`).exec(page.text)?.[0] ?? "";
        return /data-testid="agent-state"[^>]*>(?:<span[^>]*>)?([^<]*)</.exec(row)?.[1];
      };
      expect(cells(a.login)).toBe("Перерыв");
      expect(cells(b.login)).toBe("Работает с лидом");
      expect(page.text).toContain("С какого времени");
    } finally {
      for (const s of sockets) s.close();
    }
  });
});

describe("«Завершить сессию» on /users asks first (issue 39)", () => {
  it("without JavaScript: the link only asks «Завершить сессию менеджера …? Его звонок прервётся.», its button alone logs him out, and the toast names him; the rows keep their order", async () => {
    const { a, b } = await scene(2);
    await t.db.execute(sql`update users set display_name = 'Ольга', sip_login = '8772', sip_password = 'sip-8772' where id = ${a.id}`);
    const sockets = [await present(a.token), await present(b.token), await present(adminToken)];
    try {
      const [{ phone_key }] = await queryRows<{ phone_key: string }>(t.db, sql`select phone_key from contacts where id = ${a.lead}`);
      const proxy = (path: string, fields: Record<string, string>) =>
        t.request.post(`/api/v1/telephony/${path}`).type("form").set("X-Sip-Auth-Secret", SIP_SECRET).send(fields);
      const admitted = await proxy("calls", { login: "8772", number: phone_key, sipCallId: "logout-confirm@browser" });
      await proxy("call-events", { id: /id=(\d+)/.exec(admitted.text)![1], event: "answer" });
      await stateOf(a.login, "call");
      await stateOf(b.login, "lead");
      const cookie = await pageSessionCookie(t, ADMIN);

      // The rows' order is the same at every read, whoever pinged last (it was by last seen).
      const order = async () => [...(await getPage(t, "/users", cookie)).text.matchAll(/data-testid="online-row-([^"]+)"/g)].map((m) => m[1]);
      const first = await order();
      await t.db.execute(sql`update users set last_seen = now() where id = ${first[first.length - 1] === a.login ? a.id : b.id}`);
      expect(await order()).toEqual(first);

      // The row's «Завершить сессию» is a link to the question, not a post.
      const list = await getPage(t, "/users", cookie);
      const row = new RegExp(`data-testid="online-row-${a.login}"[^]*?</tr>`).exec(list.text)![0];
      const link = /<a [^>]*data-testid="force-logout"[^>]*>/.exec(row)?.[0] ?? "";
      expect(link).toContain(`href="/users?logout=${a.id}"`);
      expect(row).not.toContain("btn-danger");
      expect(list.text).not.toContain("Завершить сессию менеджера");

      const asked = await getPage(t, `/users?logout=${a.id}`, cookie);
      expect(asked.status).toBe(200);
      expect(asked.text).toContain("Завершить сессию менеджера Ольга?");
      expect(asked.text).toContain("Его звонок прервётся.");
      // Asking changed nothing: he is still signed in.
      expect((await t.request.get(`/api/v1/users/${a.id}`).set(a.auth)).status).toBe(200);
      const question = /data-testid="force-logout-confirm"[^]*?<\/form>/.exec(asked.text)![0];
      expect(question).toMatch(/name="intent" value="forceLogout"/);
      expect(question).toMatch(new RegExp(`name="id" value="${a.id}"`));
      expect(question).toMatch(/href="\/users"[^>]*>Отмена</);

      // Its button posts: he is out, and the toast says whose session closed.
      const posted = await postPageForm(t, "/users", cookie, { intent: "forceLogout", id: String(a.id) });
      expect(posted.status).toBe(302);
      expect(posted.headers.location).toBe("/users");
      expect((await t.request.get(`/api/v1/users/${a.id}`).set(a.auth)).status).toBe(401);
      const flash = flashCookie(posted);
      const after = await getPage(t, "/users", `${cookie}; ${flash}`);
      expect(after.text).toContain("Сессия менеджера Ольга закрыта");
      expect(after.text).not.toContain(`data-testid="online-row-${a.login}"`);
      // The other manager was never touched.
      expect((await t.request.get(`/api/v1/users/${b.id}`).set(b.auth)).status).toBe(200);
    } finally {
      for (const s of sockets) s.close();
    }
  });
});

describe("break time on the dashboard", () => {
  it("adds up each manager's breaks of the Kyiv day, a break over midnight counted only after it, an open one up to now", async () => {
    const m = await createUser(t.db, { login: "break-sum", displayName: "Ира" });
    const other = await createUser(t.db, { login: "break-yesterday" });
    // 25 November 2026, 12:00 in Kyiv (UTC+2): the day began at 22:00 UTC the evening before.
    const now = new Date("2026-11-25T10:00:00Z");
    const at = (iso: string) => new Date(iso).toISOString();
    await t.db.execute(sql`insert into manager_breaks (user_id, started_at, ended_at, ended_by) values
      (${m.user.id}, ${at("2026-11-24T21:40:00Z")}, ${at("2026-11-24T22:25:00Z")}, 'manager'),
      (${m.user.id}, ${at("2026-11-25T08:00:00Z")}, ${at("2026-11-25T08:10:30Z")}, 'manager'),
      (${other.user.id}, ${at("2026-11-24T20:00:00Z")}, ${at("2026-11-24T22:00:00Z")}, 'manager')`);
    await t.db.execute(sql`insert into manager_breaks (user_id, started_at) values (${m.user.id}, ${at("2026-11-25T09:55:00Z")})`);
    const admin = { id: 1, login: ADMIN.login, isAdmin: true };
    const day = await breakTimeToday(t.db, admin, now);
    // 25 min after midnight + 10 min 30 s + 5 min of the open one.
    expect(day.find((r) => r.login === "break-sum")).toEqual({
      userId: m.user.id,
      login: "break-sum",
      displayName: "Ира",
      seconds: 25 * 60 + 630 + 5 * 60,
      breaks: 3,
      onBreak: true,
    });
    // Ended exactly at midnight: nothing today.
    expect(day.find((r) => r.login === "break-yesterday")).toBeUndefined();
    // The day before holds its own part: 20 min of the midnight break, and the other's two hours.
    const before = await breakTimeToday(t.db, admin, new Date("2026-11-24T21:59:00Z"));
    expect(before.find((r) => r.login === "break-sum")?.seconds).toBe(19 * 60);
    expect(before.find((r) => r.login === "break-yesterday")?.seconds).toBe(119 * 60);
    await t.db.execute(sql`delete from manager_breaks where user_id in (${m.user.id}, ${other.user.id})`);
  });

  it("counts a break that started and ended in the same second, with 0 s, in the day's count and list (issue 29)", async () => {
    const zero = await createUser(t.db, { login: "break-zero", displayName: "Оля" });
    const blink = await createUser(t.db, { login: "break-blink" });
    const midnight = await createUser(t.db, { login: "break-midnight" });
    const now = new Date("2026-11-25T10:00:00Z");
    const { start } = kyivDay(now);
    const at = (iso: string) => new Date(iso).toISOString();
    await t.db.execute(sql`insert into manager_breaks (user_id, started_at, ended_at, ended_by) values
      (${zero.user.id}, ${at("2026-11-25T08:00:00.250Z")}, ${at("2026-11-25T08:00:00.250Z")}, 'manager'),
      (${blink.user.id}, ${at("2026-11-25T08:00:00.100Z")}, ${at("2026-11-25T08:00:00.900Z")}, 'manager'),
      (${blink.user.id}, ${at("2026-11-25T09:00:00Z")}, ${at("2026-11-25T09:00:10Z")}, 'manager'),
      (${midnight.user.id}, ${start.toISOString()}, ${start.toISOString()}, 'manager')`);
    const admin = { id: 1, login: ADMIN.login, isAdmin: true };
    const day = await breakTimeToday(t.db, admin, now);
    expect(day.find((r) => r.login === "break-zero")).toEqual({
      userId: zero.user.id,
      login: "break-zero",
      displayName: "Оля",
      seconds: 0,
      breaks: 1,
      onBreak: false,
    });
    expect(day.find((r) => r.login === "break-blink")).toMatchObject({ seconds: 10, breaks: 2 });
    // A 0 s break at the Kyiv midnight itself belongs to the day it opens, not to the one before.
    expect(day.find((r) => r.login === "break-midnight")).toMatchObject({ seconds: 0, breaks: 1 });
    const before = await breakTimeToday(t.db, admin, new Date(start.getTime() - 60_000));
    expect(before.find((r) => r.login === "break-midnight")).toBeUndefined();
    await t.db.execute(sql`delete from manager_breaks where user_id in (${zero.user.id}, ${blink.user.id}, ${midnight.user.id})`);
  });

  it("lists today's 0 s break in GET /api/v1/breaks/today and on the dashboard", async () => {
    await t.db.execute(sql`delete from manager_breaks`);
    const m = await createUser(t.db, { login: "dash-zero", displayName: "Катя" });
    // A second ago, or at the Kyiv midnight when the day is younger than that.
    const { start } = kyivDay(new Date());
    await t.db.execute(sql`insert into manager_breaks (user_id, started_at, ended_at, ended_by)
      select ${m.user.id}, at, at, 'manager' from (select greatest(now() - interval '1 second', ${start.toISOString()}::timestamptz) as at) x`);
    const api = await t.request.get("/api/v1/breaks/today").set(bearer(adminToken));
    expect(api.status).toBe(200);
    expect(api.body).toEqual([{ userId: m.user.id, login: "dash-zero", displayName: "Катя", seconds: 0, breaks: 1, onBreak: false }]);
    const page = await getPage(t, "/", await pageSessionCookie(t, ADMIN));
    expect(page.text).not.toContain("Сегодня перерывов не было");
    const row = /data-testid="break-row-dash-zero"[^]*?<\/tr>/.exec(page.text)?.[0] ?? "";
    // The dashboard names a manager one way (issue 31): the display name, the login on hover.
    expect(row).toContain('<span title="dash-zero">Катя</span>');
    expect(/data-testid="break-total"[^>]*>([^<]*)</.exec(row)?.[1]).toBe("0:00");
    await t.db.execute(sql`delete from manager_breaks where user_id = ${m.user.id}`);
  });

  it("shows Перерывы сегодня on the admin's dashboard: the total per manager, or that there were none", async () => {
    await t.db.execute(sql`delete from manager_breaks`);
    const session = await pageSessionCookie(t, ADMIN);
    const empty = await getPage(t, "/", session);
    expect(empty.status).toBe(200);
    expect(empty.text).toContain("Перерывы сегодня");
    expect(empty.text).toContain("Сегодня перерывов не было");

    const m = await createUser(t.db, { login: "dash-break", displayName: "Нина" });
    // Ended: from 40 minutes before today's Kyiv midnight to 25 minutes after it (or up to now, early in the day).
    const { start } = kyivDay(new Date());
    const end = new Date(Math.max(start.getTime() + 1000, Math.min(start.getTime() + 25 * 60_000, Date.now() - 1000)));
    await t.db.execute(sql`insert into manager_breaks (user_id, started_at, ended_at, ended_by)
      values (${m.user.id}, ${new Date(start.getTime() - 40 * 60_000).toISOString()}, ${end.toISOString()}, 'manager')`);
    const seconds = Math.floor((end.getTime() - start.getTime()) / 1000);
    const page = await getPage(t, "/", session);
    const row = /data-testid="break-row-dash-break"[^]*?<\/tr>/.exec(page.text)?.[0] ?? "";
    expect(row).toContain('<span title="dash-break">Нина</span>');
    const minutes = Math.floor(seconds / 60);
    expect(/data-testid="break-total"[^>]*>([^<]*)</.exec(row)?.[1]).toBe(`${minutes}:${String(seconds % 60).padStart(2, "0")}`);
    expect(page.text).not.toContain("Сегодня перерывов не было");

    // The API says the same.
    const api = await t.request.get("/api/v1/breaks/today").set(bearer(adminToken));
    expect(api.body).toEqual([{ userId: m.user.id, login: "dash-break", displayName: "Нина", seconds, breaks: 1, onBreak: false }]);
  });
});
