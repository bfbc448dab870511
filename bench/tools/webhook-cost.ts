import { spawn } from "node:child_process";
import postgres from "postgres";
import { createDb } from "../../db/client";
import { startWebhookWorker } from "../../server/jobs/webhooks";
import { PG_URL, printTable, processCpu, withDatabase } from "../lib";

/**
 * What one webhook delivery costs the app and the database (issue 44), apart from the presses that queue them: a
 * queue of DELIVERIES status.pressed events (the press's body, ~1 KB) for 3 webhooks and 2,000 clients, drained by
 * the worker to a receiver in another process that answers 204 at once. CPU time, not wall time, so a busy machine
 * skews it less: the app's (this process: the worker alone) and that of the Postgres backends serving this
 * database (not the machine's other Postgres work). Usage: `node --import tsx bench/tools/webhook-cost.ts`.
 */
const DELIVERIES = Number(process.env.BENCH_DELIVERIES || 6000);
const CONCURRENCY = Number(process.env.WEBHOOK_CONCURRENCY || 8);

const RECEIVER = `
const http = require("node:http");
const server = http.createServer((req, res) => { req.resume(); req.on("end", () => res.writeHead(204).end()); });
server.listen(0, "127.0.0.1", () => console.log(server.address().port));`;

async function main() {
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_hooks_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(PG_URL, name);
  const handle = await createDb({ databaseUrl: url, poolSize: 10 });
  await handle.migrate();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const receiver = spawn(process.execPath, ["-e", RECEIVER], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const port = await new Promise<number>((resolve) => receiver.stdout.once("data", (chunk: Buffer) => resolve(Number(String(chunk).trim()))));
    await sql.unsafe(
      `insert into webhooks (url, events, secret) select $1, array['status.pressed'], 'whsec_' || encode(decode(md5(random()::text), 'hex'), 'base64')
       from generate_series(1, 3)`,
      [`http://127.0.0.1:${port}/hook`],
    );
    const card = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`Поле ${i + 1}`, `значение поля ${i + 1} для клиента`]));
    await sql.unsafe(
      `insert into webhook_deliveries (webhook_id, message_id, event_type, payload, order_key)
       select w.id, 'msg_bench_' || g, 'status.pressed',
         jsonb_build_object('type', 'status.pressed', 'timestamp', now(), 'data', jsonb_build_object('eventId', g, 'status', 'Отказ',
           'client', jsonb_build_object('id', g % 2000, 'name', 'Клиент ' || g, 'phone', '+38067' || (5000000 + g)), 'card', $1::jsonb)),
         g % 2000
       from generate_series(1, $2::int / 3) g cross join webhooks w`,
      [JSON.stringify(card), DELIVERIES],
    );
    await sql.unsafe("analyze webhook_deliveries");
    // The backends of this database (the worker's pool), for their CPU.
    const backendsCpu = async () => {
      const pids = await sql.unsafe<{ pid: number }[]>(`select pid from pg_stat_activity where datname = $1`, [name]);
      return pids.reduce((sum, { pid }) => sum + (processCpu(pid)?.ms ?? 0), 0);
    };
    // Warm the pool's connections first, so each one exists when the CPU is first read.
    await Promise.all(Array.from({ length: 10 }, () => handle.db.execute("select pg_sleep(0.05)" as never).catch(() => {})));
    const pgBefore = await backendsCpu();
    const nodeBefore = process.cpuUsage();
    const started = performance.now();
    let attempts = 0;
    const worker = startWebhookWorker(handle, { concurrency: CONCURRENCY, pollMs: 50, onAttempt: () => attempts++ });
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const [{ pending }] = await sql.unsafe<{ pending: number }[]>(
        `select count(*)::int as pending from webhook_deliveries where state = 'pending'`,
      );
      if (pending === 0) break;
    }
    const wallMs = performance.now() - started;
    await worker.stop();
    const node = process.cpuUsage(nodeBefore);
    const pgMs = (await backendsCpu()) - pgBefore;
    const [{ delivered }] = await sql.unsafe<{ delivered: number }[]>(
      `select count(*)::int as delivered from webhook_deliveries where state = 'delivered'`,
    );
    printTable(`One webhook delivery's cost: ${DELIVERIES} queued, concurrency ${CONCURRENCY}, a receiver answering 204 in another process`, [
      {
        delivered,
        attempts,
        "deliveries/s": (delivered / wallMs) * 1000,
        "app CPU ms/delivery": (node.user + node.system) / 1000 / delivered,
        "Postgres CPU ms/delivery": pgMs / delivered,
        load: (await import("node:os")).loadavg()[0].toFixed(1),
      },
    ]);
  } finally {
    receiver.kill();
    await sql.end();
    await handle.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
