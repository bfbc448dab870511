import type { AddressInfo } from "node:net";
import { PgDialect } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { createDb } from "../db/client";
import { seed } from "../db/seed";
import { buildApp } from "../server/app";
import { createSessionStore } from "../server/auth/sessions";
import { loadConfig } from "../server/config";
import { turnStatement } from "../server/core/leads/record-status";
import { type Agent, driveInWorker, firstLead } from "./lead-driver";
import { cpuSnapshot, median, percentile, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * Issue 5: the lead turn (update-and-get-lead) on real Postgres with 1,000,000 contacts over 20 bases, driven
 * through HTTP by simulated managers:
 * - open loop: 500 managers each pressing a status about every 2 s (about 250 turns/s offered): p50 and p99;
 * - closed loop: 50 and 200 managers with no pause: turns/s, against the same SQL statements the turn runs,
 *   driven directly through postgres.js at the same concurrency in the same run (the floor the database sets);
 * - after every run: no manager holding two contacts, no contact with two events for one press.
 * The managers run in a worker thread of this process (bench/lead-driver.ts): their CPU is in the "node CPU" column
 * and on the same two cores, but not on the server's event loop.
 */
const CONTACTS = Number(process.env.BENCH_CONTACTS || 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS || 15);
const OPEN_MANAGERS = Number(process.env.BENCH_OPEN_MANAGERS || 500);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS || 3);
const dialect = new PgDialect();

