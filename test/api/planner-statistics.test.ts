import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { claimStatement } from "../../server/core/leads/allocation";
import { startPlannerStatistics } from "../../server/jobs/planner-statistics";
import { useTestApp } from "../helpers/app";
import { createBase, statusesByText } from "../helpers/leads";
import { DEFAULT_CALLING_HOURS } from "../../server/core/filters/calling-hours";

/**
 * The embedded database has no autovacuum: without the job its tables are never analysed and the lead turn's
 * expired-hold tier walks every contact (bench/capacity.ts, decision 041). On Postgres the job does nothing.
 */
const t = useTestApp();
const planOf = async (query: ReturnType<typeof claimStatement>) =>
  (await queryRows<Record<string, unknown>>(t.db, sql`explain ${query}`)).map((r) => String(Object.values(r)[0])).join("\n");

describe("planner statistics", () => {
  it("on PGlite: analysed after an import grows the contacts, so the expired-hold tier reads its index; on Postgres autovacuum's job", async () => {
    const job = startPlannerStatistics(t.handle, { checkMs: 3_600_000 });
    try {
      const { base } = await createBase(t.db, { count: 0, name: "Большая" });
      const s = await statusesByText(t.db);
      await t.db.execute(sql`
        insert into contacts (database_id, name, phone, phone_key, status_id)
        select ${base.id}, 'Клиент ' || g, '+380' || g, '380' || g, case when g % 2 = 0 then ${s["Отказ"].id}::int end
        from generate_series(1, 30000) g`);
      const expiredHold = claimStatement(1, 30, { filterId: 0, databaseIds: [base.id], statusIds: [], hours: DEFAULT_CALLING_HOURS }, [
        "expiredHold",
      ]);
      const heldIndex = /Index Scan using contacts_held_(by|until)_idx on contacts/;
      // Before the tick the planner has no figures for the new rows and walks the contacts another way (not
      // asserted: the app's own job may tick meanwhile on a slow machine).
      const analysed = await job.tick();
      const [{ tuples }] = await queryRows<{ tuples: number }>(t.db, sql`select reltuples as tuples from pg_class where relname = 'contacts'`);
      if (t.handle.kind === "pglite") {
        expect(analysed).toBe(true);
        expect(Number(tuples)).toBeGreaterThan(25_000);
        expect(await planOf(expiredHold)).toMatch(heldIndex);
        // Nothing grew since: not analysed again until the hourly refresh.
        expect(await job.tick()).toBe(false);
      } else {
        expect(analysed).toBe(false);
      }
    } finally {
      job.stop();
    }
  });
});
