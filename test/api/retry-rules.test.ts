import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { calls, callbacks, contacts, doNotCall, filters, leadEvents, statuses, users } from "../../db/schema";
import { claimNext, loadWorkSet } from "../../server/core/leads/allocation";
import { leadView } from "../../server/core/leads/lead-view";
import { TIER_ORDER } from "../../server/core/leads/tiers";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";
import { createBase, statusesByText } from "../helpers/leads";

/**
 * Retry rules (issue 29, decision 057): per status of a topic, «вернуть в работу через» N minutes, «не более» M
 * attempts, then a final status. The database clock cannot be moved, so "the delay has passed" is the contact's
 * status_at moved back, as if the press had been that long ago.
 */
let admin: string;
let s: Awaited<ReturnType<typeof statusesByText>>;
let noAnswer: number; // «Недозвон»: the rule's status
let gaveUp: number; // «Недоступен»: its final status

const t = useTestApp({ web: true });
beforeAll(async () => {
  admin = await t.adminToken();
  const [final] = await t.db.insert(statuses).values({ text: "Недоступен", buttonText: "Недоступен", color: "#475569", order: 90 }).returning();
  s = await statusesByText(t.db);
  noAnswer = s["Недозвон"].id;
  gaveUp = final.id;
});

type Rule = { status: number; delayMinutes: number; maxAttempts: number; finalStatus: number };

/** A topic saved through the API with these rules (re-working «Недозвон» and «Перезвонить»), and its manager. */
async function topicWith(options: { contacts?: number; rules?: Rule[]; countedBy?: "presses" | "calls"; managers?: number } = {}) {
  const { base, contacts: rows } = await createBase(t.db, { count: options.contacts ?? 1 });
  const people = await Promise.all(Array.from({ length: options.managers ?? 1 }, () => createUser(t.db)));
  const res = await t.request
    .post("/api/v1/filters")
    .set(bearer(admin))
    .send({
      name: `Повтор ${base.id}`,
      managers: people.map((p) => p.user.id),
      databases: [base.id],
      statuses: [noAnswer, s["Перезвонить"].id],
      retryRules: options.rules ?? [{ status: noAnswer, delayMinutes: 120, maxAttempts: 5, finalStatus: gaveUp }],
      retryCountedBy: options.countedBy ?? "presses",
    });
  expect(res.status).toBe(200);
  const managers = await Promise.all(
    people.map(async (p) => {
      await t.db.update(users).set({ gettingFilter: res.body.id }).where(eq(users.id, p.user.id));
      return { id: p.user.id, person: p, auth: bearer(await t.tokenFor(p)) };
    }),
  );
  return { filterId: res.body.id as number, baseId: base.id, rows, managers, manager: managers[0] };
}

type Manager = Awaited<ReturnType<typeof topicWith>>["manager"];
type LeadBody = { id: number; attempt?: { number: number; of: number } };

