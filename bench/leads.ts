import { Worker } from "node:worker_threads";
import { PgDialect } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { createDb, SESSION_SETTINGS } from "../db/client";
import { loadConfig } from "../server/config";
import { turnStatement } from "../server/core/leads/record-status";
import { startApp, type RunningApp } from "./app";
import { driveInWorker, firstLead } from "./lead-driver";
import { checkLeadWorld, driveFloor, seedLeadWorld } from "./lead-world";
import { cpuSnapshot, median, percentile, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * Issue 5: the lead turn (update-and-get-lead) on real Postgres with 1,000,000 contacts over 20 bases, driven
 * through HTTP by simulated managers:
 * - open loop: 500 managers each pressing a status about every 2 s (about 250 turns/s offered): p50 and p99;
 * - closed loop: 50 and 200 managers with no pause: turns/s, against the same SQL statements the turn runs,
 *   driven directly through postgres.js at the same concurrency in the same run (the floor the database sets);
 * - after every run: no manager holding two contacts, no contact with two events for one press;
 * - with a 100,000-number do-not-call list in place (issue 18), about 1 contact in 23 on it.
 * - issue 43: the calling rules inside the claim against the same turn without them (the SQL floor);
 * - issue 44: three webhooks wanting every press against the same closed loop without them, and the queue's delay.
 * The managers run in a worker thread of this process (bench/lead-driver.ts): their CPU is in the "node CPU" column
 * and on the same two cores, but not on the server's event loop.
 */
const CONTACTS = Number(process.env.BENCH_CONTACTS || 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS || 15);
const OPEN_MANAGERS = Number(process.env.BENCH_OPEN_MANAGERS || 500);
/** Numbers on the do-not-call list (issue 18). */
const DO_NOT_CALL = Number(process.env.BENCH_DO_NOT_CALL || 100_000);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 3);
/**
 * Issue 18: pending callbacks present during the runs (0: none, as before). A twentieth of them overdue past the
 * grace time (handed out by the first turns), the rest due tomorrow, spread over the managers.
 */
const CALLBACKS = Number(process.env.BENCH_CALLBACKS ?? 10_000);
/** Issue 29: the world's two retry rules and their 90,000 contacts (BENCH_RETRY_RULES=0: without them). */
const RETRY_RULES = process.env.BENCH_RETRY_RULES !== "0";
/** BENCH_HTTP=0: only the SQL-floor comparisons (issue 43's rules), without the warm-up, open and closed loops over HTTP. */
const HTTP_RUNS = process.env.BENCH_HTTP !== "0";
/** BENCH_LOOPS=0: without the open and closed loops, but with the warm-up (the webhooks' part, issue 44, runs over HTTP). */
const LOOPS = HTTP_RUNS && process.env.BENCH_LOOPS !== "0";
/** BENCH_MIXED_ZONES=1: every base holds all five zones (issue 43: a base with several zones open at once). */
const MIXED_ZONES = process.env.BENCH_MIXED_ZONES === "1";
/** Issue 44: how many runs with webhooks, each between two without them. */
const WEBHOOK_ROUNDS = Number(process.env.BENCH_WEBHOOK_ROUNDS || 3);
const dialect = new PgDialect();

/**
 * The webhooks' receiver (issue 44) in a worker thread of this process: off the server's event loop, as a CRM is
 * another machine, but on the same two cores. It answers 204 at once and keeps each event's delay from its
 * timestamp (written by the press's statement) to its arrival.
 */
