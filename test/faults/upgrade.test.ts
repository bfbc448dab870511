import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { createDb, queryRows, type Db } from "../../db/client";
import { passwordHint } from "../../common/credentials";
import { hashPassword } from "../../server/auth/password";
import { migrationJournal, migrationsUpTo } from "../../server/ops/migrations";
import { ADMIN, api, createPgDatabase, login, startServer, tempDataDir, type ServerProcess } from "./server";
import { onPostgres } from "../helpers/backends";

/**
 * Upgrade from the first landed version: a database with only migration 0000's schema and rows written in it,
 * then the current code started on it. Every migration since applies, every row keeps its values, the app serves.
 */
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function emptyTarget(): Promise<{ databaseUrl?: string; dataDir?: string }> {
  if (!onPostgres) {
    const dataDir = tempDataDir("leaddesk-upgrade-");
    cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    return { dataDir };
  }
  const database = await createPgDatabase(`upgrade`, { empty: true });
  cleanups.push(() => database.drop());
  return { databaseUrl: database.url };
}

/** Each table's rows as text over the columns it had in the first schema, sorted: what must survive. */
async function rowsOver(db: Db, columns: Record<string, string[]>): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, cols] of Object.entries(columns)) {
    const list = cols.map((c) => `t."${c}"`).join(", ");
    const rows = await queryRows<{ r: string }>(db, sql.raw(`select row(${list})::text as r from "${table}" t order by 1`));
    out[table] = rows.map((row) => row.r);
  }
  return out;
}

describe("upgrade from the first landed schema", { timeout: 240_000 }, () => {
  it("the current code migrates a 0000 database, keeps every row and serves it", async () => {
    const target = await emptyTarget();
    const first = migrationsUpTo(1);
    cleanups.push(() => first.remove());
    const handle = await createDb({ ...target, poolSize: 2 });
    await handle.migrate(first.folder);
    const db = handle.db;
    const hash = await hashPassword(ADMIN.password);
    const managerPassword = "Old-manager-pass-1";
    await db.execute(sql`insert into settings (id, default_info, rate_with_passport_cents) values (1, 'Старые сведения', 1500)`);
    await db.execute(sql`insert into users (login, password_hash, password_hint, display_name, access_key, is_admin)
      values (${ADMIN.login}, ${hash}, ${passwordHint(ADMIN.password)}, 'Старый админ', ${ADMIN.accessKey}, true),
             ('oldmanager', ${await hashPassword(managerPassword)}, ${passwordHint(managerPassword)}, 'Старый менеджер', 'OLDMANAGERKEY001', false)`);
    await db.execute(sql`insert into statuses (text, button_text, is_technical, is_report_status, sort_order)
      values ('Недозвон', 'Недозвон', true, false, 0), ('Заявка', 'Заявка', false, true, 1)`);
    await db.execute(sql`insert into databases (name, contacts_count) values ('Старая база', 3)`);
    await db.execute(sql`insert into contacts (database_id, name, phone, phone_key, city, status_id, status_at, last_user_id)
      values (1, 'Иван Старый', '+380631112233', '380631112233', 'Киев', 2, now(), 2),
             (1, 'Пётр Старый', '+380631112234', '380631112234', '', null, null, null),
             (1, 'Анна Старая', '+380631112235', '380631112235', 'Львов', 1, now(), 2)`);
    await db.execute(sql`insert into lead_events (contact_id, database_id, user_id, status_id, status_text, is_report, with_passport)
      values (1, 1, 2, 2, 'Заявка', true, true), (3, 1, 2, 1, 'Недозвон', false, false)`);
    await db.execute(sql`insert into payments (user_id, amount_cents) values (2, 1500)`);
    // The first schema's columns of every table that holds rows now.
    const columns: Record<string, string[]> = {};
    for (const table of ["settings", "users", "statuses", "databases", "contacts", "lead_events", "payments"]) {
      const cols = await queryRows<{ name: string }>(
        db,
        sql`select column_name as name from information_schema.columns where table_schema = 'public' and table_name = ${table} order by ordinal_position`,
      );
      columns[table] = cols.map((c) => c.name);
    }
    const before = await rowsOver(db, columns);
    await handle.close();

    // First start of the current code: it migrates and serves. Stopped before anyone logs in (a login marks
    // the user online), so the rows are compared as the migrations left them.
    const server: ServerProcess = await startServer(target);
    cleanups.push(() => server.kill9());
    const health = await api(server, "GET", "/health");
    expect(health.status).toBe(200);
    expect(health.body.version).toBe(JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../package.json"), "utf8")).version);
    await server.stop();

    const after = await createDb({ ...target, poolSize: 2 });
    try {
      const [applied] = await queryRows<{ n: number }>(after.db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
      expect(Number(applied.n)).toBe(migrationJournal().length);
      expect(await rowsOver(after.db, columns)).toEqual(before);
    } finally {
      await after.close();
    }

    // The old users log in; the old statuses are the statuses (the seed added none to a non-empty table).
    const again: ServerProcess = await startServer(target);
    cleanups.push(() => again.kill9());
    const admin = await login(again, ADMIN);
    await login(again, { login: "oldmanager", password: managerPassword, accessKey: "OLDMANAGERKEY001" });
    const statuses = await api(again, "GET", "/status", { token: admin });
    expect(statuses.status).toBe(200);
    expect((statuses.body as Array<{ text: string }>).map((s) => s.text).sort()).toEqual(["Заявка", "Недозвон"]);
    await again.stop();
  });
});
