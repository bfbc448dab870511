import type { AddressInfo } from "node:net";
import { PgDialect } from "drizzle-orm/pg-core";
import postgres from "postgres";
import { createDb } from "../db/client";
import { seed } from "../db/seed";
import { buildApp } from "../server/app";
import { createSessionStore } from "../server/auth/sessions";
import { loadConfig } from "../server/config";
import { turnStatement } from "../server/core/leads/record-status";
import { median, percentile, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * Issue 5: the lead turn (update-and-get-lead) on real Postgres with 1,000,000 contacts over 20 bases, driven
 * through HTTP by simulated managers:
 * - open loop: 500 managers each pressing a status about every 2 s (about 250 turns/s offered): p50 and p99;
 * - closed loop: 50 and 200 managers with no pause: turns/s, against the same SQL statements the turn runs,
 *   driven directly through postgres.js at the same concurrency in the same run (the floor the database sets);
 * - after every run: no manager holding two contacts, no contact with two events for one press.
 * The load generator runs in the same process as the server, so its own cost is inside the HTTP numbers.
 */
const CONTACTS = Number(process.env.BENCH_CONTACTS || 1_000_000);
const SECONDS = Number(process.env.BENCH_SECONDS || 15);
const OPEN_MANAGERS = Number(process.env.BENCH_OPEN_MANAGERS || 500);
const dialect = new PgDialect();

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

    /** One manager: his token, the lead he holds. */
    const agents = managers.map((m, i) => ({ userId: m.id, auth: `Bearer ${tokens[i]}`, leadId: 0 }));
    const firstLead = async (agent: (typeof agents)[number]) => {
      const res = await fetch(`${base}/database/filtered-lead?filterId=${filterId}&userId=${agent.userId}`, {
        headers: { Authorization: agent.auth },
      });
      const body = (await res.json()) as { id?: number } | "";
      agent.leadId = typeof body === "object" && body.id ? body.id : 0;
    };
    const turn = async (agent: (typeof agents)[number]) => {
      const started = performance.now();
      const res = await fetch(`${base}/status/update-and-get-lead`, {
        method: "PUT",
        headers: { Authorization: agent.auth, "Content-Type": "application/json" },
        body: JSON.stringify({
          statusText: "Не интересно",
          contactId: agent.leadId,
          userId: agent.userId,
          passport: "",
          filterId,
          clientInfo: "",
        }),
      });
      const body = (await res.json()) as { id?: number } | "";
      if (res.status !== 200) throw new Error(`turn failed: ${res.status} ${JSON.stringify(body)}`);
      agent.leadId = typeof body === "object" && body.id ? body.id : 0;
      return performance.now() - started;
    };

    const check = async () => {
      const [row] = await sql<{ doubleHeld: number; doubleEvents: number }[]>`
        select
          (select count(*) from (select held_by from contacts where held_by is not null group by held_by having count(*) > 1) x)::int as "doubleHeld",
          (select count(*) from (select contact_id from lead_events group by contact_id having count(*) > 1) y)::int as "doubleEvents"`;
      return row;
    };

    if (process.env.BENCH_EXPLAIN) {
      // The turn's plan on this data (stderr, not in the table): one manager's first lead, then one press.
      await firstLead(agents[0]);
      const query = dialect.sqlToQuery(
        turnStatement({ userId: agents[0].userId, filterId, contactId: agents[0].leadId, statusText: "Не интересно", clientInfo: "", withPassport: false, holdMinutes: 30 }),
      );
      const plan = await sql.unsafe(`explain (analyze, buffers) ${query.sql}`, query.params as never[]);
      console.error(plan.map((r) => Object.values(r)[0]).join("\n"));
      const [next] = await sql<{ id: string }[]>`select id from contacts where held_by = ${agents[0].userId}`;
      agents[0].leadId = next ? Number(next.id) : 0;
    }

    const rows: Row[] = [];

    // Open loop: each manager presses every ~2 s (jittered), whatever the answers' speed.
    {
      const group = agents.slice(0, OPEN_MANAGERS);
      await Promise.all(group.map(firstLead));
      const latencies: number[] = [];
      const until = Date.now() + SECONDS * 1000;
      await Promise.all(
        group.map(async (agent) => {
          await new Promise((r) => setTimeout(r, Math.random() * 2000));
          while (Date.now() < until && agent.leadId) {
            const next = Date.now() + 1500 + Math.random() * 1000;
            latencies.push(await turn(agent));
            await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
          }
        }),
      );
      const c = await check();
      rows.push({
        run: `open loop, ${OPEN_MANAGERS} managers, ~2 s apart`,
        turns: latencies.length,
        "turns/s": latencies.length / SECONDS,
        "p50 ms": median(latencies),
        "p99 ms": percentile(latencies, 99),
        "floor turns/s": "",
        ratio: "",
        "held twice": c.doubleHeld,
        "events twice": c.doubleEvents,
      });
    }

    for (const size of [50, 200]) {
      const group = agents.slice(0, size);
      await Promise.all(group.map(firstLead));
      const latencies: number[] = [];
      const until = Date.now() + SECONDS * 1000;
      await Promise.all(
        group.map(async (agent) => {
          while (Date.now() < until && agent.leadId) latencies.push(await turn(agent));
        }),
      );
      const httpRate = latencies.length / SECONDS;

      // The floor: the statements the turn runs (the session lookup the bearer token needs, then the turn's one
      // statement, turnStatement) straight through postgres.js at the same concurrency.
      const held = await sql<{ id: string; held_by: number }[]>`select id, held_by from contacts where held_by is not null`;
      const holding = new Map(held.map((h) => [h.held_by, Number(h.id)]));
      const tokenOf = new Map(agents.map((a) => [a.userId, a.auth.slice("Bearer ".length)]));
      let floorTurns = 0;
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
            const [next] = await sql.unsafe<{ id: string | null; event_id: string | null }[]>(query.sql, query.params as never[]);
            if (!next?.event_id) throw new Error("floor turn refused");
            contactId = next.id ? Number(next.id) : 0;
            floorTurns++;
          }
        }),
      );
      const floorRate = floorTurns / SECONDS;
      const c = await check();
      rows.push({
        run: `closed loop, ${size} managers`,
        turns: latencies.length,
        "turns/s": httpRate,
        "p50 ms": median(latencies),
        "p99 ms": percentile(latencies, 99),
        "floor turns/s": floorRate,
        ratio: httpRate / floorRate,
        "held twice": c.doubleHeld,
        "events twice": c.doubleEvents,
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