async function startReceiver(): Promise<{ url: string; delays(): Promise<number[]>; close(): Promise<number> }> {
  const worker = new Worker(
    `const { parentPort } = require("node:worker_threads");
    const http = require("node:http");
    const delays = [];
    const server = http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (chunk) => chunks.push(chunk));
      req.on("end", () => {
        delays.push(Date.now() - Date.parse(JSON.parse(Buffer.concat(chunks).toString("utf8")).timestamp));
        res.writeHead(204).end();
      });
    });
    server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
    parentPort.on("message", () => parentPort.postMessage(delays));`,
    { eval: true },
  );
  const next = <T>() => new Promise<T>((resolve) => worker.once("message", resolve));
  const port = await next<number>();
  return {
    url: `http://127.0.0.1:${port}/hook`,
    delays() {
      const answer = next<number[]>();
      worker.postMessage("delays");
      return answer;
    },
    close: () => worker.terminate(),
  };
}

/** CPU per turn since `before`: this process (server and load generator) and the local Postgres. */
function cpuPerTurn(before: ReturnType<typeof cpuSnapshot>, turns: number): { "node CPU ms/turn": number; "pg CPU ms/turn": number } {
  const now = cpuSnapshot();
  return {
    "node CPU ms/turn": (now.node - before.node) / turns,
    "pg CPU ms/turn": (now.postgres - before.postgres) / turns,
  };
}

