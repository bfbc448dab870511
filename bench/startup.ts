import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { buildPages, startApp } from "./app";
import { median, PG_URL, printTable, withDatabase, type Row } from "./lib";

const RUNS = Number(process.env.BENCH_RUNS || 5);

/** Milliseconds from spawning the app (`node server/main.ts`, as npm start runs it) to the first 200 on /auth. */
async function timeToFirstAuth(env: Record<string, string>): Promise<number> {
  const app = await startApp({ env: { ...env, LOG_LEVEL: "error" }, readyPath: "/auth" });
  await app.stop();
  return app.readyMs;
}

/** The floor: a bare Node process with the same loader, start to exit. */
function bareNode(): number {
  const started = performance.now();
  spawnSync(process.execPath, ["--import", "tsx", "-e", "0"]);
  return performance.now() - started;
}

/** Start-up time of the real server on both backends, against a bare Node start in the same run. */
async function main() {
  buildPages("startup");
  const baseline = median(Array.from({ length: RUNS }, bareNode));
  const rows: Row[] = [];
  const add = (what: string, samples: number[]) =>
    rows.push({
      measurement: what,
      runs: samples.length,
      "median ms": Math.round(median(samples)),
      "bare node ms": Math.round(baseline),
      ratio: median(samples) / baseline,
    });

  // PGlite: a fresh data directory (migrations and first-start seeding included), then reopening it.
  const fresh: number[] = [];
  const reopen: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-bench-"));
    fresh.push(await timeToFirstAuth({ DATA_DIR: dir, DATABASE_URL: "" }));
    reopen.push(await timeToFirstAuth({ DATA_DIR: dir, DATABASE_URL: "" }));
    fs.rmSync(dir, { recursive: true, force: true });
  }
  add("start → first 200 on /auth, PGlite, new DATA_DIR", fresh);
  add("start → first 200 on /auth, PGlite, existing DATA_DIR", reopen);

  // Postgres: a new database (migrated and seeded at start), then the same database again.
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  try {
    await admin`select 1`;
    const pgFresh: number[] = [];
    const pgWarm: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const name = `leaddesk_bench_start_${process.pid}_${i}`;
      await admin.unsafe(`create database ${name}`);
      const url = withDatabase(PG_URL, name);
      pgFresh.push(await timeToFirstAuth({ DATABASE_URL: url }));
      pgWarm.push(await timeToFirstAuth({ DATABASE_URL: url }));
      await admin.unsafe(`drop database ${name} with (force)`);
    }
    add("start → first 200 on /auth, Postgres, new database", pgFresh);
    add("start → first 200 on /auth, Postgres, migrated database", pgWarm);
  } catch (error) {
    rows.push({ measurement: `Postgres skipped: ${(error as Error).message}`, runs: 0 });
  } finally {
    await admin.end();
  }
  printTable("Start-up (median; ratio to a bare `node --import tsx` start in the same run)", rows);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
