import { and, eq, isNull, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import {
  calls,
  callbacks,
  contacts,
  doNotCall,
  filterManagers,
  filterStatuses,
  filters,
  leadEvents,
  managerBreaks,
  sessions,
  statuses,
  users,
} from "../../db/schema";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, postPageForm, useTestApp, flashCookie } from "../helpers/app";
import { createBase, createFilterRow } from "../helpers/leads";

/**
 * Who takes a client's call in (issue 42): POST /api/v1/telephony/inbound, Kamailio's question for an INVITE from
 * the carrier. Rules: the manager who last called the number; else a free manager of the client's topic, idle
 * longest; else one of the dialled trunk number's topic; else nobody (486 all busy, 480 nobody on the line), and the
 * missed call becomes a callback.
 */
const SECRET = "kamailio-shares-this-secret-0123";
const t = useTestApp({ web: true, env: { SIP_AUTH_SECRET: SECRET } });
let sequence = 0;

const ask = (fields: Record<string, string>, secret: string | null = SECRET) => {
  sequence += 1;
  const request = t.request.post("/api/v1/telephony/inbound").type("form");
  return (secret === null ? request : request.set("X-Sip-Auth-Secret", secret)).send({ sipCallId: `in-${sequence}@carrier`, ...fields });
};
const ringOf = (text: string) => /(?:^|;)ring=([^;]+)/.exec(text)?.[1];
const idOf = (text: string) => Number(/(?:^|;)id=(\d+)/.exec(text)![1]);
const rowOf = async (id: number) => (await t.db.select().from(calls).where(eq(calls.id, id)))[0];

/** A manager with a SIP login, in `topicId` (his chosen topic), signed in unless told otherwise. */
async function manager(topicId: number, options: { signedIn?: boolean } = {}) {
  sequence += 1;
  const sipLogin = String(7100 + sequence);
  const person = await createUser(t.db, { login: `inbound-${sequence}`, sipLogin, sipPassword: `sip-${sipLogin}`, gettingFilter: topicId });
  const token = options.signedIn === false ? "" : await t.tokenFor(person);
  return { id: person.user.id, sipLogin, token, person };
}

/** A topic with one base of `count` clients and `managers` signed-in managers; `did`: its trunk number. */
async function topicWithClients(managers: number, did = "") {
  const { base, contacts: clients } = await createBase(t.db, { count: 3 });
  const topic = await createFilterRow(t.db, { managerIds: [], databaseIds: [base.id], statusIds: [] });
  if (did) await t.db.update(filters).set({ inboundNumber: did }).where(eq(filters.id, topic.id));
  const people = [];
  for (let i = 0; i < managers; i += 1) people.push(await manager(topic.id));
  if (people.length) await t.db.insert(filterManagers).values(people.map((p) => ({ filterId: topic.id, userId: p.id })));
  return { topic, base, clients, people };
}

/** `who` called `client` `minutesAgo` minutes ago (an ended call out in the log). */
async function called(who: { id: number }, client: { id: number; phone: string }, minutesAgo: number) {
  await t.db.insert(calls).values({
    userId: who.id,
    contactId: client.id,
    number: client.phone,
    direction: "out",
    startedAt: sql`now() - make_interval(mins => ${minutesAgo})`,
    endedAt: sql`now() - make_interval(mins => ${minutesAgo}) + interval '1 minute'`,
    outcome: "answered",
  });
}

/** An open call of `who` (talking now). */
const inACall = (who: { id: number }) =>
  t.db.insert(calls).values({ userId: who.id, number: "380441112233", direction: "out", byProxy: true, answeredAt: sql`now()` });

