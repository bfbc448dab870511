import os from "node:os";
import { pathToFileURL } from "node:url";
import postgres from "postgres";
import { sql } from "drizzle-orm";
import { createDb, type Db, type DbHandle } from "../db/client";
import { seed } from "../server/seed";
import { routeInbound, type InboundRoute } from "../server/core/telephony/inbound";
import { loadConfig } from "../server/config";
import { startApp } from "./app";
import { median, percentile, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * Issue 42's "the app's choice ≤ 10 ms": the routing answer Kamailio asks for each call in (routeInbound, the
 * function POST /api/v1/telephony/inbound calls; its HTTP layer is measured end to end by bench/calls.ts part 6),
 * called directly, on PGlite (in this process, as `npm start` runs it) and on Postgres (a fresh database on the
 * box's server, as production runs it). The world: BENCH_INBOUND_MANAGERS (100) managers signed in on one topic
 * with the trunk number, 5 of them on a break and 10 in a call; a history of BENCH_INBOUND_HISTORY (300,000) calls
 * out over 30 days to BENCH_INBOUND_CONTACTS (100,000) clients, with their sessions and breaks of those days.
 * Baseline in the same run: `select 1` through the same driver. Each answer's ringing is ended after it is timed
 * (the manager is free again), so every sample asks the same question of the same world.
 *
 * Then bursts: BENCH_INBOUND_BURST calls asked about at once, unknown callers (rule 3: every one of them wants the
 * same manager, the one idle longest) and known clients of different managers (rule 1): each answer's time, and
 * whether a manager was rung twice (never allowed).
 */
const MANAGERS = Number(process.env.BENCH_INBOUND_MANAGERS || 100);
const CONTACTS = Number(process.env.BENCH_INBOUND_CONTACTS || 100_000);
const HISTORY = Number(process.env.BENCH_INBOUND_HISTORY || 300_000);
const SAMPLES = Number(process.env.BENCH_INBOUND_SAMPLES || 200);
const BURST = Number(process.env.BENCH_INBOUND_BURST || 10);
const BURSTS = Number(process.env.BENCH_INBOUND_BURSTS || 20);
const TRUNK = "380441230099";
const SECRET = "bench-inbound-secret-0123456789abcdef";
const secrets = { expected: SECRET, given: SECRET };
const ON_BREAK = 5;
const IN_A_CALL = 10;

/** The world, in SQL (the same on both backends); returns the managers' ids, first the ones free. */
export async function world(db: Db): Promise<{ free: number[]; busy: number[] }> {
  const run = (text: string) => db.execute(sql.raw(text));
  await run(`insert into databases (name, contacts_count) values ('База входящих', ${CONTACTS})`);
  await run(`insert into filters (name, is_active, inbound_number, calls_from, calls_until)
    values ('Входящие', true, '${TRUNK}', '00:00', '00:00')`);
  await run(`insert into filter_databases (filter_id, database_id) select f.id, d.id from filters f, databases d
    where f.inbound_number = '${TRUNK}' and d.name = 'База входящих'`);
  await run(`insert into users (login, password_hash, access_key, sip_login, sip_password, getting_filter)
    select 'bench-in' || g, 'x', 'BENCHIN' || lpad(g::text, 9, '0'), (8100 + g)::text, 'sip-' || (8100 + g),
      (select id from filters where inbound_number = '${TRUNK}')
    from generate_series(0, ${MANAGERS - 1}) g`);
  await run(`insert into filter_managers (filter_id, user_id) select getting_filter, id from users where login like 'bench-in%'`);
  // Each manager: a session now, and one a day for 30 days, expired.
  await run(`insert into sessions (id, user_id, expires_at, created_at)
    select 'bench-' || u.id || '-' || d, u.id, now() - make_interval(days => d) + interval '12 hours', now() - make_interval(days => d)
    from users u, generate_series(0, 30) d where u.login like 'bench-in%'`);
  await run(`update sessions set expires_at = now() + interval '1 day' where id like 'bench-%-0'`);
  // Breaks: three a day for 30 days, ended; ${ON_BREAK} managers on one now.
  await run(`insert into manager_breaks (user_id, started_at, ended_at)
    select u.id, now() - make_interval(days => d, hours => h), now() - make_interval(days => d, hours => h) + interval '10 minutes'
    from users u, generate_series(1, 30) d, generate_series(1, 3) h where u.login like 'bench-in%'`);
  await run(`insert into contacts (database_id, name, phone, phone_key, last_user_id, status_at)
    select (select id from databases where name = 'База входящих'), 'Клиент ' || g, '+38050' || (1000000 + g), '38050' || (1000000 + g),
      (select id from users where login = 'bench-in' || (g % ${MANAGERS})), now() - make_interval(secs => g)
    from generate_series(0, ${CONTACTS - 1}) g`);
  // History: calls out over 30 days, each client by his own manager (client g by manager g mod MANAGERS), and some
  // calls in; all ended.
  await run(`insert into calls (user_id, contact_id, number, direction, started_at, answered_at, ended_at, outcome, talk_seconds, by_proxy, filter_id)
    select c.last_user_id, c.id, c.phone, case when g % 10 = 0 then 'in' else 'out' end,
      now() - make_interval(secs => 60 + (g * 2592000::bigint / ${HISTORY})::int),
      now() - make_interval(secs => 50 + (g * 2592000::bigint / ${HISTORY})::int),
      now() - make_interval(secs => (g * 2592000::bigint / ${HISTORY})::int), 'answered', 50, true,
      (select id from filters where inbound_number = '${TRUNK}')
    from generate_series(0, ${HISTORY - 1}) g join contacts c on c.phone_key = '38050' || (1000000 + g % ${CONTACTS})`);
  const ids = (await db.execute(sql`select id from users where login like 'bench-in%' order by id`)) as unknown;
  const list = (Array.isArray(ids) ? ids : (ids as { rows: Array<{ id: number }> }).rows).map((row: { id: number }) => Number(row.id));
  const busy = list.slice(MANAGERS - ON_BREAK - IN_A_CALL);
  await run(`insert into manager_breaks (user_id) select id from users where id in (${busy.slice(0, ON_BREAK).join(",")})`);
  await run(`insert into calls (user_id, number, direction, started_at, answered_at, by_proxy)
    select id, '+380441112233', 'out', now() - interval '30 seconds', now() - interval '25 seconds', true from users
    where id in (${busy.slice(ON_BREAK).join(",")})`);
  await run("analyze");
  return { free: list.slice(0, MANAGERS - ON_BREAK - IN_A_CALL), busy };
}

/** Ends a ringing the bench's question opened (as the proxy's end report would), so its manager is free again. */
async function endRinging(db: Db, route: InboundRoute) {
  await db.execute(sql`update calls set ended_at = now(), outcome = 'no_answer' where id = ${route.callId}`);
}

let sequence = 0;
const ask = (db: Db, number: string, did = TRUNK, tried = "") =>
  routeInbound(db, secrets, { number, did, sipCallId: `bench-${process.pid}-${(sequence += 1)}@carrier`, tried }, "UA");

async function timed<T>(what: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await what();
  return { ms: performance.now() - started, value };
}

const stats = (samples: number[]) => ({
  n: samples.length,
  "median ms": median(samples),
  "p95 ms": percentile(samples, 95),
  "max ms": Math.max(...samples),
});
const target = (samples: number[]) =>
  median(samples) <= 10 ? (percentile(samples, 95) <= 10 ? "≤ 10 ms: met" : "≤ 10 ms: median met") : "≤ 10 ms: NOT met";

async function measure(kind: string, handle: DbHandle): Promise<Row[]> {
  const db = handle.db;
  const seeded = await timed(() => world(db));
  const { free, busy } = seeded.value;
  console.error(`${kind}: world seeded in ${(seeded.ms / 1000).toFixed(1)} s`);
  // Client g is manager g mod MANAGERS's: clients of free managers (rule 1), of managers in a call (rule 2).
  const clientOf = (managerIndex: number, round: number) => `+38050${1000000 + managerIndex + MANAGERS * (1 + (round % 900))}`;
  const freeIndex = (i: number) => i % free.length;
  const busyIndex = (i: number) => MANAGERS - IN_A_CALL + (i % IN_A_CALL);
  const rows: Row[] = [];

  const series = async (label: string, question: (i: number) => Promise<InboundRoute>, check: (route: InboundRoute) => boolean) => {
    const samples: number[] = [];
    let wrong = 0;
    for (let i = 0; i < SAMPLES + 10; i += 1) {
      const { ms, value } = await timed(() => question(i));
      if (!check(value)) wrong += 1;
      if (value.ring) await endRinging(db, value);
      if (i >= 10) samples.push(ms);
    }
    rows.push({ backend: kind, measurement: label, ...stats(samples), target: wrong ? `${wrong} wrong answers` : target(samples) });
  };
  const baseline: number[] = [];
  for (let i = 0; i < SAMPLES + 10; i += 1) {
    const { ms } = await timed(() => db.execute(sql`select 1`));
    if (i >= 10) baseline.push(ms);
  }
  rows.push({ backend: kind, measurement: "baseline: select 1", ...stats(baseline), target: "" });
  await series(
    "rule 1: the client's own manager, free",
    (i) => ask(db, clientOf(freeIndex(i), i)),
    (route) => route.ring && route.rule === 1,
  );
  await series(
    "rule 2: his manager in a call, the topic's idle longest",
    (i) => ask(db, clientOf(busyIndex(i), i)),
    (route) => route.ring && route.rule === 2 && !busy.includes(route.userId),
  );
  await series(
    "rule 3: an unknown number, the trunk's topic",
    (i) => ask(db, `+38067${2000000 + i}`),
    (route) => route.ring && route.rule === 3,
  );
  // The same question as Kamailio asks it: over HTTP to the app on this database (POST /api/v1/telephony/inbound,
  // a form with the secret in its header), beside the app's cheapest answer (GET /api/v1/health): what the HTTP
  // layer, the secret's check and the answer add to routeInbound.
  const app = await startApp({ handle, config: loadConfig({ LOG_LEVEL: "silent", SIP_AUTH_SECRET: SECRET }), web: false });
  try {
    const health: number[] = [];
    for (let i = 0; i < SAMPLES + 10; i += 1) {
      const { ms } = await timed(async () => (await fetch(`${app.origin}/api/v1/health`)).text());
      if (i >= 10) health.push(ms);
    }
    rows.push({ backend: kind, measurement: "baseline over HTTP: GET /api/v1/health", ...stats(health), target: "" });
    await series(
      "rule 1 over HTTP (POST /api/v1/telephony/inbound)",
      async (i) => {
        const response = await fetch(`${app.origin}/api/v1/telephony/inbound`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", "x-sip-auth-secret": SECRET },
          body: new URLSearchParams({
            number: clientOf(freeIndex(i), i + 3),
            did: TRUNK,
            sipCallId: `bench-http-${(sequence += 1)}@carrier`,
            tried: "",
          }),
        });
        const text = await response.text();
        const fields = Object.fromEntries(
          text
            .split("\n")[0]
            .split(";")
            .map((pair) => pair.split("=")),
        );
        const callId = Number(fields.id);
        return response.status === 200
          ? {
              ring: true,
              callId,
              login: fields.ring,
              userId: 0,
              // Client g is manager g's (SIP login 8100 + g): rule 1 rang him.
              rule: fields.ring === String(8100 + freeIndex(i)) ? 1 : 0,
              record: false,
              ringSeconds: Number(fields.ring_s),
            }
          : { ring: false, callId, sipCode: response.status as 480 | 486, phrase: "No Managers" };
      },
      (route) => route.ring && route.rule === 1,
    );
  } finally {
    await app.stop();
  }
  await series(
    "missed: three managers tried already (480, callback)",
    (i) => ask(db, clientOf(freeIndex(i), i + 7), TRUNK, "8100,8101,8102"),
    (route) => !route.ring && route.sipCode === 480,
  );

  // Bursts: BURST questions at once.
  const burst = async (label: string, number: (b: number, i: number) => string) => {
    const samples: number[] = [];
    let twice = 0;
    let refused = 0;
    // One burst not counted: the pool's connections opened, each statement prepared on them (the first burst after
    // a start opens BURST connections: 300 ms on this box).
    for (let b = -1; b < BURSTS; b += 1) {
      const answers = await Promise.all(Array.from({ length: BURST }, (_, i) => timed(() => ask(db, number(b, i)))));
      const rung = answers.flatMap((a) => (a.value.ring ? [a.value.userId] : []));
      if (b < 0) {
        for (const a of answers) if (a.value.ring) await endRinging(db, a.value);
        continue;
      }
      twice += rung.length - new Set(rung).size;
      refused += answers.length - rung.length;
      samples.push(...answers.map((a) => a.ms));
      if (process.env.BENCH_INBOUND_DEBUG) console.error(`${label} burst ${b}: max ${Math.max(...answers.map((a) => a.ms)).toFixed(1)} ms`);
      for (const a of answers) if (a.value.ring) await endRinging(db, a.value);
    }
    rows.push({
      backend: kind,
      measurement: `${label}, ${BURST} at once`,
      ...stats(samples),
      target: `${twice === 0 ? "no manager rung twice" : `${twice} managers rung twice: NOT met`}${refused ? `; ${refused} refused` : ""}`,
    });
  };
  await burst("bursts of unknown numbers (all want the same manager)", (b, i) => `+38068${3000000 + (b + 1) * BURST + i}`);
  await burst("bursts of known clients (each his own manager)", (b, i) => clientOf(freeIndex((b + 1) * BURST + i), b + 301));
  return rows;
}

async function main() {
  const rows: Row[] = [];
  const only = process.env.BENCH_INBOUND_ONLY ?? "";
  const pglite = await createDb({ dataDir: "memory://" });
  if (only !== "postgres")
    try {
      await pglite.migrate();
      await seed(pglite.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
      rows.push(...(await measure("PGlite", pglite)));
    } finally {
      await pglite.close();
    }

  if (only === "pglite") return void printTable("PGlite only", rows);
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_inbound_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const handle = await createDb({ databaseUrl: withDatabase(PG_URL, name), poolSize: 20 });
  try {
    await handle.migrate();
    await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
    rows.push(...(await measure("Postgres", handle)));
  } finally {
    await handle.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
  printTable(
    `The app's choice for a call in (routeInbound, called directly; ${MANAGERS} managers signed in, ${ON_BREAK} on a break, ${IN_A_CALL} in a call; ` +
      `${HISTORY.toLocaleString("en")} calls of history to ${CONTACTS.toLocaleString("en")} clients; load average ${os.loadavg()[0].toFixed(1)} at the end)`,
    rows,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
