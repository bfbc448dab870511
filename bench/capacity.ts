import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { createDb, queryRows } from "../db/client";
import { importRows, uploadImport, writeImportXlsx } from "./import-file";
import { driveInWorker } from "./lead-driver";
import type { Agent } from "./lead-driver";
import { checkLeadWorld, driveFloor, seedLeadWorld } from "./lead-world";
import { buildPages, startApp } from "./app";
import { benchAdminAuthorization, httpJson, machineBusyMs, median, percentile, printTable, processCpu, processMemoryMb, type Row } from "./lib";

/**
 * Issue 19: how many managers the embedded database serves. The lead turn (update-and-get-lead) over HTTP on
 * PGlite, served as `npm start` serves it: the app's own process (APP_COMMAND: `node --max-semi-space-size=4 --import tsx server/main.ts`, NODE_ENV
 * production, request logs at the default level, to /dev/null here) on a DATA_DIR, the database inside that process.
 * - closed loop: 20 and 50 managers pressing again as soon as answered: the most turns/s it gives;
 * - open loop: 50 and 100 managers each pressing about every 2 s (25 and 50 turns/s offered): p50 and p99. A real
 *   manager presses every 30-120 s (a call, the client card), so these are stress figures;
 * - after every run (the app stopped, its DATA_DIR opened here): no manager holding two contacts, no contact with
 *   two events for one press, no number of the do-not-call list handed out.
 * The world is bench/lead-world.ts's, sized for an embedded installation: 200,000 contacts over 20 bases (two
 * 100,000-row imports; 50 managers at 200-400 contacts a day each work through that in two to four weeks, which is
 * when a centre that keeps growing should be on Postgres), a 100,000-number do-not-call list (a list's size does not
 * follow the centre's) and 2,000 pending callbacks (1% of the contacts, the Postgres bench's share).
 * - the floor: the turn's statements (session lookup, turnStatement) straight on PGlite in this process, with no HTTP
 *   and no app around them; "ratio to floor" says how much of the database's pace the app keeps.
 * The database is as the app keeps it: PGlite runs no autovacuum, so the app analyses it itself when it starts
 * and after the contacts grow (server/jobs/planner-statistics.ts, decision 041; before that, every turn cost 4 to 5
 * times as much, docs/benchmarks.md's run of 2026-11-24 09:38).
 * The app restarts for each run (a warm-up run first): the columns are the app process's own, CPU from
 * /proc/<pid>/stat and peak RSS (VmHWM) since its start. The machine is shared: "others' cores busy" is the CPU the
 * rest of the machine used during the run (/proc/stat less the app and this process), in cores, and the 1-minute
 * load average is read as the run ends (this bench's own two busy threads are in it). The managers run in a worker thread of this process
 * (bench/lead-driver.ts, the same driver as bench/leads.ts): their CPU is the "driver" column, on the same cores.
 *
 * Then what an admin's work costs the managers (second table): one more app start, the closed loop of BUSY_MANAGERS
 * managers three times in a row, alone, during exports of 100,000 contacts (ten of the bases, every status and
 * none; one export after another through /api/v1 for the whole run) and during imports of a 100,000-row .xlsx (8
 * columns, one after another as new bases, through /api/v1/database/import). The job columns say how many jobs
 * ran or finished in the window and how long a finished one took. BENCH_BUSY=0 leaves this part out,
 * BENCH_CAPACITY_ONLY=busy runs it alone.
 */
const CONTACTS = Number(process.env.BENCH_CONTACTS || 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS || 30);
const DO_NOT_CALL = Number(process.env.BENCH_DO_NOT_CALL || 100_000);
const CALLBACKS = Number(process.env.BENCH_CALLBACKS ?? 2_000);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 3);
const BUSY = process.env.BENCH_BUSY !== "0";
const BUSY_MANAGERS = Number(process.env.BENCH_BUSY_MANAGERS || 20);
const BUSY_ROWS = Number(process.env.BENCH_BUSY_ROWS || 100_000);
const LOADS: Array<{ mode: "closed" | "open"; managers: number }> = [
  { mode: "closed", managers: 20 },
  { mode: "closed", managers: 50 },
  { mode: "open", managers: 50 },
  { mode: "open", managers: 100 },
];