async function leadOf(m: Manager, filterId: number): Promise<LeadBody | null> {
  const res = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filterId}&userId=${m.id}`).set(m.auth);
  expect(res.status).toBe(200);
  return res.body === "" ? null : res.body;
}

async function press(m: Manager, filterId: number, contactId: number, statusText = "Недозвон"): Promise<LeadBody | null> {
  const res = await t.request
    .put("/api/v1/status/update-and-get-lead")
    .set(m.auth)
    .send({ statusText, contactId, userId: m.id, passport: "", filterId, clientInfo: "" });
  expect(res.status).toBe(200);
  return res.body === "" ? null : res.body;
}

/** As if the contact's status had been pressed `minutes` ago. */
const pressedAgo = (contactId: number, minutes: number) =>
  t.db.execute(sql`update contacts set status_at = now() - make_interval(mins => ${minutes}) where id = ${contactId}`);

const contactRow = async (id: number) => (await t.db.select().from(contacts).where(eq(contacts.id, id)))[0];

describe("a contact comes back by its status's rule", () => {
  it("not before its delay, and after it, with the attempt it is on («Попытка 2 из 5»)", async () => {
    const { filterId, rows, manager } = await topicWith({ contacts: 2 });
    const [a, b] = rows;
    expect((await leadOf(manager, filterId))?.id).toBe(a.id);
    expect((await press(manager, filterId, a.id))?.id).toBe(b.id);
    // «Недозвон» is one of the topic's statuses: without the rule, A would come back at once.
    expect(await press(manager, filterId, b.id)).toBeNull();
    await pressedAgo(a.id, 119);
    expect(await leadOf(manager, filterId)).toBeNull();
    await pressedAgo(a.id, 121);
    const back = await leadOf(manager, filterId);
    expect(back).toMatchObject({ id: a.id, attempt: { number: 2, of: 5 } });
  });

  it("stops at the limit: the last attempt gives the final status, and the contact never comes back", async () => {
    const { filterId, rows, manager } = await topicWith({ rules: [{ status: noAnswer, delayMinutes: 120, maxAttempts: 3, finalStatus: gaveUp }] });
    const [a] = rows;
    for (let attempt = 1; attempt <= 3; attempt++) {
      const lead = await leadOf(manager, filterId);
      expect(lead?.id).toBe(a.id);
      if (attempt > 1) expect(lead?.attempt).toEqual({ number: attempt, of: 3 });
      expect(await press(manager, filterId, a.id)).toBeNull();
      expect((await contactRow(a.id)).statusId).toBe(attempt < 3 ? noAnswer : gaveUp);
      await pressedAgo(a.id, 24 * 60);
    }
    expect(await leadOf(manager, filterId)).toBeNull();
    const events = await t.db
      .select({ status: leadEvents.statusText, attempt: leadEvents.attempt, of: leadEvents.attemptsMax, final: leadEvents.finalStatusText })
      .from(leadEvents)
      .where(eq(leadEvents.contactId, a.id))
      .orderBy(leadEvents.id);
    expect(events).toEqual([
      { status: "Недозвон", attempt: 1, of: 3, final: null },
      { status: "Недозвон", attempt: 2, of: 3, final: null },
      { status: "Недозвон", attempt: 3, of: 3, final: "Недоступен" },
    ]);
    // The client's history says it too (an admin's view).
    const history = await t.request.get(`/api/v1/contacts/${a.id}/history`).set(bearer(admin));
    expect(history.status).toBe(200);
    expect(history.body.filter((e: { kind: string }) => e.kind === "status").map((e: { attempt: string }) => e.attempt)).toEqual([
      "Попытка 3 из 3 · итог: Недоступен",
      "Попытка 2 из 3",
      "Попытка 1 из 3",
    ]);
  });

  it("counts attempts by the call log when the topic says so, and by the presses otherwise", async () => {
    const rule = [{ status: noAnswer, delayMinutes: 60, maxAttempts: 3, finalStatus: gaveUp }];
    const byCalls = await topicWith({ rules: rule, countedBy: "calls" });
    const byPresses = await topicWith({ rules: rule, countedBy: "presses" });
    const call = (m: Manager, contactId: number) =>
      t.db.insert(calls).values({ userId: m.id, contactId, number: "+380500000000", direction: "out", endedAt: new Date(), outcome: "no_answer" });

    for (const topic of [byCalls, byPresses]) {
      const [a] = topic.rows;
      const m = topic.manager;
      // First press, after one call.
      expect((await leadOf(m, topic.filterId))?.id).toBe(a.id);
      await call(m, a.id);
      await press(m, topic.filterId, a.id);
      await pressedAgo(a.id, 61);
      // Back on its 2nd attempt either way; a call made during this hold is not counted before the press.
      expect(await leadOf(m, topic.filterId)).toMatchObject({ id: a.id, attempt: { number: 2, of: 3 } });
      await call(m, a.id);
      expect((await leadOf(m, topic.filterId))?.attempt).toEqual({ number: 2, of: 3 });
      await press(m, topic.filterId, a.id);
      await pressedAgo(a.id, 61);
      // Third press with no call at all: three presses, but two calls.
      expect((await leadOf(m, topic.filterId))?.id).toBe(a.id);
      await press(m, topic.filterId, a.id);
      await pressedAgo(a.id, 61);
    }
    expect((await contactRow(byPresses.rows[0].id)).statusId).toBe(gaveUp);
    expect(await leadOf(byPresses.manager, byPresses.filterId)).toBeNull();
    expect((await contactRow(byCalls.rows[0].id)).statusId).toBe(noAnswer);
    // By the call log it is still on its third attempt: one more call and a press end it.
    expect(await leadOf(byCalls.manager, byCalls.filterId)).toMatchObject({ id: byCalls.rows[0].id, attempt: { number: 3, of: 3 } });
    await call(byCalls.manager, byCalls.rows[0].id);
    await press(byCalls.manager, byCalls.filterId, byCalls.rows[0].id);
    expect((await contactRow(byCalls.rows[0].id)).statusId).toBe(gaveUp);
  });

  it("shows «Попытка 2 из 5» on the lead panel's card, and in the client's history there", async () => {
    const { filterId, rows, manager } = await topicWith();
    const [a] = rows;
    await leadOf(manager, filterId);
    await press(manager, filterId, a.id);
    await pressedAgo(a.id, 121);
    const cookie = await pageSessionCookie(t, manager.person);
    const page = await getPage(t, "/leadpanel", cookie);
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/data-testid="lead-attempt"[^>]*>Попытка 2 из 5</);
    expect(page.text).toMatch(/data-testid="history-attempt"[^>]*>(<!-- -->)? · (<!-- -->)?Попытка 1 из 5/);
  });

  it("gives the attempt, the history and the card with the next lead a press on the panel answers", async () => {
    const { filterId, rows, manager } = await topicWith({ contacts: 2 });
    const [a, b] = rows;
    expect((await press(manager, filterId, (await leadOf(manager, filterId))!.id))?.id).toBe(b.id);
    await pressedAgo(a.id, 121);
    // B is pressed on the page (its script's request): the answer's next lead is A, back on its 2nd attempt.
    const cookie = await pageSessionCookie(t, manager.person);
    const res = await postPageForm(t, "/leadpanel/press", cookie, {
      intent: "status",
      statusId: String(s["Перезвонить"].id),
      contactId: String(b.id),
      passport: "",
      answer: "panel",
    });
    expect(res.status).toBe(200);
    const next = res.body.next;
    expect(next.lead).toMatchObject({ id: a.id, attempt: { number: 2, of: 5 } });
    expect(next.card.find((row: { key: string }) => row.key === "name")?.value).toBe(a.name);
    expect(next.history.map((e: { kind: string; attempt: string | null }) => [e.kind, e.attempt])).toEqual([["status", "Попытка 1 из 5"]]);
    // A retried client is no callback: the layout's figures (the menu's count of due callbacks) stay as they are.
    expect(res.body.refreshLayout).toBe(false);
  });

  it("asks the layout to refresh when the next lead is a due callback the press handed out (the menu's count changed)", async () => {
    const { filterId, rows, manager } = await topicWith({ contacts: 3 });
    const [a, b] = rows;
    expect((await press(manager, filterId, (await leadOf(manager, filterId))!.id))?.id).toBe(b.id);
    // A's callback, his, due a minute ago: the first tier of the next claim.
    await t.db
      .insert(callbacks)
      .values({ contactId: a.id, databaseId: a.databaseId, userId: manager.id, filterId, dueAt: new Date(Date.now() - 60_000) });
    const cookie = await pageSessionCookie(t, manager.person);
    const res = await postPageForm(t, "/leadpanel/press", cookie, {
      intent: "status",
      statusId: String(s["Недозвон"].id),
      contactId: String(b.id),
      passport: "",
      answer: "panel",
    });
    expect(res.status).toBe(200);
    expect(res.body.next.lead.id).toBe(a.id);
    expect(res.body.refreshLayout).toBe(true);
  });
});

describe("what a press's own statement reads of the next lead (issue 31)", () => {
  /** A press on the panel (its script's request), and a read of the lead it answered apart, as a page load makes it. */
  async function pressOnPanel(manager: Manager, filterId: number, contactId: number, statusId: number) {
    const cookie = await pageSessionCookie(t, manager.person);
    const res = await postPageForm(t, "/leadpanel/press", cookie, {
      intent: "status",
      statusId: String(statusId),
      contactId: String(contactId),
      passport: "",
      answer: "panel",
    });
    expect(res.status).toBe(200);
    const { readAt: _readAt, callbackTimes: _times, ...next } = res.body.next;
    const actor = { id: manager.id, login: manager.person.login, isAdmin: false };
    const bare = { ...next.lead, attempt: undefined };
    const apart = await leadView(t.db, actor, filterId, bare, t.config.phoneRegion);
    return { next, apart: JSON.parse(JSON.stringify(apart)) };
  }
  const logCall = (m: Manager, contactId: number, minutesAgo: number) =>
    t.db.insert(calls).values({
      userId: m.id,
      contactId,
      number: "+380500000000",
      direction: "out",
      outcome: "no_answer",
      startedAt: new Date(Date.now() - minutesAgo * 60_000),
      endedAt: new Date(Date.now() - minutesAgo * 60_000 + 20_000),
    });

  it("is what a read of the lead apart says: a fresh lead, one back by its rule with calls and history, and the pressed one kept", async () => {
    const { filterId, rows, manager } = await topicWith({ contacts: 2, countedBy: "calls" });
    await t.db.update(filters).set({ autodialSeconds: 5 }).where(eq(filters.id, filterId));
    const [a, b] = rows;
    expect((await leadOf(manager, filterId))?.id).toBe(a.id);
    await logCall(manager, a.id, 3);
    // A fresh lead: no attempt, no history, the topic's autodial.
    let turn = await pressOnPanel(manager, filterId, a.id, noAnswer);
    expect(turn.next.lead.id).toBe(b.id);
    expect(turn.next.autodial).toEqual({ seconds: 5, block: null });
    expect(turn.next).toEqual(turn.apart);
    // A back by its rule, its calls counted: the attempt, the history. A hold of A had lapsed 10 minutes ago: the
    // calls of this attempt count from the new hold, not the old one.
    await pressedAgo(a.id, 121);
    await t.db.execute(sql`update contacts set held_since = now() - interval '10 minutes' where id = ${a.id}`);
    turn = await pressOnPanel(manager, filterId, b.id, s["Перезвонить"].id);
    expect(turn.next.lead).toMatchObject({ id: a.id, attempt: { number: 2, of: 5 } });
    expect(turn.next.history.length).toBeGreaterThan(0);
    expect(turn.next).toEqual(turn.apart);
    // One contact, back by its rule, pressed with a re-work status: it is handed back, with no attempt (no rule
    // governs its new status) and this press, its first, in its history.
    const one = await topicWith({ contacts: 1 });
    const [c] = one.rows;
    await t.db.update(contacts).set({ statusId: noAnswer }).where(eq(contacts.id, c.id));
    await pressedAgo(c.id, 121);
    expect(await leadOf(one.manager, one.filterId)).toMatchObject({ id: c.id, attempt: { number: 1, of: 5 } });
    turn = await pressOnPanel(one.manager, one.filterId, c.id, s["Перезвонить"].id);
    expect(turn.next.lead.id).toBe(c.id);
    expect(turn.next.lead.attempt).toBeUndefined();
    expect(turn.next.history.map((e: { kind: string }) => e.kind)).toEqual(["status"]);
    expect(turn.next).toEqual(turn.apart);
  });
});

/** One claim of the manager through the given tiers, outside a turn. */
const claim = async (userId: number, filterId: number, tiers = TIER_ORDER) => claimNext(t.db, userId, 30, await loadWorkSet(t.db, filterId), tiers);

describe("the retry tier of the claim", () => {
  const worked = (id: number, minutesAgo: number) =>
    t.db.execute(sql`update contacts set status_id = ${noAnswer}, status_at = now() - make_interval(mins => ${minutesAgo}) where id = ${id}`);

  it("hands out a due contact only: not before the delay, never a do-not-call number, never outside calling hours, not while a callback waits", async () => {
    const { filterId, rows, manager } = await topicWith({ contacts: 1 });
    const [a] = rows;
    await worked(a.id, 119);
    expect(await claim(manager.id, filterId, ["retry"])).toBeNull();
    await worked(a.id, 120);
    // The rework tier never brings back a status with a rule, however long ago it was pressed.
    expect(await claim(manager.id, filterId, ["rework"])).toBeNull();

    await t.db.insert(doNotCall).values({ phoneKey: a.phoneKey, phone: a.phone });
    expect(await claim(manager.id, filterId, ["retry"])).toBeNull();
    await t.db.delete(doNotCall).where(eq(doNotCall.phoneKey, a.phoneKey));

    // Hours that ended a minute ago in the topic's zone (the contact's zone is unknown).
    const [window] = await queryRows<{ from: string; until: string }>(
      t.db,
      sql`select to_char(now() at time zone 'Europe/Kyiv' - interval '2 hours', 'HH24:MI') as from,
        to_char(now() at time zone 'Europe/Kyiv' - interval '1 minute', 'HH24:MI') as until`,
    );
    await t.db.update(filters).set({ callsFrom: window.from, callsUntil: window.until, timeZone: "Europe/Kyiv" }).where(eq(filters.id, filterId));
    expect(await claim(manager.id, filterId, ["retry"])).toBeNull();
    await t.db.update(filters).set({ callsFrom: "00:00", callsUntil: "00:00" }).where(eq(filters.id, filterId));

    const [cb] = await t.db
      .insert(callbacks)
      .values({
        contactId: a.id,
        databaseId: a.databaseId,
        userId: manager.id,
        filterId,
        statusText: "Перезвонить",
        dueAt: new Date(Date.now() + 3600_000),
      })
      .returning();
    expect(await claim(manager.id, filterId, ["retry"])).toBeNull();
    await t.db.delete(callbacks).where(eq(callbacks.id, cb.id));

    expect((await claim(manager.id, filterId, ["retry"]))?.id).toBe(a.id);
  });

  it("comes after the callbacks and before the fresh contacts, longest waiting first", async () => {
    const { filterId, rows, manager } = await topicWith({ contacts: 5 });
    const [fresh, due1, due2, called, notYet] = rows;
    void fresh;
    await worked(due1.id, 180);
    await worked(due2.id, 300);
    await worked(notYet.id, 10);
    await t.db.insert(callbacks).values({
      contactId: called.id,
      databaseId: called.databaseId,
      userId: manager.id,
      filterId,
      statusText: "Перезвонить",
      dueAt: new Date(Date.now() - 60_000),
    });
    await t.db.execute(sql`update contacts set status_id = ${s["Перезвонить"].id}, status_at = now() where id = ${called.id}`);
    const order: number[] = [];
    for (let i = 0; i < 4; i++) {
      const lead = await claim(manager.id, filterId);
      if (!lead) break;
      order.push(lead.id);
      await t.db.update(contacts).set({ heldBy: null, heldUntil: null, statusId: gaveUp }).where(eq(contacts.id, lead.id));
    }
    expect(order).toEqual([called.id, due2.id, due1.id, fresh.id]);
  });

  it("never hands one due contact to two managers claiming at once", async () => {
    const { filterId, rows, managers } = await topicWith({ contacts: 3, managers: 6 });
    for (const row of rows) await worked(row.id, 200);
    const leads = await Promise.all(managers.map((m) => claim(m.id, filterId, ["retry"])));
    const ids = leads.filter((l) => l !== null).map((l) => l!.id);
    expect(ids.sort()).toEqual(rows.map((r) => r.id).sort());
    const held = await t.db
      .select({ id: contacts.id, by: contacts.heldBy })
      .from(contacts)
      .where(and(eq(contacts.databaseId, rows[0].databaseId)));
    expect(new Set(held.map((h) => h.by)).size).toBe(3);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("the retry tier racing other turns on Postgres", () => {
  it("never hands out a due contact another manager took and pressed while this turn waited", async () => {
    const { filterId, rows, managers } = await topicWith({ contacts: 2, managers: 2 });
    const [a, b] = managers;
    const [due, held] = rows;
    await t.db.execute(sql`update contacts set status_id = ${noAnswer}, status_at = now() - interval '200 minutes' where id = ${due.id}`);
    await t.db.execute(
      sql`update contacts set held_by = ${b.id}, held_until = now() + interval '30 minutes', held_since = now() where id = ${held.id}`,
    );

    // B's press starts (its statement's snapshot: the contact still due and free) and waits on B's own row, which
    // another connection holds; meanwhile A takes the contact and presses it, which leaves it free with another status.
    const { default: postgres } = await import("postgres");
    const blocker = postgres((t.handle as { url?: string }).url!, { max: 1, onnotice: () => {} });
    const holding = await blocker.reserve();
    await holding`begin`;
    await holding`select id from users where id = ${b.id} for update`;
    const pressOfB = press(b, filterId, held.id, "Отказ");
    await expect
      .poll(async () => (await holding`select count(*)::int as n from pg_locks where not granted and locktype = 'transactionid'`)[0].n)
      .toBeGreaterThan(0);
    expect((await leadOf(a, filterId))?.id).toBe(due.id);
    expect(await press(a, filterId, due.id, "Отказ")).toBeNull();
    await holding`commit`;
    holding.release();
    await blocker.end();

    // B's turn finds the contact due in its snapshot; locking it, it must see that it was worked since.
    expect(await pressOfB).toBeNull();
    const events = await t.db.select({ by: leadEvents.userId }).from(leadEvents).where(eq(leadEvents.contactId, due.id));
    expect(events).toEqual([{ by: a.id }]);
    expect((await contactRow(due.id)).heldBy).toBeNull();
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("the retry tier beside turns in flight on Postgres", () => {
  it("takes the next due contact when other turns hold the earliest ones", async () => {
    const { filterId, rows, manager } = await topicWith({ contacts: 4 });
    for (const [i, row] of rows.entries()) await pressedAgo(row.id, 500 - i);
    await t.db.execute(sql`update contacts set status_id = ${noAnswer} where id = any(${`{${rows.map((r) => r.id).join(",")}}`}::bigint[])`);
    // Two turns in flight (their transactions lock the two longest waiting), as other managers' claims would.
    const { default: postgres } = await import("postgres");
    const other = postgres((t.handle as { url?: string }).url!, { max: 1, onnotice: () => {} });
    const inFlight = await other.reserve();
    await inFlight`begin`;
    await inFlight`select id from contacts where id in ${other([rows[0].id, rows[1].id])} for update`;
    try {
      expect((await claim(manager.id, filterId, ["retry"]))?.id).toBe(rows[2].id);
    } finally {
      await inFlight`rollback`;
      inFlight.release();
      await other.end();
    }
    expect((await claim(manager.id, filterId, ["retry"]))?.id).toBe(rows[0].id);
  });
});

describe("the rules through POST/PUT /api/v1/filters", () => {
  const topic = async () => {
    const { base } = await createBase(t.db, { count: 1 });
    const m = await createUser(t.db);
    return { name: `Правила ${base.id}`, managers: [m.user.id], databases: [base.id], statuses: [noAnswer] };
  };
  const rule = (overrides: Partial<Rule> = {}): Rule => ({ status: noAnswer, delayMinutes: 120, maxAttempts: 5, finalStatus: gaveUp, ...overrides });

  it("saves and shows them; an edit without them keeps them; a status taken off the topic takes its rule along", async () => {
    const fields = await topic();
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send({ ...fields, retryRules: [rule()], retryCountedBy: "calls" });
    expect(created.status).toBe(200);
    expect(created.body.retryCountedBy).toBe("calls");
    expect(created.body.retryRules).toEqual([
      { status: { id: noAnswer, text: "Недозвон" }, delayMinutes: 120, maxAttempts: 5, finalStatus: { id: gaveUp, text: "Недоступен" } },
    ]);
    const kept = await t.request
      .put(`/api/v1/filters/${created.body.id}`)
      .set(bearer(admin))
      .send({ ...fields, name: "Переименована" });
    expect(kept.status).toBe(200);
    expect(kept.body.retryRules).toHaveLength(1);
    expect(kept.body.retryCountedBy).toBe("calls");
    const moved = await t.request
      .put(`/api/v1/filters/${created.body.id}`)
      .set(bearer(admin))
      .send({ ...fields, statuses: [s["Перезвонить"].id] });
    expect(moved.status).toBe(200);
    expect(moved.body.retryRules).toEqual([]);
    // A topic saved without rules (an older client) has none, and counts by presses.
    const plain = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(await topic());
    expect(plain.body).toMatchObject({ retryRules: [], retryCountedBy: "presses" });
  });

  it("refuses a bad rule with a Russian message (400) and saves nothing", async () => {
    const fields = await topic();
    const cases: Array<[unknown, string]> = [
      [[rule({ delayMinutes: 0 })], "«Вернуть в работу через»: укажите время больше нуля (целое число минут)"],
      [[rule({ delayMinutes: -5 })], "«Вернуть в работу через»: укажите время больше нуля (целое число минут)"],
      [[rule({ delayMinutes: 1.5 })], "«Вернуть в работу через»: укажите время больше нуля (целое число минут)"],
      [[rule({ maxAttempts: 0 })], "«Не более»: укажите число попыток от 1 до 100"],
      [[{ status: noAnswer, delayMinutes: 60, maxAttempts: 2 }], "Выберите итоговый статус правила повтора"],
      [[rule({ finalStatus: 999999 })], "Выбранный статус не найден"],
      [[rule({ finalStatus: noAnswer })], "Итоговый статус правила для «Недозвон» должен быть другим статусом"],
      [[rule({ status: s["Занято"].id })], "Правило повтора для статуса «Занято»: отметьте этот статус в статусах тематики"],
      [[rule(), rule({ delayMinutes: 30 })], "Для статуса «Недозвон» правило повтора задано дважды"],
      ["пять", "Неверный список правил повтора"],
    ];
    for (const [retryRules, message] of cases) {
      const res = await t.request
        .post("/api/v1/filters")
        .set(bearer(admin))
        .send({ ...fields, retryRules });
      expect(res.status, message).toBe(400);
      expect(res.body.message).toBe(message);
    }
    const finalInTopic = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send({ ...fields, statuses: [noAnswer, gaveUp], retryRules: [rule()] });
    expect(finalInTopic.status).toBe(400);
    expect(finalInTopic.body.message).toBe("Итоговый статус «Недоступен» тематика берёт в работу снова: выберите статус, которого нет в её статусах");
    const countedBy = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send({ ...fields, retryCountedBy: "звонки" });
    expect(countedBy.status).toBe(400);
    expect(countedBy.body.message).toBe("Попытки считаются по нажатиям статусов (presses) или по звонкам (calls)");
    const all = (await t.request.get("/api/v1/filters").set(bearer(admin))).body as Array<{ name: string }>;
    expect(all.some((f) => f.name === fields.name)).toBe(false);
  });
});

describe("the rules in the topic form (JavaScript off)", () => {
  it("saves a rule from a plain post (2 часа, 5 попыток, then Недоступен), shows it again, and refuses a bad one", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const { base } = await createBase(t.db, { count: 1 });
    const m = await createUser(t.db);
    const name = `Форма повтора ${base.id}`;
    const form = await getPage(t, "/loadedbases/filters/new", cookie);
    expect(form.text).toContain("Повтор недозвона");
    expect(form.text).toContain(`name="retryRules.${noAnswer}.delay"`);
    const fields = {
      intent: "save",
      name,
      managers: String(m.user.id),
      databases: String(base.id),
      statuses: String(noAnswer),
      "callingHours.from": "09:00",
      "callingHours.until": "21:00",
      "callingHours.days": "1",
      "callingHours.timeZone": "Europe/Kyiv",
      retryCountedBy: "calls",
      [`retryRules.${noAnswer}.delay`]: "2",
      [`retryRules.${noAnswer}.unit`]: "hours",
      [`retryRules.${noAnswer}.maxAttempts`]: "5",
      [`retryRules.${noAnswer}.finalStatus`]: String(gaveUp),
      [`retryRules.${s["Занято"].id}.delay`]: "",
      [`retryRules.${s["Занято"].id}.unit`]: "hours",
      [`retryRules.${s["Занято"].id}.maxAttempts`]: "",
      [`retryRules.${s["Занято"].id}.finalStatus`]: "",
    };
    const bad = await postPageForm(t, "/loadedbases/filters/new", cookie, { ...fields, [`retryRules.${noAnswer}.delay`]: "0" });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("«Вернуть в работу через»: укажите время больше нуля (целое число минут)");
    // Under the row's own field (decision 063), which says it is the wrong one.
    expect(bad.text).toMatch(new RegExp(`name="retryRules\\.${noAnswer}\\.delay"[^>]*aria-invalid="true"`));
    expect(bad.text).toMatch(/data-field-error="">«Вернуть в работу через»: укажите время больше нуля/);
    // What was typed is on the page again.
    expect(bad.text).toMatch(new RegExp(`name="retryRules\\.${noAnswer}\\.maxAttempts"[^>]*value="5"`));

    const saved = await postPageForm(t, "/loadedbases/filters/new", cookie, fields);
    expect(saved.status).toBe(302);
    const topic = (
      (await t.request.get("/api/v1/filters").set(bearer(admin))).body as Array<{
        id: number;
        name: string;
        retryRules: unknown;
        retryCountedBy: string;
      }>
    ).find((f) => f.name === name)!;
    expect(topic.retryCountedBy).toBe("calls");
    expect(topic.retryRules).toEqual([
      { status: { id: noAnswer, text: "Недозвон" }, delayMinutes: 120, maxAttempts: 5, finalStatus: { id: gaveUp, text: "Недоступен" } },
    ]);
    const edit = (await getPage(t, `/loadedbases/filters/${topic.id}`, cookie)).text;
    expect(edit).toMatch(new RegExp(`name="retryRules\\.${noAnswer}\\.delay"[^>]*value="2"`));
    expect(edit).toMatch(new RegExp(`name="retryRules\\.${noAnswer}\\.unit"[^]*?<option value="hours" selected=""`));
  });
});
