import fs from "node:fs";
import { inject } from "vitest";
import { createDb, type DbHandle } from "../../db/client";
import { withDatabase } from "./global-setup";

let counter = 0;

/**
 * A fresh, migrated database for one test file: a PGlite loaded from the run's snapshot, or (with
 * TEST_DATABASE_URL) a new Postgres database cloned from the migrated template. Closing drops it.
 */
export async function createTestDb(): Promise<DbHandle & { url?: string }> {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const { default: postgres } = await import("postgres");
    const name = `leaddesk_t_${process.ppid}_${process.pid}_${Date.now()}_${counter++}`;
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name} template ${inject("pgTemplate")}`);
    const dbUrl = withDatabase(url, name);
    const handle = await createDb({ databaseUrl: dbUrl, poolSize: 10 });
    const close = handle.close.bind(handle);
    return Object.assign(handle, {
      url: dbUrl,
      async close() {
        await close();
        await admin.unsafe(`drop database if exists ${name} with (force)`);
        await admin.end();
      },
    });
  }
  const snapshot = fs.readFileSync(inject("pgliteSnapshot"));
  return createDb({ dataDir: "memory://", loadDataDir: new Blob([snapshot]) });
}
