import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls, contacts, doNotCall, filters, managerBreaks, users } from "../../db/schema";
import { closeSilentCalls, PROXY_CALL_MAX_SECONDS } from "../../server/core/calls/calls";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow } from "../helpers/leads";

/**
 * What Kamailio asks the app about calls (decision 049): POST /api/v1/telephony/calls before a call leaves for the
 * trunk (the policy check that opens the call in the log), POST /api/v1/telephony/call-events as the call is
 * answered, ends or fails. The browser's own reports meet the proxy's on the SIP Call-ID and cannot overrule it.
 */
const SECRET = "kamailio-shares-this-secret-0123";
let sequence = 0;

const t = useTestApp({ env: { SIP_AUTH_SECRET: SECRET } });

const admit = (fields: Record<string, string>, secret: string | null = SECRET) => {
  const request = t.request.post("/api/v1/telephony/calls").type("form");
  return (secret === null ? request : request.set("X-Sip-Auth-Secret", secret)).send(fields);
};
const report = (fields: Record<string, string>) =>
  t.request.post("/api/v1/telephony/call-events").type("form").set("X-Sip-Auth-Secret", SECRET).send(fields);
const rowOf = async (id: number) => (await t.db.select().from(calls).where(eq(calls.id, id)))[0];
const idOf = (text: string) => Number(/(?:^|;)id=(\d+)/.exec(text)![1]);

/** A signed-in manager with a SIP login, holding one lead whose phone is returned. */
async function managerWithLead() {
  sequence += 1;
  const sipLogin = String(8100 + sequence);
  const manager = await createUser(t.db, { login: `proxy-${sequence}`, sipLogin, sipPassword: `sip-${sipLogin}` });
  const token = await t.tokenFor(manager);
  const { contacts: rows } = await createBase(t.db, { count: 1 });
  await t.db
    .update(contacts)
    .set({ heldBy: manager.user.id, heldUntil: sql`now() + interval '30 minutes'` })
    .where(eq(contacts.id, rows[0].id));
  return { manager, token, sipLogin, lead: rows[0], digits: rows[0].phoneKey };
}

