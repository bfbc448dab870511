import fs from "node:fs";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { createDb, queryRows, type DbHandle } from "../../db/client";
import { seed } from "../../server/seed";
import { exports as exportJobs, users } from "../../db/schema";
import { createExport } from "../../server/core/exports/exports";
import { claimNextExport, runExportJob } from "../../server/core/exports/run";
import { processPayout } from "../../server/core/money/payouts";
import { createBase, statusesByText } from "../helpers/leads";
import { pressStatus, sendReport, setRatesCents } from "../helpers/money";
import { ADMIN, api, createPgDatabase, login, runOpsTool, startServer, tableChecksums, tempDataDir } from "./server";
import { onPostgres } from "../helpers/backends";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** An embedded database as a small call centre grows out of it: 100,000 contacts, status presses, payouts, an export. */
async function grownDataDir(): Promise<string> {
  const dataDir = path.join(tempDataDir("leaddesk-migrate-"), "data");
  cleanups.push(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));
  const handle = await createDb({ dataDir });
  try {
    await handle.migrate();
    await seed(handle.db, { login: ADMIN.login, password: ADMIN.password, accessKey: ADMIN.accessKey });
    const [admin] = await handle.db.select().from(users).where(eq(users.login, ADMIN.login));
    const actor = { id: admin.id, login: admin.login, isAdmin: true };
    const { base } = await createBase(handle.db, { count: 100_000 });
    const [manager] = await handle.db.insert(users).values({ login: "olga", displayName: "Ольга", passwordHash: "x", accessKey: "K" }).returning();
    await setRatesCents(handle.db, 1500, 700);
    for (let i = 0; i < 40; i++) await sendReport(handle.db, manager.id, { withPassport: i % 2 === 0, text: `Заявка ${i}` });
    for (let i = 0; i < 200; i++) await pressStatus(handle.db, { userId: manager.id, statusText: "Отказ", databaseId: base.id });
    await processPayout(handle.db, actor, { userId: manager.id, amount: "100" });
    const s = await statusesByText(handle.db);
    const job = await createExport(handle.db, actor, { name: "Выгрузка", databaseIds: [base.id], statusIds: [s["Отказ"].id] });
    const claimed = await claimNextExport(handle.db, "test", 60);
    expect(claimed?.id).toBe(job.id);
    await runExportJob(handle.db, claimed!, "test", 60, () => false);
    const [done] = await handle.db.select().from(exportJobs).where(eq(exportJobs.id, job.id));
    expect(done.progress).toBe(100);
  } finally {
    await handle.close();
  }
  return dataDir;
}

async function readAll(target: { dataDir?: string; databaseUrl?: string }, read: (handle: DbHandle) => Promise<unknown>) {
  const handle = await createDb({ ...target, poolSize: 1 });
  try {
    return await read(handle);
  } finally {
    await handle.close();
  }
}

const sequences = (handle: DbHandle) =>
  queryRows<{ name: string; value: string | null }>(
    handle.db,
    sql`select sequencename as name, last_value::text as value from pg_sequences where schemaname = 'public' order by 1`,
  );

describe.runIf(onPostgres)("npm run migrate-to-postgres (needs a Postgres server: runs with TEST_DATABASE_URL)", { timeout: 1_200_000 }, () => {
  it("moves 100,000 contacts with events, payouts and an export: every table and sequence equal, and the app serves from Postgres", async () => {
    const dataDir = await grownDataDir();
    const target = await createPgDatabase("migrate_to_pg", { empty: true });
    cleanups.push(() => target.drop());

    // Not while the app holds the folder: what it wrote after the copy would stay behind.
    const holder = await createDb({ dataDir });
    const busy = await runOpsTool("migrate-to-postgres-cli", [], { dataDir, databaseUrl: target.url });
    await holder.close();
    expect(busy.code).toBe(1);
    expect(busy.output).toContain("Остановите приложение на время переноса");

    const moved = await runOpsTool("migrate-to-postgres-cli", [], { dataDir, databaseUrl: target.url });
    expect(moved.output).toMatch(/Перенесено из .* в Postgres: таблиц \d+, строк \d+/);
    expect(moved.output).toContain("Оставьте DATABASE_URL в файле настроек приложения");
    expect(moved.code).toBe(0);

    const source = (await readAll({ dataDir }, async (h) => [await tableChecksums(h.db), await sequences(h)])) as unknown[];
    const copied = (await readAll({ databaseUrl: target.url }, async (h) => [await tableChecksums(h.db), await sequences(h)])) as unknown[];
    expect(copied).toEqual(source);
    const [checksums] = copied as [Record<string, { rows: number }>];
    expect(checksums.contacts.rows).toBe(100_000);
    expect(checksums.lead_events.rows).toBe(240);
    expect(checksums.payments.rows).toBe(1);

    // Into a database that is no longer empty: refused, nothing changed.
    const again = await runOpsTool("migrate-to-postgres-cli", [], { dataDir, databaseUrl: target.url });
    expect(again.code).toBe(1);
    expect(again.output).toContain("База данных не пуста");
    expect(again.output).toContain("Перенос делается только в новую пустую базу");

    // The app on the new database: the data is there and new rows continue the sequences.
    const server = await startServer({ databaseUrl: target.url });
    try {
      const token = await login(server, ADMIN);
      const bases = await api(server, "GET", "/database", { token });
      expect(bases.status).toBe(200);
      expect(bases.body.map((base: { contactsCount: number }) => base.contactsCount)).toEqual([100_000]);
      const created = await api(server, "POST", "/auth/register", {
        token,
        body: { login: "newcomer", password: "Newcomer-pass-1", displayName: "Новенький" },
      });
      expect(created.status).toBe(201);
      expect(created.body.id).toBeGreaterThan(2); // after the admin and the manager the source had
    } finally {
      await server.stop();
    }
  });
});
