import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { MAX_PREPARED_PARAMETERS, queryRows } from "../../db/client";
import { filterRetryRules } from "../../db/schema";
import { claimStatement, workRow, workScope } from "../../server/core/leads/allocation";
import { turnStatement } from "../../server/core/leads/record-status";
import { freshTier, retryTier, TIER_ORDER } from "../../server/core/leads/tiers";
import { clockIn } from "../helpers/zones";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { DEFAULT_CALLING_HOURS } from "../../server/core/filters/calling-hours";

const t = useTestApp();
/**
 * `managers` managers work one filter at once through the API: each takes a lead, then presses a status
 * `turns` times (each press answers the next lead). Returns every lead each manager was handed.
 */
async function workInParallel(managers: number, turns: number, extra: number) {
  const { base } = await createBase(t.db, { count: managers * (turns + 1) + extra });
  const s = await statusesByText(t.db);
  const people = await Promise.all(Array.from({ length: managers }, () => createUser(t.db)));
  const filter = await createFilterRow(t.db, {
    managerIds: people.map((p) => p.user.id),
    databaseIds: [base.id],
    statusIds: [s["Перезвонить"].id],
  });
  const tokens = await Promise.all(people.map((p) => t.tokenFor(p)));
  const handed = await Promise.all(
    people.map(async (person, i) => {
      const auth = bearer(tokens[i]);
      const seen: number[] = [];
      let lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${person.user.id}`).set(auth);
      expect(lead.status).toBe(200);
      for (let turn = 0; turn < turns; turn++) {
        seen.push(lead.body.id);
        lead = await t.request.put("/api/v1/status/update-and-get-lead").set(auth).send({
          statusText: "Отказ",
          contactId: lead.body.id,
          userId: person.user.id,
          passport: "",
          filterId: filter.id,
          clientInfo: "",
        });
        expect(lead.status).toBe(200);
      }
      seen.push(lead.body.id);
      return { userId: person.user.id, seen };
    }),
  );
  return { base, handed, people };
}

async function checkCounts(baseId: number, managers: number, turns: number, extra: number, handed: Array<{ seen: number[] }>) {
  const all = handed.flatMap((h) => h.seen);
  // Every manager got turns + 1 leads, and no contact was handed to two managers (or twice to one).
  expect(all).toHaveLength(managers * (turns + 1));
  expect(new Set(all).size).toBe(all.length);

  const [counts] = await queryRows<{ events: string; contacts: string; worked: string; held: string; holders: string; free: string; twice: string }>(
    t.db,
    sql`select
      (select count(*) from lead_events where database_id = ${baseId}) as events,
      (select count(distinct contact_id) from lead_events where database_id = ${baseId}) as contacts,
      (select count(*) from contacts where database_id = ${baseId} and status_id is not null) as worked,
      (select count(*) from contacts where database_id = ${baseId} and held_by is not null) as held,
      (select count(distinct held_by) from contacts where database_id = ${baseId} and held_by is not null) as holders,
      (select count(*) from contacts where database_id = ${baseId} and status_id is null and held_by is null) as free,
      (select count(*) from (select contact_id from lead_events where database_id = ${baseId}
         group by contact_id having count(*) > 1) twice) as twice`,
  );
  expect(Number(counts.events)).toBe(managers * turns);
  expect(Number(counts.contacts)).toBe(managers * turns);
  expect(Number(counts.worked)).toBe(managers * turns);
  expect(Number(counts.held)).toBe(managers);
  expect(Number(counts.holders)).toBe(managers);
  expect(Number(counts.free)).toBe(extra);
  expect(Number(counts.twice)).toBe(0);
}

describe("allocation under load", () => {
  it("8 managers working at once never share a contact, and the counts add up", async () => {
    const { base, handed } = await workInParallel(8, 10, 7);
    await checkCounts(base.id, 8, 10, 7, handed);
  });

  it("the press's turn is a statement the planner reads in a few hundred init plans, not thousands", async () => {
    // Planned anew at every press on PGlite (no prepared plans there): written with the calling-hours rule's inputs
    // spelled out at each use, it was 82 KB and ~1,900 init plans, and the paint bench's turn went from 19 to 67 ms.
    const turn = turnStatement({
      presser: { userId: 1, filterId: 1 },
      contactId: 1,
      status: { text: "Не интересно" },
      clientInfo: "",
      withPassport: false,
      holdMinutes: 30,
    });
    const plan = await queryRows<Record<string, unknown>>(t.db, sql`explain ${turn}`);
    const initPlans = plan.filter((row) => /InitPlan/.test(String(Object.values(row)[0]))).length;
    expect(initPlans).toBeGreaterThan(50);
    expect(initPlans).toBeLessThan(400);
    expect(new PgDialect().sqlToQuery(turn).sql.length).toBeLessThan(64_000);
  });

  it("the press's turn and the first lead's claim are prepared on Postgres, from the API and from the lead panel", () => {
    // Past MAX_PREPARED_PARAMETERS a statement is parsed and planned at each run: the turn once took 124 parameters
    // (the contact limits' units and the user and topic at each use), and the leads bench fell from 241 to ~60 turns/s.
    const press = { contactId: 1, status: { text: "Не интересно" }, clientInfo: "", withPassport: false, holdMinutes: 30, panelView: true };
    for (const presser of [{ userId: 1, filterId: 1 }, { session: "token" }]) {
      const { params } = new PgDialect().sqlToQuery(turnStatement({ ...press, presser }));
      expect(params.length).toBeGreaterThan(10);
      expect(params.length).toBeLessThanOrEqual(MAX_PREPARED_PARAMETERS);
    }
    // The claim outside a press once wrote the calling-hours rule's inputs at each use: 816 parameters.
    const work = { filterId: 1, databaseIds: [1, 2, 3], statusIds: [4, 5], hours: DEFAULT_CALLING_HOURS };
    expect(new PgDialect().sqlToQuery(claimStatement(1, 30, work)).params.length).toBeLessThanOrEqual(MAX_PREPARED_PARAMETERS);
  });

  it.runIf(process.env.TEST_DATABASE_URL)("the app's Postgres connections compile no JIT code", async () => {
    // The turn's never-run tiers are estimated past jit_above_cost on a base of 100,000 contacts: with JIT on, each
    // press spent 2.7-4 s compiling its expressions.
    const [row] = await queryRows<{ jit: string }>(t.db, sql`show jit`);
    expect(row.jit).toBe("off");
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("allocation on real Postgres", () => {
  it("50 managers claiming 40 leads each in parallel: every contact claimed at most once, counts exact", async () => {
    const { base, handed } = await workInParallel(50, 40, 13);
    await checkCounts(base.id, 50, 40, 13, handed);
  }, 600_000);

  it("claims through indexes with 1,000,000 contacts: no sequential scan of contacts", async () => {
    const bases: number[] = [];
    for (let i = 0; i < 20; i++) bases.push((await createBase(t.db, { count: 0, name: `Большая ${i}` })).base.id);
    const s = await statusesByText(t.db);
    // 1,000,000 contacts in import order; 900,000 of them already worked, spread over two statuses.
    const callBack = s["Перезвонить"].id;
    const refused = s["Отказ"].id;
    await t.db.execute(sql`
      insert into contacts (database_id, name, phone, phone_key, status_id, status_at)
      select ${sql.raw(`(array[${bases.join(",")}])`)}[1 + (g % 20)], 'Клиент ' || g, '+380' || g, '380' || g,
        case when g % 10 = 0 then null when g % 2 = 0 then ${callBack}::int else ${refused}::int end,
        case when g % 10 = 0 then null else now() - make_interval(secs => g) end
      from generate_series(1, 1000000) g`);
    await t.db.execute(sql`analyze contacts`);

    // «Отказ» comes back by a retry rule (decision 057), so the retry tier walks 450,000 candidates.
    const topic = await createFilterRow(t.db, { managerIds: [], databaseIds: bases, statusIds: [callBack, refused] });
    await t.db
      .insert(filterRetryRules)
      .values({ filterId: topic.id, statusId: refused, delayMinutes: 120, maxAttempts: 5, finalStatusId: s["Заявка"].id });
    await t.db.execute(sql`analyze filter_retry_rules`);
    const work = { filterId: topic.id, databaseIds: bases, statusIds: [s["Перезвонить"].id, s["Недозвон"].id], hours: DEFAULT_CALLING_HOURS };
    for (const tier of TIER_ORDER) {
      const plan = await queryRows<Record<string, unknown>>(t.db, sql`explain ${claimStatement(1, 30, work, [tier])}`);
      const text = plan.map((r) => String(Object.values(r)[0])).join("\n");
      expect(text).not.toMatch(/Seq Scan on contacts/);
      expect(text).toMatch(/Index (Only )?Scan|Bitmap Index Scan/);
    }
    // The retry tier walks each base's and rule's rows in the index's order and stops at the first due one: a few
    // hundred pages however many are due (about 450,000 here), not a sort of them all on every claim. Around the
    // clock, so the hour the test runs at never puts every client outside his window.
    const allDay = { ...work, hours: { ...DEFAULT_CALLING_HOURS, from: "00:00", until: "00:00" } };
    const retryPlan = await queryRows<Record<string, unknown>>(
      t.db,
      sql`explain (analyze, buffers) with ${workRow(1, allDay)} select ${retryTier(workScope())}`,
    );
    if (process.env.DEBUG_PLAN) console.log(retryPlan.map((r) => String(Object.values(r)[0])).join("\n"));
    const topBuffers = retryPlan.map((r) => String(Object.values(r)[0])).find((line) => /Buffers: shared/.test(line)) ?? "";
    const pages = [...topBuffers.matchAll(/(?:hit|read)=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
    expect(pages, topBuffers).toBeGreaterThan(0);
    expect(pages, topBuffers).toBeLessThan(2_000);
    // The free claim walks contacts_free_idx in its own order: no sort over the worked rows.
    const freePlan = await queryRows<Record<string, unknown>>(t.db, sql`explain ${claimStatement(1, 30, work, ["fresh"])}`);
    expect(freePlan.map((r) => String(Object.values(r)[0])).join("\n")).toMatch(/contacts_free_idx/);

    // Issue 43: a window closed now in the bases' one zone (the topic's: no contact has his own). The fresh tier
    // reads each base's zones and asks the rule once per zone; it walked all 100,000 free clients, row by row, on
    // every claim (the leads bench's bases asleep: 35,000 rows a turn).
    const asleep = {
      ...work,
      hours: { ...DEFAULT_CALLING_HOURS, from: clockIn(DEFAULT_CALLING_HOURS.timeZone, 120), until: clockIn(DEFAULT_CALLING_HOURS.timeZone, 180) },
    };
    const [{ free }] = await queryRows<{ free: number }>(
      t.db,
      sql`select count(*)::int as free from contacts where database_id = any(${`{${bases.join(",")}}`}::int[]) and status_id is null`,
    );
    expect(free).toBe(100_000);
    const asleepPlan = await queryRows<Record<string, unknown>>(
      t.db,
      sql`explain (analyze, buffers) with ${workRow(1, asleep)} select ${freshTier(workScope())} as id`,
    );
    const asleepText = asleepPlan.map((r) => String(Object.values(r)[0])).join("\n");
    if (process.env.DEBUG_PLAN) console.log(asleepText);
    const asleepPages = [...(asleepText.match(/Buffers: shared[^\n]*/)?.[0] ?? "").matchAll(/(?:hit|read)=(\d+)/g)].reduce(
      (sum, m) => sum + Number(m[1]),
      0,
    );
    expect(asleepPages, asleepText.slice(0, 2_000)).toBeGreaterThan(0);
    expect(asleepPages, asleepText.slice(0, 2_000)).toBeLessThan(300);
    const [{ id }] = await queryRows<{ id: string | null }>(t.db, sql`with ${workRow(1, asleep)} select ${freshTier(workScope())} as id`);
    expect(id).toBeNull();
  }, 600_000);
});