describe("POST /api/v1/telephony/calls: may this manager call this number now", () => {
  it("lets the call out and opens it in the log on the manager's lead with that number", async () => {
    const m = await managerWithLead();
    const answer = await admit({ login: m.sipLogin, number: m.digits, sipCallId: "admit-1@browser" });
    expect(answer.status).toBe(200);
    expect(answer.text).toMatch(/^id=\d+;record=0$/);
    const row = await rowOf(idOf(answer.text));
    expect(row).toMatchObject({
      userId: m.manager.user.id,
      contactId: Number(m.lead.id),
      number: m.digits,
      direction: "out",
      byProxy: true,
      endedAt: null,
    });
  });

  it("refuses a number on the do-not-call list, a manager on a break and one who is not signed in, and logs why", async () => {
    const listed = await managerWithLead();
    await t.db.insert(doNotCall).values({ phoneKey: listed.digits, phone: listed.lead.phone });
    const dnc = await admit({ login: listed.sipLogin, number: listed.digits, sipCallId: "admit-dnc@browser" });
    expect(dnc.status).toBe(403);
    expect(dnc.text).toMatch(/^id=\d+;sip=403\nDo Not Call$/);
    expect(await rowOf(idOf(dnc.text))).toMatchObject({ outcome: "failed", sipCode: 403, reason: "Номер в списке «Не звонить»", talkSeconds: 0 });
    expect((await rowOf(idOf(dnc.text))).endedAt).not.toBeNull();

    const resting = await managerWithLead();
    await t.db.insert(managerBreaks).values({ userId: resting.manager.user.id });
    const onBreak = await admit({ login: resting.sipLogin, number: resting.digits, sipCallId: "admit-break@browser" });
    expect(onBreak.text).toMatch(/\nOn Break$/);
    expect((await rowOf(idOf(onBreak.text))).reason).toBe("Вы на перерыве");

    sequence += 1;
    const away = await createUser(t.db, { login: `proxy-away-${sequence}`, sipLogin: `82${sequence}`, sipPassword: "x-away" });
    const notIn = await admit({ login: `82${sequence}`, number: "380501234567", sipCallId: "admit-away@browser" });
    expect(notIn.status).toBe(403);
    expect(notIn.text).toMatch(/\nNot Signed In$/);
    expect(await rowOf(idOf(notIn.text))).toMatchObject({ userId: away.user.id, reason: "Вы не вошли в систему" });

    // A call in is logged whatever the manager's state: the rules are for calls out.
    const incoming = await admit({ login: resting.sipLogin, number: "380441112233", sipCallId: "admit-in@carrier", direction: "in" });
    expect(incoming.status).toBe(200);
    expect(await rowOf(idOf(incoming.text))).toMatchObject({ direction: "in", endedAt: null, byProxy: true });
  });

  it("answers the topic's trunk number as cid for a call out, so the client sees it (decision 083); none without one", async () => {
    /** The manager's topic on his lead panel, with `inboundNumber` as its «Номер линии». */
    const inTopic = async (m: Awaited<ReturnType<typeof managerWithLead>>, inboundNumber: string) => {
      const topic = await createFilterRow(t.db, { name: `Линия ${m.sipLogin}`, managerIds: [m.manager.user.id], databaseIds: [], statusIds: [] });
      await t.db.update(filters).set({ inboundNumber }).where(eq(filters.id, topic.id));
      await t.db.update(users).set({ gettingFilter: topic.id }).where(eq(users.id, m.manager.user.id));
    };
    const numbered = await managerWithLead();
    await inTopic(numbered, "380441230083");
    const shown = await admit({ login: numbered.sipLogin, number: numbered.digits, sipCallId: "cid-1@browser" });
    expect(shown.status).toBe(200);
    expect(shown.text).toMatch(/^id=\d+;record=0;cid=380441230083$/);

    // A topic without a number, and a manager with no topic: TRUNK_CALLER_ID (no cid).
    const plain = await managerWithLead();
    await inTopic(plain, "");
    expect((await admit({ login: plain.sipLogin, number: plain.digits, sipCallId: "cid-2@browser" })).text).toMatch(/^id=\d+;record=0$/);
    const topicless = await managerWithLead();
    expect((await admit({ login: topicless.sipLogin, number: topicless.digits, sipCallId: "cid-3@browser" })).text).toMatch(/^id=\d+;record=0$/);

    // A call in shows the client's own number: no cid, whatever the topic.
    const incoming = await admit({ login: numbered.sipLogin, number: "380441112234", sipCallId: "cid-in@carrier", direction: "in" });
    expect(incoming.text).toMatch(/^id=\d+;record=0$/);
    // A refused call out answers its refusal alone.
    await t.db.insert(managerBreaks).values({ userId: numbered.manager.user.id });
    expect((await admit({ login: numbered.sipLogin, number: numbered.digits, sipCallId: "cid-4@browser" })).text).toMatch(
      /^id=\d+;sip=403\nOn Break$/,
    );
  });

  it("answers only to the shared secret, and refuses bad input with a 400", async () => {
    const m = await managerWithLead();
    const none = await admit({ login: m.sipLogin, number: m.digits, sipCallId: "secret@browser" }, null);
    expect(none.status).toBe(403);
    expect(none.body.message).toBe("Неверный секрет SIP_AUTH_SECRET");
    expect((await admit({ login: m.sipLogin, number: m.digits, sipCallId: "secret@browser" }, "wrong")).status).toBe(403);
    // A manager's own token opens nothing here.
    expect((await t.request.post("/api/v1/telephony/calls").set(bearer(m.token)).type("form").send({ login: m.sipLogin })).status).toBe(403);
    expect((await t.db.select().from(calls).where(eq(calls.sipCallId, "secret@browser"))).length).toBe(0);
    const bad = await admit({ login: m.sipLogin, number: m.digits });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Укажите Call-ID");
  });
});

