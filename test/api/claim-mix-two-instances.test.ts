import { and, eq, inArray, isNotNull, sql } from "drizzle-orm";
import supertest from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbacks, contacts, doNotCall, filters, statuses, users } from "../../db/schema";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";
import { startInstance, type Instance } from "../helpers/instance";
import { statusesByText } from "../helpers/leads";
import { clockIn } from "../helpers/zones";

/**
 * Issue 29's proof: two app instances on one Postgres database never hand one contact twice with everything in the
 * mix — calling hours (clients in several zones, some outside), retry rules on two statuses, callbacks due, and
 * do-not-call numbers. Four managers, two on each instance, press statuses at once round after round.
 *
 * The database clock cannot be moved, so a minute passes between two rounds by moving every status_at of the base a
 * minute back (as retry-rules.test.ts does): a contact pressed in round p with a rule of D minutes may come back in
 * round p + D at the earliest. On PGlite (one process) the same mix runs on one instance.
 */
let second: Instance | null = null;
let apis: Array<ReturnType<typeof supertest>>;

const t = useTestApp();
beforeAll(async () => {
  if (process.env.TEST_DATABASE_URL) {
    second = await startInstance((t.handle as { url?: string }).url!);
    apis = [t.request, supertest(`http://${second.base}`)];
  } else {
    apis = [t.request, t.request];
  }
}, 120_000);
afterAll(async () => {
  await second?.stop();
});

const ROUNDS = 14;
const NO_ANSWER_DELAY = 2;
const BUSY_DELAY = 3;

type Kind = "fresh" | "outside" | "listed" | "callback" | "callbackOutside" | "callbackListed";
/** The file: its kind in the name; «Часовой пояс» puts some Moscow numbers in Novosibirsk (outside). */
function rows(): Array<[string, string, string]> {
  const out: Array<[string, string, string]> = [];
  let n = 0;
  const moscow = () => `+7 495 100-${String(Math.floor(n / 100)).padStart(2, "0")}-${String(n++ % 100).padStart(2, "0")}`;
  const add = (kind: Kind, count: number, phone: () => string, zone = "") => {
    for (let i = 0; i < count; i++) out.push([`${kind} ${i}`, phone(), zone]);
  };
  add("fresh", 24, moscow);
  add("outside", 6, () => `+7 423 200-00-${String(n++ % 100).padStart(2, "0")}`); // Vladivostok by its area code
  add("outside", 6, moscow, "Asia/Novosibirsk");
  add("listed", 4, moscow);
  add("callback", 8, moscow);
  add("callbackOutside", 1, () => `+7 423 300-00-${String(n++ % 100).padStart(2, "0")}`);
  add("callbackListed", 1, moscow);
  return out;
}
const kindOf = (name: string) => name.split(" ")[0] as Kind;