describe("POST /api/v1/telephony/inbound: which manager a client's call rings", () => {
  it("asks for the shared secret", async () => {
    const refused = await ask({ number: "380501234567", did: "380441230000" }, "wrong-secret-wrong-secret-wrong-!");
    expect(refused.status).toBe(403);
    expect((await ask({ number: "380501234567" }, null)).status).toBe(403);
    const bad = await ask({ number: "" });
    expect(bad.status).toBe(400);
  });

  it("rule 1: rings the manager who last called the client, and opens the call in his log on that client", async () => {
    const { clients, people } = await topicWithClients(3);
    const [first, second, third] = people;
    await called(second, clients[0], 60);
    await called(third, clients[0], 5);
    await called(first, clients[1], 1);
    const answer = await ask({ number: clients[0].phone, did: "380441230000" });
    expect(answer.status).toBe(200);
    expect(answer.text).toMatch(/^id=\d+;ring=\d+;record=0;ring_s=20$/);
    expect(ringOf(answer.text)).toBe(third.sipLogin);
    expect(await rowOf(idOf(answer.text))).toMatchObject({
      userId: third.id,
      contactId: clients[0].id,
      direction: "in",
      byProxy: true,
      endedAt: null,
      answeredAt: null,
    });
  });

  it("rule 2: the last caller on a break, in a call, with «Принимать входящие» off or signed out: the topic's manager idle longest", async () => {
    const { clients, people } = await topicWithClients(3);
    const [caller, recent, longIdle] = people;
    await called(caller, clients[0], 10);
    await called(recent, clients[2], 2);
    await called(longIdle, clients[2], 50);

    await t.db.insert(managerBreaks).values({ userId: caller.id });
    let answer = await ask({ number: clients[0].phone });
    expect(ringOf(answer.text)).toBe(longIdle.sipLogin);
    // That ringing is his open call: the next call in does not ring him too (one ringing at a time).
    answer = await ask({ number: clients[0].phone });
    expect(ringOf(answer.text)).toBe(recent.sipLogin);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()`, outcome: "no_answer" })
      .where(and(eq(calls.direction, "in"), isNull(calls.endedAt)));
    await t.db
      .update(managerBreaks)
      .set({ endedAt: sql`now()` })
      .where(eq(managerBreaks.userId, caller.id));

    await inACall(caller);
    answer = await ask({ number: clients[0].phone });
    expect(ringOf(answer.text)).not.toBe(caller.sipLogin);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));

    await t.db.update(users).set({ acceptsInbound: false }).where(eq(users.id, caller.id));
    answer = await ask({ number: clients[0].phone });
    expect(ringOf(answer.text)).not.toBe(caller.sipLogin);
    expect([recent.sipLogin, longIdle.sipLogin]).toContain(ringOf(answer.text));
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));

    await t.db.update(users).set({ acceptsInbound: true }).where(eq(users.id, caller.id));
    expect(ringOf((await ask({ number: clients[0].phone })).text)).toBe(caller.sipLogin);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
    // Signed out (his sessions gone, as a logout or «Завершить сессию» leaves them).
    await t.db.delete(sessions).where(eq(sessions.userId, caller.id));
    expect(ringOf((await ask({ number: clients[0].phone })).text)).not.toBe(caller.sipLogin);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
  });

  it("rule 3: an unknown caller rings a manager of the dialled trunk number's topic; not one of another topic", async () => {
    await topicWithClients(1, "380441230001");
    const { people } = await topicWithClients(1, "380441230002");
    const answer = await ask({ number: "+380679998877", did: "+380441230002" });
    expect(answer.status).toBe(200);
    expect(ringOf(answer.text)).toBe(people[0].sipLogin);
    expect(await rowOf(idOf(answer.text))).toMatchObject({ userId: people[0].id, contactId: null, number: "+380679998877" });
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
  });

  it("rings the next manager after one who did not answer (tried), at most the setting's number of managers", async () => {
    const { clients, people } = await topicWithClients(4);
    await called(people[0], clients[0], 3);
    const first = await ask({ number: clients[0].phone });
    expect(ringOf(first.text)).toBe(people[0].sipLogin);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()`, outcome: "no_answer" })
      .where(eq(calls.id, idOf(first.text)));
    const second = await ask({ number: clients[0].phone, tried: `${people[0].sipLogin}` });
    expect(second.status).toBe(200);
    expect([people[1].sipLogin, people[2].sipLogin, people[3].sipLogin]).toContain(ringOf(second.text));
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
    const third = await ask({ number: clients[0].phone, tried: `${people[0].sipLogin},${ringOf(second.text)}` });
    expect(third.status).toBe(200);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
    // Three rung (the default): the call is missed, whoever is still free.
    const missed = await ask({ number: clients[0].phone, tried: `${people[0].sipLogin},${ringOf(second.text)},${ringOf(third.text)}` });
    expect(missed.status).toBe(480);
    expect(missed.text).toMatch(/^id=\d+;sip=480\nNobody Answered$/);
    expect(await rowOf(idOf(missed.text))).toMatchObject({ direction: "in", sipCode: 480, reason: "Менеджеры не ответили", outcome: "no_answer" });
  });

  it("asked again for the same call (its answer reached Kamailio too late), rings the same manager, one ringing in his log", async () => {
    const { clients, people } = await topicWithClients(2);
    await called(people[0], clients[0], 3);
    const sipCallId = "asked-twice@carrier";
    const first = await ask({ number: clients[0].phone, sipCallId });
    const again = await ask({ number: clients[0].phone, sipCallId });
    expect(again.status).toBe(200);
    expect(ringOf(again.text)).toBe(people[0].sipLogin);
    expect(idOf(again.text)).toBe(idOf(first.text));
    expect(await t.db.select().from(calls).where(eq(calls.sipCallId, sipCallId))).toHaveLength(1);
    // Another call of the same client still finds him busy with this one.
    expect(ringOf((await ask({ number: clients[0].phone })).text)).toBe(people[1].sipLogin);
  });

  it("calls asked about at once ring each free manager once: the others hear 486, none rings a manager twice", async () => {
    // Unknown callers of the trunk number's topic (rule 3, the manager idle longest): five at once for two managers.
    const { people } = await topicWithClients(2, "380441230043");
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => ask({ number: `+38067555000${i}`, did: "380441230043" })));
    const rung = answers.filter((answer) => answer.status === 200).map((answer) => ringOf(answer.text));
    expect(rung.sort()).toEqual([people[0].sipLogin, people[1].sipLogin].sort());
    expect(answers.filter((answer) => answer.status === 486)).toHaveLength(3);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
  });

  it("thirty calls asked about at once for ten managers, known clients and unknown numbers: each manager rung once, the rest 486", async () => {
    // Every question wants the same few managers: unknown callers the one idle longest (rule 3), known clients
    // their own manager (rule 1), three clients per manager, and each call of the first ten asked twice (Kamailio's
    // second question when the first answer came late), so the claims collide.
    const { base, people } = await topicWithClients(10, "380441230044");
    const clients = await t.db
      .insert(contacts)
      .values(
        Array.from({ length: 20 }, (_, i) => ({
          databaseId: base.id,
          name: `Клиент ${i}`,
          phone: `+38050444${String(i).padStart(4, "0")}`,
          phoneKey: `38050444${String(i).padStart(4, "0")}`,
        })),
      )
      .returning();
    for (const [i, client] of clients.entries()) await called(people[i % 10], client, 5 + i);
    const questions = [
      ...clients.map((client, i) => ({ number: client.phone, did: "380441230044", sipCallId: `crowd-${i}@carrier` })),
      ...Array.from({ length: 10 }, (_, i) => ({
        number: `+38067444${String(i).padStart(4, "0")}`,
        did: "380441230044",
        sipCallId: `crowd-u${i}@carrier`,
      })),
    ];
    const asked = [...questions, ...questions.slice(0, 10)];
    const answers = await Promise.all(asked.map((question) => ask(question)));
    const rung = new Map<string, Set<string>>();
    const ringing = new Map<string, Set<string>>();
    for (const [i, answer] of answers.entries()) {
      expect([200, 486]).toContain(answer.status);
      if (answer.status !== 200) continue;
      const login = ringOf(answer.text)!;
      rung.set(login, (rung.get(login) ?? new Set()).add(asked[i].sipCallId));
      ringing.set(asked[i].sipCallId, (ringing.get(asked[i].sipCallId) ?? new Set()).add(login));
    }
    // A manager rings for one call only, and a call asked twice rings one manager (the same answer again).
    for (const calls of rung.values()) expect(calls.size).toBe(1);
    for (const logins of ringing.values()) expect(logins.size).toBe(1);
    expect([...rung.keys()].sort()).toEqual(people.map((p) => p.sipLogin).sort());
    // The call log agrees: one open ringing per manager, none twice.
    const open = await t.db
      .select({ userId: calls.userId, sipCallId: calls.sipCallId })
      .from(calls)
      .where(and(eq(calls.direction, "in"), isNull(calls.endedAt), sql`${calls.sipCallId} like 'crowd-%'`));
    expect(open.map((row) => row.userId).sort()).toEqual(people.map((p) => p.id).sort());
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
  });

  it("rule 4: all busy is 486, nobody on the line 480; the missed call is a callback «Пропущенный входящий» in the last caller's list", async () => {
    const { clients, people } = await topicWithClients(2);
    const [caller, other] = people;
    await called(caller, clients[1], 30);
    await inACall(caller);
    await t.db.insert(managerBreaks).values({ userId: other.id });
    const busy = await ask({ number: clients[1].phone });
    expect(busy.status).toBe(486);
    expect(busy.text).toMatch(/^id=\d+;sip=486\nManagers Busy$/);
    expect(await rowOf(idOf(busy.text))).toMatchObject({ sipCode: 486, reason: "Все менеджеры заняты", outcome: "busy", contactId: clients[1].id });
    expect((await rowOf(idOf(busy.text))).endedAt).not.toBeNull();

    const mine = await t.request.get("/api/v1/callbacks/mine").set(bearer(caller.token));
    expect(mine.status).toBe(200);
    const missed = mine.body.filter((c: { contactId: number }) => c.contactId === clients[1].id);
    expect(missed).toHaveLength(1);
    expect(missed[0].statusText).toMatch(/^Пропущенный входящий, \d\d:\d\d$/);
    expect(missed[0].due).toBe(true);
    // A second missed call of the same client adds no second callback.
    await ask({ number: clients[1].phone });
    expect(await t.db.select().from(callbacks).where(eq(callbacks.contactId, clients[1].id))).toHaveLength(1);

    const { clients: nobodysClients } = await topicWithClients(0);
    const away = await ask({ number: nobodysClients[0].phone });
    expect(away.status).toBe(480);
    expect(away.text).toMatch(/\nNo Managers$/);
    expect((await rowOf(idOf(away.text))).reason).toBe("Нет менеджеров на линии");
    // Nobody called him before: the callback is the topic's, anyone's.
    const [topicCallback] = await t.db.select().from(callbacks).where(eq(callbacks.contactId, nobodysClients[0].id));
    expect(topicCallback).toMatchObject({ userId: null });
    expect(topicCallback.filterId).not.toBeNull();
  });

  it("an unknown number that finds nobody becomes a contact of the trunk number's topic, with a callback", async () => {
    const { topic, base, people } = await topicWithClients(1, "380441230009");
    await t.db.insert(managerBreaks).values({ userId: people[0].id });
    const answer = await ask({ number: "+380671112299", did: "380441230009" });
    expect(answer.status).toBe(486);
    const [added] = await t.db.select().from(contacts).where(eq(contacts.phoneKey, "380671112299"));
    expect(added).toMatchObject({ databaseId: base.id, phone: "+380671112299" });
    const [callback] = await t.db.select().from(callbacks).where(eq(callbacks.contactId, added.id));
    expect(callback).toMatchObject({ filterId: topic.id, userId: null });
    expect(callback.statusText).toMatch(/^Пропущенный входящий, /);
  });

  it("«Принимать входящие» on the lead panel: his own switch, with and without JavaScript; off, the client's call rings another", async () => {
    const { clients, people } = await topicWithClients(2);
    const [caller, other] = people;
    await called(caller, clients[0], 5);
    const cookie = await pageSessionCookie(t, caller.person);
    expect((await getPage(t, "/leadpanel", cookie)).text).toContain("Принимать входящие: вкл.");
    const off = await postPageForm(t, "/inbound", cookie, { accepts: "0", redirectTo: "/leadpanel" });
    expect(off.status).toBe(302);
    expect(off.headers.location).toBe("/leadpanel");
    const panel = await getPage(t, "/leadpanel", `${cookie}; ${flashCookie(off)}`);
    expect(panel.text).toContain("Входящие выключены: звонки клиентов пойдут другим менеджерам");
    expect(panel.text).toContain("Принимать входящие: выкл.");
    expect(ringOf((await ask({ number: clients[0].phone })).text)).toBe(other.sipLogin);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
    await postPageForm(t, "/inbound", cookie, { accepts: "1", redirectTo: "/leadpanel" });
    expect(ringOf((await ask({ number: clients[0].phone })).text)).toBe(caller.sipLogin);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
    const bad = await postPageForm(t, "/inbound", cookie, { accepts: "maybe", redirectTo: "/leadpanel" });
    expect(bad.status).toBe(302);
    expect((await getPage(t, "/leadpanel", `${cookie}; ${flashCookie(bad)}`)).text).toContain("Неизвестное действие");
  });

  it("the ringing page reads the client's card by the call's Call-ID: name, topic, last status and note, last calls; only his own call", async () => {
    const { clients, people } = await topicWithClients(2);
    const [caller, other] = people;
    const [status] = await t.db.select().from(statuses).where(eq(statuses.text, "Перезвонить"));
    await t.db.update(contacts).set({ statusId: status.id, clientInfo: "просил после обеда" }).where(eq(contacts.id, clients[2].id));
    await called(caller, clients[2], 30);
    const sipCallId = `card-${sequence}@carrier`;
    const answer = await ask({ number: clients[2].phone, sipCallId });
    expect(ringOf(answer.text)).toBe(caller.sipLogin);
    const cookie = await pageSessionCookie(t, caller.person);
    const card = await getPage(t, `/incoming?sipCallId=${encodeURIComponent(sipCallId)}`, cookie);
    expect(card.status).toBe(200);
    expect(card.body.card).toMatchObject({
      name: clients[2].name,
      phone: clients[2].phone,
      topic: "Тематика",
      status: "Перезвонить",
      note: "просил после обеда",
      doNotCall: false,
    });
    expect(card.body.card.calls).toHaveLength(1);
    expect(card.body.card.calls[0]).toMatchObject({ direction: "out", outcome: "answered" });
    // Another manager learns nothing of a call that is not his.
    const otherCookie = await pageSessionCookie(t, other.person);
    expect((await getPage(t, `/incoming?sipCallId=${encodeURIComponent(sipCallId)}`, otherCookie)).body.card).toBeNull();
    expect((await getPage(t, `/incoming?sipCallId=${encodeURIComponent(sipCallId)}`)).status).toBe(401);
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
  });

  it("«Ответить»: the caller becomes his lead on the panel, held to him, his lead before goes back; not a client another manager holds", async () => {
    const { clients, people } = await topicWithClients(2);
    const [a, b] = people;
    const hold = (who: { id: number }, client: { id: number }) =>
      t.db
        .update(contacts)
        .set({ heldBy: who.id, heldUntil: sql`now() + interval '30 minutes'` })
        .where(eq(contacts.id, client.id));
    const heldBy = async (client: { id: number }) => (await t.db.select().from(contacts).where(eq(contacts.id, client.id)))[0].heldBy;
    const endCalls = () =>
      t.db
        .update(calls)
        .set({ endedAt: sql`now()` })
        .where(isNull(calls.endedAt));
    await hold(a, clients[0]);
    await hold(b, clients[1]);
    await called(a, clients[2], 30);
    const cookie = await pageSessionCookie(t, a.person);
    const take = (sipCallId: string, session: string | null = null) => postPageForm(t, "/incoming", session, { sipCallId });

    const sipCallId = `take-${sequence}@carrier`;
    expect(ringOf((await ask({ number: clients[2].phone, sipCallId })).text)).toBe(a.sipLogin);
    expect((await take(sipCallId)).status).toBe(401);
    const taken = await take(sipCallId, cookie);
    expect(taken.status).toBe(200);
    expect(taken.body).toEqual({ taken: true });
    expect(await heldBy(clients[2])).toBe(a.id);
    expect(await heldBy(clients[0])).toBeNull();
    const panel = await getPage(t, "/leadpanel", cookie);
    expect(panel.text).toContain(clients[2].name);
    expect(panel.text).not.toContain(clients[0].name);
    await endCalls();

    // A client on b's panel now stays b's: a's ringing card is what a sees, and his lead stays his.
    await called(a, clients[1], 10);
    const busyCallId = `take-busy-${sequence}@carrier`;
    expect(ringOf((await ask({ number: clients[1].phone, sipCallId: busyCallId })).text)).toBe(a.sipLogin);
    expect((await take(busyCallId, cookie)).body).toEqual({ taken: false });
    expect(await heldBy(clients[1])).toBe(b.id);
    expect(await heldBy(clients[2])).toBe(a.id);
    // Another manager's call is nothing he can take.
    expect((await take(sipCallId, await pageSessionCookie(t, b.person))).body).toEqual({ taken: false });
    await endCalls();
  });

  it("a do-not-call client who calls is answered: the ringing card and the panel say so in red, he is held to the manager, a status is pressed", async () => {
    const { topic, clients, people } = await topicWithClients(1);
    const [a] = people;
    const [noAnswer] = await t.db.select().from(statuses).where(eq(statuses.text, "Отказ"));
    await t.db.insert(filterStatuses).values({ filterId: topic.id, statusId: noAnswer.id });
    const [listed] = await t.db.select().from(contacts).where(eq(contacts.id, clients[1].id));
    await t.db.insert(doNotCall).values({ phoneKey: listed.phoneKey, phone: listed.phone });
    await called(a, clients[1], 30);
    const cookie = await pageSessionCookie(t, a.person);
    const heldBy = async (client: { id: number }) => (await t.db.select().from(contacts).where(eq(contacts.id, client.id)))[0].heldBy;
    // Before the call, the panel hands out no listed client, and drops one he held (the list won since).
    await t.db
      .update(contacts)
      .set({ heldBy: a.id, heldUntil: sql`now() + interval '30 minutes'`, heldSince: sql`now()` })
      .where(eq(contacts.id, clients[1].id));
    const before = await getPage(t, "/leadpanel", cookie);
    expect(before.text).not.toContain(clients[1].name);
    expect(await heldBy(clients[1])).not.toBe(a.id);

    const sipCallId = `dnc-${sequence}@carrier`;
    expect(ringOf((await ask({ number: clients[1].phone, sipCallId })).text)).toBe(a.sipLogin);
    const card = await getPage(t, `/incoming?sipCallId=${encodeURIComponent(sipCallId)}`, cookie);
    expect(card.body.card).toMatchObject({ name: clients[1].name, doNotCall: true });
    const taken = await postPageForm(t, "/incoming", cookie, { sipCallId });
    expect(taken.body).toEqual({ taken: true });
    expect(await heldBy(clients[1])).toBe(a.id);
    // The panel shows his card, with the notice, and keeps it on a reload while the call lasts.
    for (let i = 0; i < 2; i += 1) {
      const panel = await getPage(t, "/leadpanel", cookie);
      expect(panel.text).toContain(clients[1].name);
      expect(panel.text).toMatch(/data-testid="lead-do-not-call"[^>]*>Номер в списке «Не звонить»</);
      // «Позвонить» is disabled on his card, the reason its title and beside it: the proxy refuses a call to him.
      const button = /<(\w+)[^>]*data-testid="call-button"[^>]*>/.exec(panel.text)!;
      expect(button[1]).toBe("button");
      expect(button[0]).toContain('disabled=""');
      expect(button[0]).toContain('title="Позвонить нельзя: номер в списке «Не звонить»"');
      expect(panel.text).toMatch(/data-testid="call-refused"[^>]*>Позвонить нельзя: номер в списке «Не звонить»</);
    }
    // A call back all the same (an old page, a softphone of his own) is refused by the proxy, and logged so.
    const back = await t.request
      .post("/api/v1/telephony/calls")
      .type("form")
      .set("X-Sip-Auth-Secret", SECRET)
      .send({ login: a.sipLogin, number: listed.phoneKey, sipCallId: `dnc-back-${sequence}@browser` });
    expect(back.status).toBe(403);
    expect(back.text).toMatch(/^id=\d+;sip=403\nDo Not Call$/);
    expect(await rowOf(idOf(back.text))).toMatchObject({ direction: "out", outcome: "failed", reason: "Номер в списке «Не звонить»" });
    expect(await heldBy(clients[1])).toBe(a.id);
    // The API's held lead is the same client.
    const lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${topic.id}&userId=${a.id}`).set(bearer(a.token));
    expect(lead.status).toBe(200);
    expect(lead.body.id).toBe(clients[1].id);
    // He presses a status for the client as for any lead; the next lead is another client.
    const pressed = await postPageForm(t, "/leadpanel", cookie, {
      intent: "status",
      statusId: String(noAnswer.id),
      contactId: String(clients[1].id),
      passport: "",
    });
    expect(pressed.status).toBeLessThan(400);
    expect(await t.db.select().from(leadEvents).where(eq(leadEvents.contactId, clients[1].id))).toHaveLength(1);
    expect(await heldBy(clients[1])).toBeNull();
    await t.db
      .update(calls)
      .set({ endedAt: sql`now()` })
      .where(isNull(calls.endedAt));
    // The call over, a reload drops nothing (he no longer holds the client) and gives no listed client.
    expect((await getPage(t, "/leadpanel", cookie)).text).not.toContain("lead-do-not-call");
  });

  it("the ring time and how many managers a call rings are the ones the admin saved (POST /database/settings, /basesettings)", async () => {
    const admin = await t.adminToken();
    const save = (inboundRingSeconds: number, inboundMaxManagers: number) =>
      t.request
        .post("/api/v1/database/settings")
        .set(bearer(admin))
        .send({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false, inboundRingSeconds, inboundMaxManagers });
    expect((await save(12, 2)).status).toBe(200);
    const endCalls = () =>
      t.db
        .update(calls)
        .set({ endedAt: sql`now()` })
        .where(isNull(calls.endedAt));
    try {
      const { clients, people } = await topicWithClients(3);
      await called(people[0], clients[0], 3);
      const first = await ask({ number: clients[0].phone });
      expect(ringOf(first.text)).toBe(people[0].sipLogin);
      expect(first.text).toMatch(/(?:^|;)ring_s=12(?:;|$)/);
      await endCalls();
      const second = await ask({ number: clients[0].phone, tried: people[0].sipLogin });
      expect(second.status).toBe(200);
      expect(second.text).toMatch(/(?:^|;)ring_s=12(?:;|$)/);
      await endCalls();
      // Two rung, the admin's number: missed, though a third manager of the topic is free.
      const third = await ask({ number: clients[0].phone, tried: `${people[0].sipLogin},${ringOf(second.text)}` });
      expect(third.status).toBe(480);
      expect(third.text).toMatch(/\nNobody Answered$/);
      // Three allowed again: the same question rings the third.
      expect((await save(45, 3)).status).toBe(200);
      const again = await ask({ number: clients[0].phone, tried: `${people[0].sipLogin},${ringOf(second.text)}` });
      expect(again.status).toBe(200);
      expect(again.text).toMatch(/(?:^|;)ring_s=45(?:;|$)/);
      await endCalls();
    } finally {
      await save(20, 3);
    }
  });

  it("a trunk number the admin saved on the topic, however written, is the one an unknown caller's call reaches", async () => {
    const admin = await t.adminToken();
    const { topic, base, people } = await topicWithClients(1);
    const [status] = await t.db.select().from(statuses).where(eq(statuses.text, "Отказ"));
    const ok = await t.request
      .put(`/api/v1/filters/${topic.id}`)
      .set(bearer(admin))
      .send({ name: topic.name, managers: [people[0].id], databases: [base.id], statuses: [status.id], inboundNumber: "044 123 00 61" });
    expect(ok.status).toBe(200);
    for (const did of ["380441230061", "+380441230061", "0441230061"]) {
      const answer = await ask({ number: "+380671234561", did });
      expect({ did, ring: ringOf(answer.text) }).toEqual({ did, ring: people[0].sipLogin });
      await t.db
        .update(calls)
        .set({ endedAt: sql`now()` })
        .where(isNull(calls.endedAt));
    }
  });

  it("the dashboard counts the day's calls in, answered, missed, called back and the time to call back", async () => {
    const admin = await t.adminToken();
    const inbound = async () => (await t.request.get("/api/v1/statistics").set(bearer(admin))).body.calls.inbound;
    const before = await inbound();
    const { clients, people } = await topicWithClients(1);
    const report = (id: number, event: string) =>
      t.request
        .post("/api/v1/telephony/call-events")
        .type("form")
        .set("X-Sip-Auth-Secret", SECRET)
        .send({ id: String(id), event });
    // Answered: it rang the manager, he answered, and it ended.
    const sipCallId = `stats-${sequence}@carrier`;
    const first = await ask({ number: clients[0].phone, sipCallId });
    expect(ringOf(first.text)).toBe(people[0].sipLogin);
    await report(idOf(first.text), "answer");
    await report(idOf(first.text), "end");
    // Missed: he is on a break now.
    await t.db.insert(managerBreaks).values({ userId: people[0].id });
    expect((await ask({ number: clients[1].phone })).status).toBe(486);
    expect((await ask({ number: clients[2].phone })).status).toBe(486);
    // One of the two missed clients is called back.
    await called(people[0], clients[1], -1);
    const after = await inbound();
    expect(after.calls - before.calls).toBe(3);
    expect(after.answered - before.answered).toBe(1);
    expect(after.missed - before.missed).toBe(2);
    expect(after.calledBack - before.calledBack).toBe(1);
    expect(after.callBackSeconds).not.toBeNull();
    const page = await getPage(t, "/", await pageSessionCookie(t, ADMIN));
    expect(page.text).toContain(`Входящие: ${after.calls}, отвечено ${after.answered}, пропущено ${after.missed}, перезвонили ${after.calledBack}`);
  });
});