describe("the proxy writes the call's times, whatever the browser says", () => {
  it("answer and end from the proxy make the row; the browser's start meets it on the Call-ID and its reports change nothing", async () => {
    const m = await managerWithLead();
    const { text } = await admit({ login: m.sipLogin, number: m.digits, sipCallId: "dialog-1@browser" });
    const id = idOf(text);
    // The browser reports the same call (after the proxy, here): the proxy's row is its row.
    const started = await t.request
      .post("/api/v1/calls")
      .set(bearer(m.token))
      .send({ number: m.lead.phone, contactId: m.lead.id, sipCallId: "dialog-1@browser" });
    expect(started.status).toBe(200);
    expect(started.body.id).toBe(id);

    expect((await report({ id: String(id), event: "answer" })).status).toBe(204);
    await t.db
      .update(calls)
      .set({ answeredAt: sql`now() - interval '7 seconds'` })
      .where(eq(calls.id, id));
    // A browser cannot end or re-time a call the proxy vouches for.
    const browserEnd = await t.request.post(`/api/v1/calls/${id}/end`).set(bearer(m.token)).send({ cause: "lost" });
    expect(browserEnd.status).toBe(200);
    expect(browserEnd.body.endedAt).toBeNull();
    // Nor does its silence: the sweep leaves the proxy's calls alone until the proxy's longest dialog is over.
    await t.db
      .update(calls)
      .set({ lastSeenAt: sql`now() - interval '10 minutes'` })
      .where(eq(calls.id, id));
    await closeSilentCalls(t.db);
    expect((await rowOf(id)).endedAt).toBeNull();

    expect((await report({ id: String(id), event: "end" })).status).toBe(204);
    const row = await rowOf(id);
    expect(row).toMatchObject({ outcome: "answered", reason: null, sipCode: null, contactId: Number(m.lead.id) });
    expect(row.talkSeconds).toBeGreaterThanOrEqual(7);
    expect(row.talkSeconds).toBeLessThanOrEqual(8);
    // Written once.
    await report({ id: String(id), event: "fail", code: "486" });
    expect((await rowOf(id)).outcome).toBe("answered");
  });

  it("a browser that reported first keeps its row: the proxy takes it over from its own facts, not the page's", async () => {
    const m = await managerWithLead();
    const started = await t.request
      .post("/api/v1/calls")
      .set(bearer(m.token))
      .send({ number: m.lead.phone, contactId: m.lead.id, sipCallId: "dialog-2@browser" });
    // A modified page says, before the proxy asks, that the call was answered and lasted 80 s.
    const id = started.body.id;
    expect((await t.request.post(`/api/v1/calls/${id}/answer`).set(bearer(m.token))).status).toBe(204);
    await t.db
      .update(calls)
      .set({ answeredAt: sql`now() - interval '80 seconds'` })
      .where(eq(calls.id, id));
    expect((await t.request.post(`/api/v1/calls/${id}/end`).set(bearer(m.token)).send({ cause: "hangup" })).body).toMatchObject({
      outcome: "answered",
      talkSeconds: 80,
    });
    const { text } = await admit({ login: m.sipLogin, number: m.digits, sipCallId: "dialog-2@browser" });
    expect(idOf(text)).toBe(id);
    // The take-over starts from the proxy's facts: open, not answered, no talk time (issue 42).
    expect(await rowOf(id)).toMatchObject({
      byProxy: true,
      number: m.digits,
      contactId: Number(m.lead.id),
      answeredAt: null,
      endedAt: null,
      outcome: null,
      talkSeconds: 0,
    });
    expect((await t.db.select().from(calls).where(eq(calls.sipCallId, "dialog-2@browser"))).length).toBe(1);
    // The carrier was busy: that is the call, whatever the page said.
    await report({ id: String(id), event: "fail", code: "486" });
    expect(await rowOf(id)).toMatchObject({ outcome: "busy", answeredAt: null, talkSeconds: 0, sipCode: 486 });
  });

  it("consecutive calls get consecutive ids, whichever of the proxy and the browser reports first (issue 41 §14)", async () => {
    const m = await managerWithLead();
    const browserStarts = async (sipCallId: string) =>
      Number((await t.request.post("/api/v1/calls").set(bearer(m.token)).send({ number: m.lead.phone, contactId: m.lead.id, sipCallId })).body.id);
    const proxyAdmits = async (sipCallId: string) => idOf((await admit({ login: m.sipLogin, number: m.digits, sipCallId })).text);
    const ids: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      // The proxy first (the INVITE reaches Kamailio before the page's report), then the other way round.
      const proxyFirst = await proxyAdmits(`seq-a${i}@browser`);
      expect(await browserStarts(`seq-a${i}@browser`)).toBe(proxyFirst);
      const browserFirst = await browserStarts(`seq-b${i}@browser`);
      expect(await proxyAdmits(`seq-b${i}@browser`)).toBe(browserFirst);
      ids.push(proxyFirst, browserFirst);
    }
    expect(ids).toEqual(ids.map((_, i) => ids[0] + i));
  });

  it("a call between two managers is a row for each, with the same Call-ID", async () => {
    const caller = await managerWithLead();
    const callee = await managerWithLead();
    const out = await t.request.post("/api/v1/calls").set(bearer(caller.token)).send({ number: callee.sipLogin, sipCallId: "between@browser" });
    const into = await t.request
      .post("/api/v1/calls")
      .set(bearer(callee.token))
      .send({ number: caller.sipLogin, direction: "in", sipCallId: "between@browser" });
    expect([out.status, into.status]).toEqual([200, 200]);
    expect(into.body.id).not.toBe(out.body.id);
    expect(await rowOf(into.body.id)).toMatchObject({ userId: callee.manager.user.id, direction: "in" });
  });

  it.each([
    ["486", "", "busy", "Абонент занят"],
    ["487", "", "cancelled", "Вызов отменён"],
    ["504", "Carrier Not Responding", "failed", "Оператор связи не отвечает"],
  ])("a call that failed with %s %s is logged as %s, «%s»", async (code, phrase, outcome, reason) => {
    const m = await managerWithLead();
    const id = idOf((await admit({ login: m.sipLogin, number: m.digits, sipCallId: `fail-${code}@browser` })).text);
    expect((await report({ id: String(id), event: "fail", code, phrase })).status).toBe(204);
    expect(await rowOf(id)).toMatchObject({ outcome, reason, sipCode: Number(code), talkSeconds: 0 });
  });

  it("times the answer and the end as Kamailio saw them (its events come from a queue), within the last 5 minutes and never ahead", async () => {
    const m = await managerWithLead();
    const id = idOf((await admit({ login: m.sipLogin, number: m.digits, sipCallId: "timed@browser" })).text);
    const now = Date.now() / 1000;
    // Answered 12.5 s ago, ended 2.5 s ago, reported only now: a talk of 10 s, not 0.
    expect((await report({ id: String(id), event: "answer", at: (now - 12.5).toFixed(6) })).status).toBe(204);
    expect((await report({ id: String(id), event: "end", at: (now - 2.5).toFixed(6) })).status).toBe(204);
    const row = await rowOf(id);
    expect(row.talkSeconds).toBe(10);
    expect(Math.abs(row.endedAt!.getTime() / 1000 - (now - 2.5))).toBeLessThan(0.01);
    // A clock ahead of the database's is taken as now; one far behind as 5 minutes ago.
    const ahead = idOf((await admit({ login: m.sipLogin, number: m.digits, sipCallId: "ahead@browser" })).text);
    await report({ id: String(ahead), event: "answer", at: String(now - 3_600) });
    await report({ id: String(ahead), event: "end", at: String(now + 3_600) });
    const clamped = await rowOf(ahead);
    expect(clamped.talkSeconds).toBeGreaterThanOrEqual(300);
    expect(clamped.talkSeconds).toBeLessThanOrEqual(302);
    expect(Math.abs(clamped.endedAt!.getTime() - Date.now())).toBeLessThan(5_000);
    const garbled = await report({ id: String(ahead), event: "end", at: "вчера" });
    expect(garbled.status).toBe(400);
    expect(garbled.body.message).toBe("Неверное время события");
  });

  it("a call whose end never reached the app is closed once the proxy's longest dialog is over", async () => {
    const m = await managerWithLead();
    const id = idOf((await admit({ login: m.sipLogin, number: m.digits, sipCallId: "lost-end@browser" })).text);
    await report({ id: String(id), event: "answer" });
    await t.db
      .update(calls)
      .set({ startedAt: sql`now() - make_interval(secs => ${PROXY_CALL_MAX_SECONDS + 5})` })
      .where(eq(calls.id, id));
    expect(await closeSilentCalls(t.db)).toBeGreaterThanOrEqual(1);
    expect((await rowOf(id)).outcome).toBe("answered");
  });
});

