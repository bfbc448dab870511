import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { createDb, queryRows } from "../../db/client";
import { turnStatement } from "../../server/core/leads/record-status";
import { median } from "../lib";
import { seedLeadWorld } from "../lead-world";

/**
 * The lead turn's statement as the planner sees it: its text's length, its init plans and subplans, and the time
 * PGlite takes to plan it (what the first runs of a prepared statement pay, before Postgres keeps a generic plan:
 * decision 084), on a small lead world. The statement grew once to 82 KB and ~1,900 init plans unnoticed (decision 082): run this
 * before and after a change to the turn.
 *
 *   node --import tsx bench/tools/turn-plan.ts
 */
const handle = await createDb({ dataDir: "memory://" });
const { filterId, agents } = await seedLeadWorld(handle, { contacts: 2000, doNotCall: 100, callbacks: 10, managers: 5 });
const turn = turnStatement({
  presser: { userId: agents[0].userId, filterId },
  contactId: agents[0].leadId || 1,
  status: { text: "Не интересно" },
  clientInfo: "",
  withPassport: false,
  holdMinutes: 30,
});
const times: number[] = [];
let plan = "";
for (let i = 0; i < 15; i++) {
  const rows = await queryRows<Record<string, string>>(handle.db, sql`explain (summary on) ${turn}`);
  plan = rows.map((row) => Object.values(row)[0]).join("\n");
  times.push(Number(/Planning Time: ([\d.]+)/.exec(plan)?.[1]));
}
const count = (what: RegExp) => (plan.match(what) ?? []).length;
console.log(
  `turn statement: ${new PgDialect().sqlToQuery(turn).sql.length} characters, ${count(/InitPlan/g)} init plans, ` +
    `${count(/SubPlan/g)} subplans; PGlite plans it in ${median(times).toFixed(1)} ms (median of 15, min ${Math.min(...times).toFixed(1)})`,
);
await handle.close();