describe(`${process.env.TEST_DATABASE_URL ? "two app instances on one Postgres" : "one instance (PGlite)"}: the claim with everything in the mix`, () => {
  it("never hands one contact to two managers, nor a listed or out-of-hours one, nor a retry early, nor a callback twice", async () => {
    const adminToken = await t.adminToken();
    const s = await statusesByText(t.db);
    const [final] = await t.db.insert(statuses).values({ text: "Недоступен", buttonText: "Недоступен", color: "#475569", order: 90 }).returning();
    const noAnswer = s["Недозвон"].id;
    const busy = s["Занято"].id;

    const file = Buffer.from(csvText([["ФИО", "Телефон", "Часовой пояс"], ...rows()]));
    const imported = await t.request
      .post("/api/v1/database/import")
      .set(bearer(adminToken))
      .field("name", "Всё вместе")
      .field("mappings", JSON.stringify(["name", "phone", "timeZone"]))
      .attach("file", file, "base.csv");
    expect(imported.status).toBe(200);
    const baseId = imported.body.id as number;
    const all = await t.db.select().from(contacts).where(eq(contacts.databaseId, baseId));
    expect(all).toHaveLength(rows().length);
    const kind = new Map(all.map((c) => [c.id, kindOf(c.name)]));
    const idsOf = (...kinds: Kind[]) => all.filter((c) => kinds.includes(kindOf(c.name))).map((c) => c.id);

    const people = await Promise.all(Array.from({ length: 4 }, () => createUser(t.db)));
    const absent = await createUser(t.db); // a manager of the topic who is not working: his overdue callback is anyone's
    const topic = await t.request
      .post("/api/v1/filters")
      .set(bearer(adminToken))
      .send({
        name: "Всё вместе",
        managers: [...people, absent].map((p) => p.user.id),
        databases: [baseId],
        statuses: [noAnswer, busy],
        retryRules: [
          { status: noAnswer, delayMinutes: NO_ANSWER_DELAY, maxAttempts: 3, finalStatus: final.id },
          { status: busy, delayMinutes: BUSY_DELAY, maxAttempts: 2, finalStatus: final.id },
        ],
        retryCountedBy: "presses",
      });
    expect(topic.status).toBe(200);
    const filterId = topic.body.id as number;
    // Open an hour either side of Moscow's now: Vladivostok (+7 h) and Novosibirsk (+4 h) are outside.
    await t.db
      .update(filters)
      .set({
        callsFrom: clockIn("Europe/Moscow", -60),
        callsUntil: clockIn("Europe/Moscow", 60),
        callDays: [1, 2, 3, 4, 5, 6, 7],
        timeZone: "Europe/Kyiv",
      })
      .where(eq(filters.id, filterId));

    const managers = await Promise.all(
      people.map(async (p, i) => {
        await t.db.update(users).set({ gettingFilter: filterId }).where(eq(users.id, p.user.id));
        return { id: p.user.id, auth: bearer(await t.tokenFor(p)), api: apis[i % 2], lead: null as number | null };
      }),
    );
    if (second) expect(apis[0]).not.toBe(apis[1]);

    // Callbacks due: each manager's own (due a minute ago), two of the absent manager's past the grace time, one
    // outside its client's hours, one whose number is listed. Their contacts wait in «Перезвонить», no status of the topic.
    const callbackIds = idsOf("callback", "callbackOutside", "callbackListed");
    await t.db
      .update(contacts)
      .set({ statusId: s["Перезвонить"].id, statusAt: sql`now() - interval '1 day'` })
      .where(inArray(contacts.id, callbackIds));
    await t.db.insert(callbacks).values(
      callbackIds.map((contactId, i) => {
        const owner = i < 6 ? managers[i % 4].id : absent.user.id;
        return {
          contactId,
          databaseId: baseId,
          userId: owner,
          filterId,
          statusText: "Перезвонить",
          dueAt: sql`now() - make_interval(mins => ${i < 6 ? 1 : 60})`,
        };
      }),
    );
    const listedIds = idsOf("listed", "callbackListed");
    for (const c of all.filter((c) => listedIds.includes(c.id))) await t.db.insert(doNotCall).values({ phoneKey: c.phoneKey, phone: c.phone });

    const forbidden = new Set(idsOf("outside", "listed", "callbackOutside", "callbackListed"));
    const callbackHandouts = new Map<number, number>();
    const lastPress = new Map<number, { round: number; status: string }>();
    const delayOf: Record<string, number> = { Недозвон: NO_ANSWER_DELAY, Занято: BUSY_DELAY };
    let retriesBack = 0;
    let seed = 29;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;

    const handed = (contactId: number, round: number) => {
      expect(forbidden.has(contactId), `round ${round}: contact ${contactId} (${kind.get(contactId)}) may not be called`).toBe(false);
      if (kind.get(contactId) === "callback") callbackHandouts.set(contactId, (callbackHandouts.get(contactId) ?? 0) + 1);
      const last = lastPress.get(contactId);
      if (!last) return;
      const delay = delayOf[last.status];
      expect(delay, `round ${round}: contact ${contactId} came back after «${last.status}»`).toBeDefined();
      expect(round - last.round, `round ${round}: contact ${contactId} came back before its ${delay} minutes`).toBeGreaterThanOrEqual(delay);
      retriesBack++;
    };

    for (let round = 0; round < ROUNDS; round++) {
      const answers = await Promise.all(
        managers.map(async (m) => {
          if (m.lead === null) {
            const res = await m.api.get(`/api/v1/database/filtered-lead?filterId=${filterId}&userId=${m.id}`).set(m.auth);
            expect(res.status).toBe(200);
            return res.body ? (res.body.id as number) : null;
          }
          const contactId = m.lead;
          const roll = random();
          const statusText = kind.get(contactId) === "callback" ? "Отказ" : roll < 0.45 ? "Недозвон" : roll < 0.8 ? "Занято" : "Отказ";
          lastPress.set(contactId, { round, status: statusText });
          const res = await m.api
            .put("/api/v1/status/update-and-get-lead")
            .set(m.auth)
            .send({ statusText, contactId, userId: m.id, passport: "", filterId, clientInfo: "" });
          expect(res.status).toBe(200);
          return res.body ? (res.body.id as number) : null;
        }),
      );
      const leads = answers.filter((id): id is number => id !== null);
      // Never one contact held by two managers at once.
      expect(new Set(leads).size, `round ${round}: ${answers.join(", ")}`).toBe(leads.length);
      for (const id of leads) handed(id, round);
      managers.forEach((m, i) => (m.lead = answers[i]));
      const held = await t.db
        .select({ id: contacts.id, heldBy: contacts.heldBy })
        .from(contacts)
        .where(and(eq(contacts.databaseId, baseId), isNotNull(contacts.heldBy)));
      expect(Object.fromEntries(held.map((h) => [h.heldBy, h.id]))).toEqual(
        Object.fromEntries(managers.filter((m) => m.lead !== null).map((m) => [m.id, m.lead])),
      );
      // A minute passes.
      await t.db.execute(
        sql`update contacts set status_at = status_at - interval '1 minute' where database_id = ${baseId} and status_at is not null`,
      );
    }

    // Each callback inside its client's hours was handed out once, and the database says to whom.
    const callbackContacts = idsOf("callback");
    expect(Object.fromEntries(callbackContacts.map((id) => [id, callbackHandouts.get(id) ?? 0]))).toEqual(
      Object.fromEntries(callbackContacts.map((id) => [id, 1])),
    );
    const rowsOfCallbacks = await t.db.select().from(callbacks).where(inArray(callbacks.contactId, callbackIds));
    for (const cb of rowsOfCallbacks) {
      if (kind.get(cb.contactId) === "callback") expect(cb.handedTo).not.toBeNull();
      else expect(cb.handedTo).toBeNull();
    }
    // The mix really happened: retries came back (after their delay), and the fresh contacts were all worked.
    expect(retriesBack).toBeGreaterThan(4);
    const untouched = await t.db
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(inArray(contacts.id, idsOf("fresh")), sql`status_id is null`));
    expect(untouched).toHaveLength(0);
  }, 180_000);
});