async function main() {
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_leads_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(PG_URL, name);
  const handle = await createDb({ databaseUrl: url, poolSize: 20 });
  // The floor's own sessions, set as the app's are.
  const sql = postgres(url, { max: 20, onnotice: () => {}, connection: SESSION_SETTINGS });
  const config = loadConfig({ LOG_LEVEL: "silent", DATABASE_URL: url });
  let app: RunningApp | undefined;
  try {
    const { filterId, agents } = await seedLeadWorld(handle, {
      contacts: CONTACTS,
      doNotCall: DO_NOT_CALL,
      callbacks: CALLBACKS,
      retryRules: RETRY_RULES,
      mixedZones: MIXED_ZONES,
      managers: Math.max(OPEN_MANAGERS, 200),
    });

    app = await startApp({ handle, config, web: false });
    const base = `${app.origin}/api/v1`;

    const check = () => checkLeadWorld(handle.db);

    if (process.env.BENCH_EXPLAIN) {
      // The turn's plan on this data (stderr, not in the table): one manager's first lead, then one press.
      await firstLead(base, filterId, agents[0]);
      const query = dialect.sqlToQuery(
        turnStatement({
          presser: { userId: agents[0].userId, filterId },
          contactId: agents[0].leadId,
          status: { text: "Отказ" },
          clientInfo: "",
          withPassport: false,
          holdMinutes: 30,
        }),
      );
      const plan = await sql.unsafe(`explain (analyze, buffers) ${query.sql}`, query.params as never[]);
      console.error(plan.map((r) => Object.values(r)[0]).join("\n"));
      const [next] = await sql<{ id: string }[]>`select id from contacts where held_by = ${agents[0].userId}`;
      agents[0].leadId = next ? Number(next.id) : 0;
    }

    const rows: Row[] = [];

    // Warm-up, not measured: a server that has run for a while has its code compiled and its statements prepared.
    if (HTTP_RUNS) await driveInWorker({ base, filterId, agents: agents.slice(0, 50), mode: "closed", seconds: WARMUP_SECONDS });

    // Open loop: each manager presses every ~2 s (jittered), whatever the answers' speed.
    if (LOOPS) {
      const cpu = cpuSnapshot();
      const { latencies } = await driveInWorker({ base, filterId, agents: agents.slice(0, OPEN_MANAGERS), mode: "open", seconds: SECONDS });
      const c = await check();
      rows.push({
        run: `open loop, ${OPEN_MANAGERS} managers, ~2 s apart`,
        turns: latencies.length,
        "turns/s": latencies.length / SECONDS,
        "p50 ms": median(latencies),
        "p99 ms": percentile(latencies, 99),
        ...cpuPerTurn(cpu, latencies.length),
        "floor turns/s": "",
        ratio: "",
        "held twice": c.doubleHeld,
        "events twice": c.doubleEvents,
        "do-not-call handed": c.listedHanded,
        target: `p99 ≤ 25 ms: ${percentile(latencies, 99) <= 25 ? "met" : "MISSED"}`,
      });
    }

    for (const size of LOOPS ? [50, 200] : []) {
      const group = agents.slice(0, size);
      const cpu = cpuSnapshot();
      const { latencies } = await driveInWorker({ base, filterId, agents: group, mode: "closed", seconds: SECONDS });
      const httpRate = latencies.length / SECONDS;
      const httpCpu = cpuPerTurn(cpu, latencies.length);

      // The floor: the turn's statements straight through postgres.js at the same concurrency, prepared as the app's are.
      const floorCpu = cpuSnapshot();
      const floorTurns = await driveFloor(handle.db, group, filterId, SECONDS, (statement) => {
        const query = dialect.sqlToQuery(statement);
        return sql.unsafe(query.sql, query.params as never[], { prepare: true });
      });
      const floorRate = floorTurns / SECONDS;
      const floorPerTurn = cpuPerTurn(floorCpu, floorTurns);
      const c = await check();
      rows.push({
        run: `closed loop, ${size} managers`,
        turns: latencies.length,
        "turns/s": httpRate,
        "p50 ms": median(latencies),
        "p99 ms": percentile(latencies, 99),
        ...httpCpu,
        "floor turns/s": floorRate,
        "floor node CPU ms/turn": floorPerTurn["node CPU ms/turn"],
        "floor pg CPU ms/turn": floorPerTurn["pg CPU ms/turn"],
        ratio: httpRate / floorRate,
        "held twice": c.doubleHeld,
        "events twice": c.doubleEvents,
        "do-not-call handed": c.listedHanded,
        target: `ratio ≥ 0.5: ${httpRate / floorRate >= 0.5 ? "met" : "MISSED"}`,
      });
    }

    // Issue 43: the calling rules inside the claim against the same turn without them, both as the SQL floor (the
    // turn's statements straight through postgres.js), 50 managers. With: a window open only around one zone's
    // present hour (four of the five zones outside it, so most clients are walked past), then one open across three
    // zones at once (Kyiv's hour from an hour before to four after: Kyiv, Moscow and Yekaterinburg; with
    // BENCH_MIXED_ZONES=1 each base holds all five, so a base has three zones open at once); the 230-FZ limits; and a
    // connected call today to the first 2 % of each base's clients in the open zones (at their daily limit, at the
    // head of the walk). Target: the turn with the rules costs at most twice the turn without (turns/s ≥ half).
    if (process.env.BENCH_RULES !== "0") {
      const group = agents.slice(0, 50);
      if (!HTTP_RUNS) for (const agent of group) await firstLead(base, filterId, agent);
      const floor = () =>
        driveFloor(handle.db, group, filterId, SECONDS, (statement) => {
          const query = dialect.sqlToQuery(statement);
          return sql.unsafe(query.sql, query.params as never[], { prepare: true });
        });
      const without = (await floor()) / SECONDS;
      const rows: Row[] = [
        { run: "floor without rules (around the clock, no limits)", "turns/s": without, ratio: "", "held outside rules": "", target: "" },
      ];
      const scenarios = [
        { label: "1 zone of 5 in hours", open: ["Asia/Vladivostok"], hoursBefore: 1, hoursAfter: 1 },
        { label: "3 zones of 5 in hours", open: ["Europe/Kyiv", "Europe/Moscow", "Asia/Yekaterinburg"], hoursBefore: 1, hoursAfter: 4 },
      ];
      for (const scenario of scenarios) {
        const anchor = scenario.open[0];
        await sql.unsafe(
          `insert into calls (user_id, contact_id, number, direction, started_at, answered_at, ended_at, outcome, filter_id)
          select null, c.id, c.phone, 'out', now() - interval '1 minute', now() - interval '1 minute', now(), 'answered', ${filterId}
          from (select id, phone, row_number() over (partition by database_id, tz order by id) as n, count(*) over (partition by database_id, tz) as total
            from contacts where tz = any($1) and status_id is null and held_by is null) c
          where c.n <= c.total / 50`,
          [scenario.open],
        );
        await sql.unsafe(`
          update filters set contact_limit_day = 1, contact_limit_week = 2, contact_limit_month = 8, contact_limit_counts = 'connected',
            calls_from = ((now() at time zone '${anchor}') - interval '${scenario.hoursBefore} hours')::time,
            calls_until = ((now() at time zone '${anchor}') + interval '${scenario.hoursAfter} hours')::time
          where id = ${filterId}`);
        await sql.unsafe("analyze calls");
        const rulesStarted = new Date();
        const withRules = (await floor()) / SECONDS;
        const c = await check();
        // Only the leads this run claimed: the open loop's 500 managers still hold leads taken without the rules.
        const [{ handed }] = await sql.unsafe<{ handed: string }[]>(
          `select count(*) as handed from contacts c where c.held_by is not null and c.held_since >= $1 and (c.tz <> all($2)
            or exists (select 1 from calls k where k.contact_id = c.id and k.answered_at is not null and k.started_at > now() - interval '1 hour'))`,
          [rulesStarted, scenario.open],
        );
        rows.push({
          run: `floor with rules (${scenario.label}, 230-FZ limits, 2 % at limit)`,
          "turns/s": withRules,
          ratio: without / withRules,
          "held outside rules": Number(handed) + c.doubleHeld,
          target: `cost ≤ 2x: ${without / withRules <= 2 ? "met" : "MISSED"}`,
        });
      }
      const zones = MIXED_ZONES ? "five zones in every base" : "five zones, one a base";
      printTable(`Calling rules in the claim (issue 43), SQL floor, 50 managers, ${CONTACTS.toLocaleString("en-US")} contacts, ${zones}`, rows);
      if (process.env.BENCH_KEEP) return;
      await sql.unsafe(`update filters set contact_limit_day = null, contact_limit_week = null, contact_limit_month = null,
        calls_from = '00:00', calls_until = '00:00' where id = ${filterId}`);
    }

    // Issue 44: three webhooks wanting every press (a local receiver answering 204 at once), against the same
    // closed loop without them, alternated (without, with, without, … , without: BENCH_WEBHOOK_ROUNDS runs with
    // them), each run with them against the mean of its neighbours without, so the world's and the machine's drift
    // count on both sides; the median of those ratios is the figure. Target: the turns with webhooks within 5 % of
    // those without; the queue's delay (the event's timestamp, written by the press's statement, to its arrival at
    // the receiver) and nothing left unsent once the queue has drained.
    if (process.env.BENCH_WEBHOOKS !== "0") {
      const group = agents.slice(0, 50);
      const receiver = await startReceiver();
      const receiverUrl = receiver.url;
      const closed = async () => {
        const cpu = cpuSnapshot();
        const latencies = (await driveInWorker({ base, filterId, agents: group, mode: "closed", seconds: SECONDS })).latencies;
        return { latencies, cpu: cpuPerTurn(cpu, latencies.length) };
      };
      try {
        await sql.unsafe(
          `insert into webhooks (url, events, secret, enabled)
           select $1, '{}', 'whsec_' || encode(decode(md5(random()::text), 'hex'), 'base64'), true
           from generate_series(1, 3)`,
          [receiverUrl],
        );
        // Between the runs with them the webhooks want no event, so the presses queue none, but stay enabled: the
        // queue goes on draining as it would.
        const setWebhooks = (wanting: boolean) =>
          sql.unsafe(`update webhooks set events = ${wanting ? "array['status.pressed', 'client.final_status', 'report.sent']" : "'{}'"}`);
        const rounds: Row[] = [];
        const ratios: number[] = [];
        let before = await closed();
        for (let round = 1; round <= WEBHOOK_ROUNDS; round++) {
          await setWebhooks(true);
          const during = await closed();
          await setWebhooks(false);
          const after = await closed();
          const without = (before.latencies.length + after.latencies.length) / 2 / SECONDS;
          const withHooks = during.latencies.length / SECONDS;
          ratios.push(withHooks / without);
          rounds.push(
            {
              run: `${round}: without webhooks (mean of the runs before and after; CPU of both)`,
              "turns/s": without,
              "p50 ms": median([...before.latencies, ...after.latencies]),
              "node CPU ms/turn": (before.cpu["node CPU ms/turn"] + after.cpu["node CPU ms/turn"]) / 2,
              "pg CPU ms/turn": (before.cpu["pg CPU ms/turn"] + after.cpu["pg CPU ms/turn"]) / 2,
              ratio: "",
              target: "",
            },
            {
              run: `${round}: three webhooks wanting every press`,
              "turns/s": withHooks,
              "p50 ms": median(during.latencies),
              ...during.cpu,
              ratio: withHooks / without,
              target: "",
            },
          );
          before = after;
        }
        // The queue drains (the worker polls every 500 ms): then every event has reached the receiver.
        const drainStarted = Date.now();
        let pending = 1;
        while (pending > 0 && Date.now() - drainStarted < 120_000) {
          await new Promise((resolve) => setTimeout(resolve, 250));
          [{ pending }] = await sql.unsafe<{ pending: number }[]>(`select count(*)::int as pending from webhook_deliveries where state = 'pending'`);
        }
        const drainMs = Date.now() - drainStarted;
        const delays = await receiver.delays();
        // How many of the queue's row updates (the claim's lock, the acceptance) were HOT: no new index entries.
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const [{ updates, hot }] = await sql.unsafe<{ updates: number; hot: number }[]>(
          `select n_tup_upd::int as updates, n_tup_hot_upd::int as hot from pg_stat_user_tables where relname = 'webhook_deliveries'`,
        );
        const [{ delivered, failed }] = await sql.unsafe<{ delivered: number; failed: number }[]>(
          `select count(*) filter (where state = 'delivered')::int as delivered, count(*) filter (where state = 'failed')::int as failed from webhook_deliveries`,
        );
        const ratio = median(ratios);
        printTable(`Webhooks on the press (issue 44), closed loop over HTTP, 50 managers, ${SECONDS} s per run, a local receiver`, [
          ...rounds,
          {
            run: `median of the ${WEBHOOK_ROUNDS} rounds' ratios`,
            "turns/s": "",
            "p50 ms": "",
            ratio,
            target: `within 5 %: ${ratio >= 0.95 ? "met" : "MISSED"}`,
          },
          {
            run: "their deliveries",
            "turns/s": "",
            "p50 ms": "",
            ratio: "",
            target: `${delivered} delivered, ${failed} failed, ${pending} left after ${(drainMs / 1000).toFixed(1)} s of drain; queue delay p50 ${median(delays).toFixed(0)} ms, p99 ${percentile(delays, 99).toFixed(0)} ms, ${delays.length} received; ${hot} of ${updates} row updates HOT`,
          },
        ]);
      } finally {
        await receiver.close();
      }
    }

    printTable(
      `Lead turns over HTTP (update-and-get-lead), ${CONTACTS.toLocaleString("en-US")} contacts, ${CALLBACKS.toLocaleString("en-US")} pending callbacks, ${RETRY_RULES ? "two retry rules" : "no retry rules"}, ${SECONDS} s per run`,
      rows,
    );
  } finally {
    await app?.stop().catch(() => {});
    await sql.end();
    await handle.close();
    // BENCH_KEEP=1: the database stays (with issue 43's rules in place), for EXPLAIN by hand; its name is printed.
    if (process.env.BENCH_KEEP) console.error(`kept: ${name}`);
    else await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
