import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { calls, contacts } from "../../db/schema";
import { queryRows } from "../../db/client";
import { closeSilentCalls } from "../../server/core/calls/calls";
import { kyivDay } from "../../common/business-time";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase } from "../helpers/leads";

let admin: string;
let ann: { token: string; id: number; displayName: string };
let bob: { token: string; id: number };
let client: { id: number; phone: string };
let otherClient: { id: number; phone: string };

const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
  const a = await createUser(t.db, { login: "calls-ann" });
  const b = await createUser(t.db, { login: "calls-bob" });
  ann = { token: await t.tokenFor(a), id: a.user.id, displayName: a.user.displayName };
  bob = { token: await t.tokenFor(b), id: b.user.id };
  const { contacts: rows } = await createBase(t.db, { count: 2 });
  client = { id: Number(rows[0].id), phone: rows[0].phone };
  otherClient = { id: Number(rows[1].id), phone: rows[1].phone };
  // Ann works the first client (her lead), Bob the second.
  await t.db
    .update(contacts)
    .set({ heldBy: ann.id, heldUntil: sql`now() + interval '30 minutes'` })
    .where(eq(contacts.id, client.id));
  await t.db
    .update(contacts)
    .set({ heldBy: bob.id, heldUntil: sql`now() + interval '30 minutes'` })
    .where(eq(contacts.id, otherClient.id));
});

const start = (token: string, body: object) => t.request.post("/api/v1/calls").set(bearer(token)).send(body);
const end = (token: string, id: number, body: object = {}) => t.request.post(`/api/v1/calls/${id}/end`).set(bearer(token)).send(body);

/** Moves a call's clock back: silent for `silent` seconds, after `talked` seconds of talk when answered. */
async function age(id: number, silent: number, talked?: number) {
  await t.db
    .update(calls)
    .set({
      startedAt: sql`now() - make_interval(secs => ${silent + (talked ?? 0) + 5})`,
      answeredAt: talked === undefined ? undefined : sql`now() - make_interval(secs => ${silent + talked})`,
      lastSeenAt: sql`now() - make_interval(secs => ${silent})`,
    })
    .where(eq(calls.id, id));
}