/** The loads, each on a freshly started app, then the floor; rows labelled with the statistics the tables had. */
async function measure(dataDir: string, filterId: number, agents: Agent[], statistics: string): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { mode, managers } of LOADS) {
    const app = await startApp({ env: { DATA_DIR: dataDir, DATABASE_URL: "" } });
    let latencies: number[];
    let appCpuMs: number;
    let driverCpuMs: number;
    let peakRss: number;
    let othersMs: number;
    let wallMs: number;
    try {
      const base = `${app.origin}/api/v1`;
      // Warm-up, not measured: a server that has run for a while has its code compiled and its plans cached.
      await driveInWorker({ base, filterId, agents: agents.slice(0, 20), mode: "closed", seconds: WARMUP_SECONDS });
      const appBefore = processCpu(app.pid)!.ms;
      const driverBefore = process.cpuUsage();
      const machineBefore = machineBusyMs();
      const started = performance.now();
      ({ latencies } = await driveInWorker({ base, filterId, agents: agents.slice(0, managers), mode, seconds: SECONDS }));
      wallMs = performance.now() - started;
      appCpuMs = processCpu(app.pid)!.ms - appBefore;
      const driver = process.cpuUsage(driverBefore);
      driverCpuMs = (driver.user + driver.system) / 1000;
      othersMs = machineBusyMs() - machineBefore - appCpuMs - driverCpuMs;
      peakRss = processMemoryMb(app.pid).peak;
    } finally {
      await app.stop();
    }
    const load = os.loadavg()[0];
    const checked = await createDb({ dataDir });
    const c = await checkLeadWorld(checked.db);
    await checked.close();
    const turns = latencies.length;
    rows.push({
      statistics,
      run: mode === "closed" ? `closed loop, ${managers} managers` : `open loop, ${managers} managers, ~2 s apart`,
      "offered turns/s": mode === "closed" ? "as fast as answered" : managers / 2,
      turns,
      "turns/s": turns / SECONDS,
      "p50 ms": median(latencies),
      "p99 ms": percentile(latencies, 99),
      "node CPU ms/turn": appCpuMs / turns,
      "driver CPU ms/turn": driverCpuMs / turns,
      "app peak RSS MB": peakRss,
      "held twice": c.doubleHeld,
      "events twice": c.doubleEvents,
      "do-not-call handed": c.listedHanded,
      "others' cores busy": othersMs / wallMs,
      "load avg 1 min": load,
    });
  }

  // The floor: the turn's statements on PGlite in this process, no HTTP and no app around them, with the closed
  // loop's 50 managers' leads (PGlite runs one statement at a time: they queue as the app's requests do).
  const handle = await createDb({ dataDir });
  const cpu = process.cpuUsage();
  const machine = machineBusyMs();
  const started = performance.now();
  const floorTurns = await driveFloor(handle.db, agents.slice(0, 50), filterId, SECONDS, (statement) => queryRows(handle.db, statement));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  const c = await checkLeadWorld(handle.db);
  await handle.close();
  const floorRate = floorTurns / SECONDS;
  for (const row of rows) row["ratio to floor"] = String(row.run).startsWith("closed") ? Number(row["turns/s"]) / floorRate : "";
  rows.push({
    statistics,
    run: "floor: the turn's statements in one process, 50 managers' leads",
    "offered turns/s": "as fast as answered",
    turns: floorTurns,
    "turns/s": floorRate,
    "node CPU ms/turn": cpuMs / floorTurns,
    "held twice": c.doubleHeld,
    "events twice": c.doubleEvents,
    "do-not-call handed": c.listedHanded,
    "others' cores busy": (machineBusyMs() - machine - cpuMs) / wallMs,
    "load avg 1 min": os.loadavg()[0],
  });
  return rows;
}

interface ExportView {
  id: number;
  isExported: boolean;
  error: string | null;
  rowsTotal?: number;
  startTime: string | null;
  endTime: string | null;
}

/** Runs `job` again and again until `stop` resolves; each finished one's seconds, and how many were started. */
async function repeatUntil(stop: Promise<unknown>, job: (n: number) => Promise<number>): Promise<{ started: number; seconds: number[] }> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const seconds: number[] = [];
  let started = 0;
  while (!stopped) {
    started++;
    const s = await job(started);
    if (!stopped) seconds.push(s);
  }
  return { started, seconds };
}