describe("a browser's report cannot put a call on a client it was not made to", () => {
  it("refuses a contact whose phone is not the number dialled", async () => {
    const m = await managerWithLead();
    const wrong = await t.request.post("/api/v1/calls").set(bearer(m.token)).send({ number: "+380671112233", contactId: m.lead.id });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Этот номер не принадлежит клиенту");
    // The same number written another way is the client's.
    const right = await t.request.post("/api/v1/calls").set(bearer(m.token)).send({ number: m.digits, contactId: m.lead.id });
    expect(right.status).toBe(200);
  });

  it("a call out to a do-not-call number is refused in Russian and logged as refused, once with the proxy's row; a call in is not", async () => {
    const m = await managerWithLead();
    await t.db.insert(doNotCall).values({ phoneKey: m.digits, phone: m.lead.phone });
    const calledOut = await t.request.post("/api/v1/calls").set(bearer(m.token)).send({ number: m.lead.phone, contactId: m.lead.id });
    expect(calledOut.status).toBe(403);
    expect(calledOut.body.message).toBe("Позвонить нельзя: номер в списке «Не звонить»");
    const rowsOfM = () => t.db.select().from(calls).where(eq(calls.userId, m.manager.user.id)).orderBy(calls.id);
    const [refused] = await rowsOfM();
    expect(refused).toMatchObject({ direction: "out", outcome: "failed", sipCode: 403, reason: "Номер в списке «Не звонить»", answeredAt: null });
    expect(refused.endedAt).not.toBeNull();
    // The proxy refused it first: its row is the call's, and the page's report adds none.
    await admit({ login: m.sipLogin, number: m.digits, sipCallId: "dnc-both@browser" });
    const late = await t.request.post("/api/v1/calls").set(bearer(m.token)).send({ number: m.digits, sipCallId: "dnc-both@browser" });
    expect(late.status).toBe(403);
    expect((await t.db.select().from(calls).where(eq(calls.sipCallId, "dnc-both@browser"))).length).toBe(1);
    // The client calls us: answered, logged as any call in.
    const calledIn = await t.request.post("/api/v1/calls").set(bearer(m.token)).send({ number: m.digits, direction: "in" });
    expect(calledIn.status).toBe(200);
    expect(await rowOf(calledIn.body.id)).toMatchObject({ direction: "in", endedAt: null, outcome: null });
    expect(await rowsOfM()).toHaveLength(3);
  });
});
