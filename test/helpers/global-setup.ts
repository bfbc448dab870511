import { sql } from "drizzle-orm";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { createDb, type DbHandle } from "../../db/client";
import { fillPublicHolidays } from "../../server/core/filters/holidays";

declare module "vitest" {
  export interface ProvidedContext {
    /** PGlite mode: a migrated data directory dump every test file starts from. */
    pgliteSnapshot: string;
    /** Postgres mode: the migrated template database each test file clones. */
    pgTemplate: string;
  }
}

/**
 * Migrates once per run. PGlite: a dump of a migrated data directory (loading it takes ~0.5 s instead of ~3 s).
 * Postgres (TEST_DATABASE_URL): a migrated template database; each test file gets its own clone.
 */
export default async function setup(project: TestProject) {
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const { default: postgres } = await import("postgres");
    const admin = postgres(url, { max: 1, onnotice: () => {} });
    const template = `leaddesk_tpl_${process.pid}_${Date.now()}`;
    await admin.unsafe(`create database ${template}`);
    const handle = await createDb({ databaseUrl: withDatabase(url, template), poolSize: 2 });
    await handle.migrate();
    await aroundTheClock(handle);
    await handle.close();
    project.provide("pgTemplate", template);
    project.provide("pgliteSnapshot", "");
    return async () => {
      const leftovers = await admin<{ datname: string }[]>`
        select datname from pg_database where datname like ${`leaddesk_t_${process.pid}_%`} or datname = ${template}`;
      for (const { datname } of leftovers) await admin.unsafe(`drop database if exists ${datname} with (force)`);
      await admin.end();
    };
  }

  const handle = await createDb({ dataDir: "memory://" });
  await handle.migrate();
  await aroundTheClock(handle);
  const blob = await handle.dumpDataDir!();
  const file = path.join(os.tmpdir(), `leaddesk-snapshot-${process.pid}.tar.gz`);
  fs.writeFileSync(file, Buffer.from(await blob.arrayBuffer()));
  await handle.close();
  project.provide("pgliteSnapshot", file);
  project.provide("pgTemplate", "");
  return () => fs.rmSync(file, { force: true });
}

/**
 * A topic's calling window defaults to 09:00-21:00 (decision 050); in the test databases a topic made without one
 * calls around the clock, so no test's outcome depends on the hour it runs (a weekend window, null, is the same, and
 * so holidays change nothing). Tests of calling hours set them.
 */
async function aroundTheClock(handle: DbHandle) {
  // The public holidays (decision 076), filled once here so that no test app computes them again at its start.
  await fillPublicHolidays(handle.db);
  await handle.db.execute(sql`alter table filters alter column calls_from set default '00:00', alter column calls_until set default '00:00'`);
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}