/** The closed loop alone, during exports and during imports, in one app: turns/s and p99 side by side. */
async function measureBusy(dataDir: string, filterId: number, agents: Agent[]): Promise<Row[]> {
  const file = path.join(dataDir, "..", `capacity-import-${process.pid}.xlsx`);
  await writeImportXlsx(file, importRows(BUSY_ROWS));
  const handle = await createDb({ dataDir });
  const adminAuth = await benchAdminAuthorization(handle.db);
  const bases = await queryRows<{ id: number }>(handle.db, sql`select id from databases order by id limit 10`);
  const [{ count: exportRows }] = await queryRows<{ count: number }>(
    handle.db,
    sql`select count(*)::int as count from contacts where database_id in (select id from databases order by id limit 10)`,
  );
  const statuses = await queryRows<{ id: number }>(handle.db, sql`select id from statuses`);
  await handle.close();

  const app = await startApp({ env: { DATA_DIR: dataDir, DATABASE_URL: "" } });
  const rows: Row[] = [];
  try {
    const base = `${app.origin}/api/v1`;
    await driveInWorker({ base, filterId, agents: agents.slice(0, BUSY_MANAGERS), mode: "closed", seconds: WARMUP_SECONDS });
    const exportJob = async () => {
      const created = await httpJson(`${base}/database/exports`, {
        method: "POST",
        headers: { Authorization: adminAuth },
        body: { name: "Нагрузка", databaseIds: bases.map((b) => b.id), statusIds: [0, ...statuses.map((s) => s.id)] },
      });
      if (created.status !== 201) throw new Error(`export not created: ${created.status} ${created.text}`);
      const { id } = JSON.parse(created.text) as ExportView;
      for (;;) {
        await new Promise((r) => setTimeout(r, 200));
        const list = JSON.parse((await httpJson(`${base}/database/exports`, { headers: { Authorization: adminAuth } })).text) as ExportView[];
        const job = list.find((e) => e.id === id);
        if (!job || job.error) throw new Error(`export ${id} failed: ${job?.error}`);
        if (job.isExported) {
          await httpJson(`${base}/database/exports/${id}`, { method: "DELETE", headers: { Authorization: adminAuth } });
          return (Date.parse(job.endTime!) - Date.parse(job.startTime!)) / 1000;
        }
      }
    };
    const importJob = async (n: number) => {
      const { ms, imported } = await uploadImport(base, adminAuth, file, `Импорт под нагрузкой ${n}`);
      if (imported < BUSY_ROWS * 0.9) throw new Error(`import wrote ${imported} contacts of ${BUSY_ROWS}`);
      return ms / 1000;
    };
    const runs: Array<{ label: string; job?: (n: number) => Promise<number> }> = [
      { label: `closed loop, ${BUSY_MANAGERS} managers, alone` },
      { label: `the same during exports of ${exportRows.toLocaleString("en-US")} contacts`, job: exportJob },
      { label: `the same during imports of ${BUSY_ROWS.toLocaleString("en-US")} rows (.xlsx)`, job: importJob },
    ];
    let aloneRate = 0;
    let aloneP99 = 0;
    for (const run of runs) {
      const appBefore = processCpu(app.pid)!.ms;
      const driving = driveInWorker({ base, filterId, agents: agents.slice(0, BUSY_MANAGERS), mode: "closed", seconds: SECONDS });
      const jobs = run.job ? repeatUntil(driving, run.job) : null;
      const { latencies } = await driving;
      // The job under way when the window closed is let finish (not counted), so the next run starts quiet.
      const done = jobs ? await jobs : null;
      const appCpuMs = processCpu(app.pid)!.ms - appBefore;
      const rate = latencies.length / SECONDS;
      const p99 = percentile(latencies, 99);
      if (!run.job) {
        aloneRate = rate;
        aloneP99 = p99;
      }
      rows.push({
        run: run.label,
        turns: latencies.length,
        "turns/s": rate,
        "vs alone": rate / aloneRate,
        "p50 ms": median(latencies),
        "p99 ms": p99,
        "p99 vs alone": p99 / aloneP99,
        "max ms": Math.max(...latencies),
        "jobs started": done ? done.started : "",
        "job s (finished ones)": done?.seconds.length ? done.seconds.map((s) => s.toFixed(1)).join(", ") : "",
        "app CPU cores": appCpuMs / (SECONDS * 1000),
        "app peak RSS MB": processMemoryMb(app.pid).peak,
        "load avg 1 min": os.loadavg()[0],
      });
    }
  } finally {
    await app.stop();
    fs.rmSync(file, { force: true });
  }
  return rows;
}

async function main() {
  buildPages("capacity");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-bench-capacity-"));
  try {
    const loadAtStart = os.loadavg();
    const seeding = performance.now();
    const handle = await createDb({ dataDir });
    const { filterId, agents } = await seedLeadWorld(handle, {
      contacts: CONTACTS,
      doNotCall: DO_NOT_CALL,
      callbacks: CALLBACKS,
      managers: Math.max(...LOADS.map((l) => l.managers)),
      analyze: false,
    });
    await handle.close();
    const seededIn = (performance.now() - seeding) / 1000;

    // BENCH_CAPACITY_ONLY=busy: the second table alone.
    const rows = process.env.BENCH_CAPACITY_ONLY === "busy" ? [] : await measure(dataDir, filterId, agents, "the app's own ANALYZE");

    if (rows.length)
      printTable(
        `Lead turns over HTTP on the embedded database (PGlite in the app's process, as npm start runs it), ` +
          `${CONTACTS.toLocaleString("en-US")} contacts, ${DO_NOT_CALL.toLocaleString("en-US")} do-not-call numbers, ` +
          `${CALLBACKS.toLocaleString("en-US")} pending callbacks (seeded in ${seededIn.toFixed(0)} s), ${SECONDS} s per run; ` +
          `"node CPU" is the app's process (app and database), "driver" the simulated managers; machine: ${os.cpus().length} cores, ` +
          `load average ${loadAtStart.map((l) => l.toFixed(1)).join(", ")} at the start`,
        rows,
      );
    if (BUSY) {
      const busy = await measureBusy(dataDir, filterId, agents);
      printTable(
        `What an admin's export or import costs the managers: lead turns over HTTP on PGlite (app's process, ` +
          `${CONTACTS.toLocaleString("en-US")} contacts), closed loop, ${SECONDS} s per run, one app, runs in a row; ` +
          `the jobs one after another through /api/v1 for the whole run`,
        busy,
      );
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
