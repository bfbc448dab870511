import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import postgres from "postgres";
import { ensureBuild, freePort, median, PG_URL, printTable, withDatabase, type Row } from "./lib";
import { APP_COMMAND } from "../server/heap";

const RUNS = Number(process.env.BENCH_RUNS || 5);

/** Milliseconds from spawning `node server/main.ts` to the first 200 on /auth. */
async function timeToFirstAuth(env: Record<string, string>): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, APP_COMMAND, {
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", LOG_LEVEL: "error" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the app exited with ${child.exitCode}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/auth`);
        if (res.status === 200) return performance.now() - started;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 25));
      if (performance.now() - started > 60_000) throw new Error("no answer within 60 s");
    }
  } finally {
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
  }
}

/** The floor: a bare Node process with the same loader, start to exit. */
function bareNode(): number {
  const started = performance.now();
  spawnSync(process.execPath, ["--import", "tsx", "-e", "0"]);
  return performance.now() - started;
}

/** Start-up time of the real server on both backends, against a bare Node start in the same run. */
async function main() {
  ensureBuild();
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
