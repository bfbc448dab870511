import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { startEmbeddedVacuum } from "../../server/jobs/embedded-vacuum";
import { useTestApp } from "../helpers/app";
import { createBase, statusesByText } from "../helpers/leads";

/**
 * The embedded database has no autovacuum: the dead rows of status presses stay unless the app vacuums them
 * itself, small tables at once and large ones in a quiet moment (decision 045). On Postgres the job does nothing.
 */
const t = useTestApp();
const deadRows = async (table: string) => {
  await t.db.execute(sql`select pg_stat_force_next_flush()`);
  const [row] = await queryRows<{ dead: string | number }>(t.db, sql`select n_dead_tup as dead from pg_stat_user_tables where relname = ${table}`);
  return Number(row?.dead ?? 0);
};

describe("vacuum of the embedded database", () => {
  it("reclaims the dead rows of status presses; a large table waits for a quiet moment", async () => {
    let busy = true;
    const job = startEmbeddedVacuum(t.handle, { checkMs: 3_600_000, largeRows: 1000, quietFor: () => (busy ? 0 : 60_000) });
    try {
      const { base } = await createBase(t.db, { count: 600, name: "Обзвон" });
      const s = await statusesByText(t.db);
      // Presses: every contact gets a status, then another one (each update leaves a dead row).
      for (const status of ["Отказ", "Перезвонить"]) {
        await t.db.execute(sql`update contacts set status_id = ${s[status].id} where database_id = ${base.id}`);
      }
      if (t.handle.kind !== "pglite") {
        expect(await job.tick()).toBeNull();
        return;
      }
      expect(await deadRows("contacts")).toBeGreaterThanOrEqual(1200);
      // Small (600 live rows): vacuumed at once, busy or not.
      const first = await job.tick();
      expect(first).toMatchObject({ table: "contacts" });
      expect(first!.deadRows).toBeGreaterThanOrEqual(1200);
      expect(await deadRows("contacts")).toBe(0);

      // Large: 3,000 more contacts, then a press for each; the app is busy, so the table waits.
      await createBase(t.db, { count: 3000, name: "Большая" });
      await t.db.execute(sql`update contacts set status_id = ${s["Отказ"].id} where status_id is null`);
      expect(await deadRows("contacts")).toBeGreaterThanOrEqual(3000);
      expect(await job.tick()).toBeNull();
      expect(await deadRows("contacts")).toBeGreaterThanOrEqual(3000);
      busy = false;
      const second = await job.tick();
      expect(second).toMatchObject({ table: "contacts" });
      expect(second!.ms).toBeGreaterThan(0);
      expect(await deadRows("contacts")).toBe(0);
      // Nothing left to do.
      expect(await job.tick()).toBeNull();
    } finally {
      job.stop();
    }
  });
});