describe("the call log", () => {
  it("logs an answered call from the lead panel with its talk time, and the client's history shows it", async () => {
    const started = await start(ann.token, { number: client.phone, contactId: client.id });
    expect(started.status).toBe(200);
    const id = started.body.id as number;
    expect((await t.request.post(`/api/v1/calls/${id}/answer`).set(bearer(ann.token))).status).toBe(204);
    // The manager talked for 42 seconds.
    await t.db
      .update(calls)
      // 41.6 s of talk when the end arrives (a few ms later): 42, rounded, not the 41 a cut gives (issue 41 §14).
      .set({ answeredAt: sql`now() - interval '41.6 seconds'` })
      .where(eq(calls.id, id));
    const ended = await end(ann.token, id, { cause: "hangup" });
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({
      id,
      userId: ann.id,
      userLogin: "calls-ann",
      contactId: client.id,
      number: client.phone,
      direction: "out",
      outcome: "answered",
      talkSeconds: 42,
      sipCode: null,
      reason: null,
    });
    expect(ended.body.endedAt).not.toBeNull();

    const history = await t.request.get(`/api/v1/contacts/${client.id}/history`).set(bearer(ann.token));
    expect(history.status).toBe(200);
    expect(history.body[0]).toMatchObject({
      kind: "call",
      manager: "calls-ann",
      managerName: ann.displayName,
      outcome: "answered",
      talkSeconds: 42,
    });
    // Another manager cannot read the history of a client who is not his.
    expect((await t.request.get(`/api/v1/contacts/${client.id}/history`).set(bearer(bob.token))).status).toBe(403);
    expect((await t.request.get(`/api/v1/contacts/${client.id}/history`).set(bearer(admin))).status).toBe(200);
  });

  it.each([
    [{ sipCode: 486 }, "busy", "Абонент занят", 486],
    [{ sipCode: 480 }, "no_answer", "Абонент недоступен", 480],
    [{ sipCode: 404 }, "failed", "Номер не найден", 404],
    [{ sipCode: 503 }, "failed", "Оператор связи недоступен", 503],
    [{ cause: "timeout" }, "no_answer", "Абонент не отвечает", null],
    [{ cause: "hangup" }, "cancelled", "Вызов отменён", null],
    [{ cause: "dial" }, "failed", "Ошибка набора", null],
  ])("a call ended with %j before an answer is %s (%s)", async (ending, outcome, reason, sipCode) => {
    const { body } = await start(ann.token, { number: "+380501112233" });
    const ended = await end(ann.token, body.id, ending);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ outcome, reason, sipCode, talkSeconds: 0, contactId: null });
  });

  it("a missed incoming call is logged as no answer; ending a call twice keeps the first ending", async () => {
    const { body } = await start(bob.token, { number: "101", direction: "in" });
    const first = await end(bob.token, body.id, { cause: "remote" });
    expect(first.body).toMatchObject({ direction: "in", outcome: "no_answer", reason: "Пропущенный вызов" });
    const again = await end(bob.token, body.id, { sipCode: 486 });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ outcome: "no_answer", endedAt: first.body.endedAt });
  });

  it("closes a call whose browser went silent (closed tab, crash) at the moment it was last heard from", async () => {
    const talking = (await start(ann.token, { number: client.phone, contactId: client.id })).body.id as number;
    await age(talking, 120, 200);
    const ringing = (await start(bob.token, { number: "+380509998877" })).body.id as number;
    await age(ringing, 120);
    const fresh = (await start(admin, { number: "777" })).body.id as number;
    // Still talking: kept alive a moment ago.
    expect((await t.request.post(`/api/v1/calls/${fresh}/alive`).set(bearer(admin))).status).toBe(204);

    expect(await closeSilentCalls(t.db)).toBe(2);
    const rows = await t.db
      .select()
      .from(calls)
      .where(sql`${calls.id} in (${talking}, ${ringing}, ${fresh})`)
      .orderBy(calls.id);
    expect(rows.map((r) => [r.outcome, r.reason, r.talkSeconds])).toEqual([
      ["answered", null, 200],
      ["failed", "Связь с браузером прервалась", 0],
      [null, null, 0],
    ]);
    expect(rows[0].endedAt!.getTime()).toBe(rows[0].lastSeenAt.getTime());
  });

  it("a new call closes the manager's previous call that was never ended", async () => {
    const first = (await start(bob.token, { number: "+380501234567" })).body.id as number;
    const second = (await start(bob.token, { number: "+380501234568" })).body.id as number;
    const [row] = await t.db.select().from(calls).where(eq(calls.id, first));
    expect(row.outcome).toBe("failed");
    expect(row.reason).toBe("Связь с браузером прервалась");
    await end(bob.token, second, { cause: "hangup" });
  });

  it("lists calls with filters: an admin sees everyone's, a manager only his own", async () => {
    const all = await t.request.get("/api/v1/calls").set(bearer(admin));
    expect(all.status).toBe(200);
    const own = await t.request.get("/api/v1/calls").set(bearer(bob.token));
    expect(own.body.calls.length).toBeGreaterThan(0);
    expect(own.body.calls.every((c: { userId: number }) => c.userId === bob.id)).toBe(true);
    expect(own.body.total).toBeLessThan(all.body.total);
    expect((await t.request.get(`/api/v1/calls?userId=${ann.id}`).set(bearer(bob.token))).status).toBe(403);

    const annBusy = await t.request.get(`/api/v1/calls?userId=${ann.id}&outcome=busy`).set(bearer(admin));
    expect(annBusy.body.total).toBe(1);
    expect(annBusy.body.calls[0]).toMatchObject({ userLogin: "calls-ann", outcome: "busy", sipCode: 486 });
    const byClient = await t.request.get(`/api/v1/calls?contactId=${client.id}`).set(bearer(admin));
    expect(byClient.body.total).toBe(2);
    const future = await t.request.get(`/api/v1/calls?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`).set(bearer(admin));
    expect(future.body).toEqual({ total: 0, calls: [] });
    const paged = await t.request.get("/api/v1/calls?limit=2&offset=1").set(bearer(admin));
    expect(paged.body.calls).toEqual(all.body.calls.slice(1, 3));
  });

  it("sums today's calls per manager for the admin: attempts, answered, talk time, average call", async () => {
    const today = await t.request.get("/api/v1/calls/today").set(bearer(admin));
    expect(today.status).toBe(200);
    const annToday = today.body.find((row: { login: string }) => row.login === "calls-ann");
    // Ann: the 42 s call, seven refused or cancelled ones, and the one of 200 s closed by the sweep. The sweep's call
    // was aged by minutes: run in the first minutes after Kyiv's midnight, it started yesterday and counts there.
    const [yesterday] = await queryRows<{ attempts: number; answered: number; talk: number }>(
      t.db,
      sql`select count(*)::int as attempts, count(answered_at)::int as answered, coalesce(sum(talk_seconds), 0)::int as talk
          from calls where user_id = ${ann.id} and started_at < ${kyivDay(new Date()).start.toISOString()}::timestamptz`,
    );
    const answered = 2 - yesterday.answered;
    const talkSeconds = 242 - yesterday.talk;
    expect(annToday).toEqual({
      userId: ann.id,
      login: "calls-ann",
      displayName: ann.displayName,
      attempts: 9 - yesterday.attempts,
      answered,
      talkSeconds,
      averageSeconds: Math.round(talkSeconds / answered),
    });
    expect((await t.request.get("/api/v1/calls/today").set(bearer(ann.token))).status).toBe(403);
  });

  it("refuses what is not a call of this manager's, with Russian messages", async () => {
    const { body } = await start(ann.token, { number: "+380501112200" });
    expect((await end(bob.token, body.id)).status).toBe(404);
    expect((await end(bob.token, body.id)).body.message).toBe("Звонок не найден");
    expect((await t.request.post("/api/v1/calls/abc/answer").set(bearer(ann.token))).body.message).toBe("Неверный идентификатор звонка");
    // Bob's client is not Ann's lead.
    const foreign = await start(ann.token, { number: otherClient.phone, contactId: otherClient.id });
    expect(foreign.status).toBe(403);
    expect(foreign.body.message).toBe("Этот клиент сейчас не закреплён за вами");
    expect((await start(ann.token, { number: "позвони мне" })).body.message).toBe("Неверный номер телефона");
    expect((await start(ann.token, {})).body.message).toBe("Укажите номер");
    expect((await start(ann.token, { number: "1", contactId: 999999999 })).status).toBe(404);
    expect((await end(ann.token, body.id, { sipCode: 200 })).body.message).toBe("Неверный код SIP");
    expect((await t.request.get("/api/v1/calls?outcome=won").set(bearer(admin))).status).toBe(400);
    expect((await t.request.get("/api/v1/calls?from=вчера").set(bearer(admin))).body.message).toBe("Неверная дата начала");
    expect((await t.request.get("/api/v1/calls")).status).toBe(401);
    await end(ann.token, body.id, { cause: "hangup" });
  });
});