/** CPU per turn since `before`: this process (server and load generator) and the local Postgres. */
function cpuPerTurn(before: ReturnType<typeof cpuSnapshot>, turns: number): Row {
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
  const sql = postgres(url, { max: 20, onnotice: () => {} });
  const config = loadConfig({ LOG_LEVEL: "silent", DATABASE_URL: url });
  const app = await buildApp({ handle, config, web: false });
  try {
    await handle.migrate();
    await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
    await sql`insert into databases (name, contacts_count) select 'База ' || g, ${CONTACTS / 20} from generate_series(1, 20) g`;
    await sql.unsafe(`
      insert into contacts (database_id, name, phone, phone_key)
      select 1 + (g % 20), 'Клиент ' || g, '0' || (500000000 + g)::text, '380' || (500000000 + g)::text
      from generate_series(1, ${CONTACTS}) g order by 1 + (g % 20), g`);
    // DESIGN §10: claimed rows linger in the partial index until VACUUM; autovacuum runs often and without delay.
    await sql.unsafe(
      "alter table contacts set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000, autovacuum_vacuum_cost_delay = 0)",
    );
    await sql.unsafe("vacuum analyze contacts");
    // The seeding wrote a few hundred MB: flush it now, not in a checkpoint in the middle of the measured runs.
    await sql.unsafe("checkpoint");

    const [{ id: callBack }] = await sql<{ id: number }[]>`select id from statuses where text = 'Перезвонить'`;
    const maxManagers = Math.max(OPEN_MANAGERS, 200);
    const managers = await sql<{ id: number }[]>`
      insert into users (login, password_hash, access_key, display_name, is_online)
      select 'bench' || g, 'x', 'KEY' || g, 'Менеджер ' || g, true from generate_series(1, ${maxManagers}) g returning id`;
    const [{ id: filterId }] = await sql<{ id: number }[]>`insert into filters (name) values ('Нагрузка') returning id`;
    await sql`insert into filter_databases (filter_id, database_id) select ${filterId}, id from databases`;
    await sql`insert into filter_statuses (filter_id, status_id) values (${filterId}, ${callBack})`;
    await sql`insert into filter_managers (filter_id, user_id) select ${filterId}, id from users where login like 'bench%' and not is_admin`;
    const sessions = createSessionStore(handle.db, 1);
    const tokens = await Promise.all(managers.map(async (m) => (await sessions.create(m.id)).token));

    await app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/v1`;

    const agents: Agent[] = managers.map((m, i) => ({ userId: m.id, auth: `Bearer ${tokens[i]}`, leadId: 0 }));

    const check = async () => {
      const [row] = await sql<{ doubleHeld: number; doubleEvents: number }[]>`
        select
          (select count(*) from (select held_by from contacts where held_by is not null group by held_by having count(*) > 1) x)::int as "doubleHeld",
          (select count(*) from (select contact_id from lead_events group by contact_id having count(*) > 1) y)::int as "doubleEvents"`;
      return row;
    };

    if (process.env.BENCH_EXPLAIN) {
      // The turn's plan on this data (stderr, not in the table): one manager's first lead, then one press.
      await firstLead(base, filterId, agents[0]);
      const query = dialect.sqlToQuery(
        turnStatement({ userId: agents[0].userId, filterId, contactId: agents[0].leadId, statusText: "Не интересно", clientInfo: "", withPassport: false, holdMinutes: 30 }),
      );
      const plan = await sql.unsafe(`explain (analyze, buffers) ${query.sql}`, query.params as never[]);
      console.error(plan.map((r) => Object.values(r)[0]).join("\n"));
      const [next] = await sql<{ id: string }[]>`select id from contacts where held_by = ${agents[0].userId}`;
      agents[0].leadId = next ? Number(next.id) : 0;
    }

    const rows: Row[] = [];

    // Warm-up, not measured: a server that has run for a while has its code compiled and its statements prepared.
    await driveInWorker({ base, filterId, agents: agents.slice(0, 50), mode: "closed", seconds: WARMUP_SECONDS });

    // Open loop: each manager presses every ~2 s (jittered), whatever the answers' speed.
    {
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
        target: `p99 ≤ 25 ms: ${percentile(latencies, 99) <= 25 ? "met" : "MISSED"}`,
      });
    }

    for (const size of [50, 200]) {
      const group = agents.slice(0, size);
      const cpu = cpuSnapshot();
      const { latencies } = await driveInWorker({ base, filterId, agents: group, mode: "closed", seconds: SECONDS });
      const httpRate = latencies.length / SECONDS;
      const httpCpu = cpuPerTurn(cpu, latencies.length);

      // The floor: the statements the turn runs (the session lookup the bearer token needs, then the turn's one
      // statement, turnStatement) straight through postgres.js at the same concurrency, prepared as the app's are.
      const held = await sql<{ id: string; held_by: number }[]>`select id, held_by from contacts where held_by is not null`;
      const holding = new Map(held.map((h) => [h.held_by, Number(h.id)]));
      const tokenOf = new Map(agents.map((a) => [a.userId, a.auth.slice("Bearer ".length)]));
      let floorTurns = 0;
      const floorCpu = cpuSnapshot();
      const floorUntil = Date.now() + SECONDS * 1000;
      await Promise.all(
        group.map(async (agent) => {
          let contactId = holding.get(agent.userId) ?? 0;
          while (Date.now() < floorUntil && contactId) {
            await sql`select s.id, s.expires_at, u.* from sessions s join users u on u.id = s.user_id where s.id = ${tokenOf.get(agent.userId)!}`;
            const query = dialect.sqlToQuery(
              turnStatement({
                userId: agent.userId,
                filterId,
                contactId,
                statusText: "Не интересно",
                clientInfo: "",
                withPassport: false,
                holdMinutes: 30,
              }),
            );
            const [next] = await sql.unsafe<{ id: string | null; event_id: string | null }[]>(query.sql, query.params as never[], {
              prepare: true,
            });
            if (!next?.event_id) throw new Error("floor turn refused");
            contactId = next.id ? Number(next.id) : 0;
            floorTurns++;
          }
        }),
      );
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
        target: `ratio ≥ 0.5: ${httpRate / floorRate >= 0.5 ? "met" : "MISSED"}`,
      });
    }

    printTable(
      `Lead turns over HTTP (update-and-get-lead), ${CONTACTS.toLocaleString("en-US")} contacts, ${SECONDS} s per run`,
      rows,
    );
  } finally {
    await app.close().catch(() => {});
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
