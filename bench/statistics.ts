import postgres from "postgres";
import { sql as drizzleSql } from "drizzle-orm";
import { createDb, queryRows } from "../db/client";
import { seed } from "../server/seed";
import { buildApp } from "../server/app";
import { loadConfig } from "../server/config";
import { callNumbersStatement } from "../server/core/statistics/call-numbers";
import { kyivDay } from "../common/business-time";
import { median, percentile, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * GET /api/v1/statistics on real Postgres with 1,000,000 contacts in 20 bases and 200,000 lead events
 * (issue 8 target: median 50 ms or less). Two spreads of the events: a month of work (about 1/30 of them today)
 * and the worst case, all of them today. Baseline: GET /api/v1/users/{own id} (the same bearer check and one
 * small query) through the same stack in the same run.
 *
 * The call log gets 100,000 calls spread alike (issue 29's call numbers, decision 060: 50 managers, six topics and
 * calls without one, 70% on a client, 30% answered, a tenth in, one in fifty refused by the call check); the plan
 * of the call numbers' one statement is printed for each spread.
 */
const CONTACTS = Number(process.env.BENCH_CONTACTS || 1_000_000);
const EVENTS = Number(process.env.BENCH_EVENTS || 200_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS || 40);
const CALLS = Number(process.env.BENCH_CALLS || 100_000);
const ADMIN = { login: "bench-admin", password: "Bench-password-1", accessKey: "BENCHKEY00000001" };

async function main() {
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_stats_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const handle = await createDb({ databaseUrl: withDatabase(PG_URL, name), poolSize: 10 });
  const sql = postgres(withDatabase(PG_URL, name), { max: 1, onnotice: () => {} });
  try {
    await handle.migrate();
    await seed(handle.db, ADMIN);
    await sql`insert into users (login, password_hash, access_key, display_name)
              select 'bench-m' || g, 'x', 'KEY' || g, 'Менеджер ' || g from generate_series(1, 50) g`;
    await sql`insert into databases (name, contacts_count, created_at)
              select 'База ' || g, ${CONTACTS / 20}, now() - (g || ' days')::interval from generate_series(1, 20) g`;
    await sql`insert into contacts (database_id, name, phone, phone_key)
              select d.id, 'Клиент ' || g, '+38050' || g, '38050' || g
              from generate_series(1, ${CONTACTS / 20}) g cross join databases d`;
    await sql`vacuum analyze contacts`;
    await sql`insert into filters (name) select 'Тематика ' || g from generate_series(1, 6) g`;

    const config = loadConfig({ LOG_LEVEL: "silent" });
    const app = await buildApp({ handle, config, web: false });
    await app.ready();
    const login = await app.inject({ method: "POST", url: "/api/v1/auth/login", payload: ADMIN });
    const headers = { authorization: `Bearer ${login.json().access_token}` };
    const time = async (url: string) => {
      const samples: number[] = [];
      for (let i = 0; i < REQUESTS + 5; i++) {
        const started = performance.now();
        const res = await app.inject({ method: "GET", url, headers });
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
        if (i >= 5) samples.push(performance.now() - started);
      }
      return samples;
    };

    const rows: Row[] = [];
    const plans: string[] = [];
    // A month of work, or all of it since Kyiv midnight (the worst case for "today").
    const kyivMidnight = sql`${kyivDay(new Date()).start}::timestamptz`;
    for (const [label, spread] of [
      ["events over 30 days", sql`interval '30 days'`],
      ["all events today", sql`(now() - ${kyivMidnight})`],
    ] as const) {
      await sql`truncate lead_events cascade`;
      await sql`insert into lead_events (contact_id, database_id, user_id, status_id, status_text, is_report, is_technical, created_at)
                select g, (g % 20) + 1, (select min(id) from users) + 1 + (g % 50), s.id, s.text, s.is_report_status, s.is_technical,
                       now() - random() * ${spread}
                from generate_series(1, ${EVENTS}) g
                join statuses s on s.id = (select min(id) from statuses) + (g % 5)`;
      await sql`vacuum analyze lead_events`;
      await sql`truncate calls cascade`;
      await sql`insert into calls (user_id, contact_id, number, direction, started_at, answered_at, ended_at, last_seen_at,
                                   talk_seconds, outcome, sip_code, reason, filter_id)
                select u, case when g % 10 < 7 then (select min(id) from contacts) + ((g % 40000) * 17) % ${CONTACTS} end, '+38050' || g,
                       case when g % 10 = 9 then 'in' else 'out' end, at,
                       case when g % 10 < 3 then at + interval '5 seconds' end, at + interval '1 minute', at + interval '1 minute',
                       case when g % 10 < 3 then 55 else 0 end,
                       case when g % 10 < 3 then 'answered' when g % 50 = 7 then 'failed' else 'no_answer' end,
                       case when g % 10 < 3 then null when g % 50 = 7 then 403 else 480 end,
                       case when g % 10 < 3 then null when g % 50 = 7 then 'Номер в списке «Не звонить»' else 'Абонент недоступен' end,
                       case when g % 7 = 0 then null else (select min(id) from filters) + g % 6 end
                from (select g, (select min(id) from users) + 1 + (g % 50) as u, now() - random() * ${spread} as at
                      from generate_series(1, ${CALLS}) g) x`;
      await sql`vacuum analyze calls`;
      const day = kyivDay(new Date());
      const plan = await queryRows<{ "QUERY PLAN": string }>(
        handle.db,
        drizzleSql`explain (analyze, buffers) ${callNumbersStatement(day.start, day.end)}`,
      );
      plans.push(`Call numbers' statement, ${label} (EXPLAIN ANALYZE):\n${plan.map((line) => line["QUERY PLAN"]).join("\n")}`);
      const baseline = await time(`/api/v1/users/${login.json().user.id}`);
      const stats = await time("/api/v1/statistics");
      const [{ today }] = await sql`select count(*)::int as today from lead_events where created_at >= ${day.start}`;
      const [{ callsToday }] = await sql`select count(*)::int as "callsToday" from calls where started_at >= ${day.start}`;
      rows.push({
        case: label,
        "events today": today,
        "calls today": callsToday,
        "users/{id} median ms": median(baseline),
        "statistics median ms": median(stats),
        "statistics p95 ms": percentile(stats, 95),
        "ratio to users/{id}": median(stats) / median(baseline),
        target: "median <= 50 ms",
      });
    }
    await app.close();
    printTable(
      `GET /api/v1/statistics, ${CONTACTS.toLocaleString("en")} contacts, ${EVENTS.toLocaleString("en")} lead events, ${CALLS.toLocaleString("en")} calls (Postgres)`,
      rows,
    );
    for (const plan of plans) console.log(`\n${plan}`);
  } finally {
    await sql.end();
    await handle.close().catch(() => {});
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
