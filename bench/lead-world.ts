import { type SQL, sql } from "drizzle-orm";
import { type Db, type DbHandle, queryRows } from "../db/client";
import { seed } from "../server/seed";
import { createSessionStore } from "../server/auth/sessions";
import { turnStatement } from "../server/core/leads/record-status";
import type { Agent } from "./lead-driver";

/**
 * The world the lead benches' managers work in, on either backend: bench/leads.ts (Postgres) and bench/capacity.ts
 * (PGlite, then served by the app's own process). Migrated and seeded like a first start, then:
 * - `contacts` contacts over 20 bases, in import order base by base;
 * - a do-not-call list of `doNotCall` numbers (issue 18): every 23rd contact's number is on it (spread over the
 *   bases), the rest are numbers no base holds; the claim skips the listed contacts it walks past;
 * - `managers` online managers, each with a session token, all in one topic ("Нагрузка": every base, free contacts
 *   and "Перезвонить");
 * - `callbacks` pending callbacks (issue 18) spread over the managers: a twentieth overdue past the grace time
 *   (handed out by the first turns), the rest due tomorrow;
 * - calling hours (issue 29): the contacts' zones in turn Kyiv, Moscow, Yekaterinburg, Novosibirsk, Vladivostok, and
 *   the topic's window around the clock (00:00 to 00:00), so every turn reads each candidate's local time and the
 *   figures do not depend on the hour the bench runs. Each base holds one zone (base n: zone n mod 5), or, with
 *   `mixedZones`, all five in turn (issue 43: a base with several zones open at once);
 * - retry rules on two statuses (issue 29, decision 057): «Недозвон» back after 2 hours, at most 5 attempts,
 *   «Занято» after 1 hour, at most 3, both then «Отказ». One contact in 11 carries one of them: a tenth of
 *   those pressed 3 hours ago (due: the retry tier hands them out first), the rest 30 minutes ago (waiting: the
 *   tier looks at them on every turn and passes them by).
 */
export interface LeadWorldSizes {
  contacts: number;
  doNotCall: number;
  callbacks: number;
  managers: number;
  /** Seed the two retry rules and their contacts (default); BENCH_RETRY_RULES=0 leaves them out, for a same-day comparison. */
  retryRules?: boolean;
  /** VACUUM ANALYZE the tables after seeding (default): the statistics autovacuum gives a Postgres server. */
  analyze?: boolean;
  /** Every base holds all five zones in turn (BENCH_MIXED_ZONES=1), rather than one zone a base. */
  mixedZones?: boolean;
}

export interface LeadWorld {
  filterId: number;
  agents: Agent[];
}

export async function seedLeadWorld(handle: DbHandle, sizes: LeadWorldSizes): Promise<LeadWorld> {
  const { db } = handle;
  const run = <T = Record<string, unknown>>(text: string) => queryRows<T>(db, sql.raw(text));
  const { contacts, doNotCall, callbacks, managers } = sizes;
  await handle.migrate();
  await seed(db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
  await run(`insert into databases (name, contacts_count) select 'База ' || g, ${Math.floor(contacts / 20)} from generate_series(1, 20) g`);
  await run(`
    insert into contacts (database_id, name, phone, phone_key, tz)
    select 1 + (g % 20), 'Клиент ' || g, '0' || (500000000 + g)::text, '380' || (500000000 + g)::text,
      (array['Europe/Kyiv', 'Europe/Moscow', 'Asia/Yekaterinburg', 'Asia/Novosibirsk', 'Asia/Vladivostok'])[1 + ${sizes.mixedZones ? "(g / 20)" : "g"} % 5]
    from generate_series(1, ${contacts}) g order by 1 + (g % 20), g`);
  const listedContacts = Math.floor(contacts / 23);
  await run(`
    insert into do_not_call (phone_key, phone)
    select '380' || (500000000 + g)::text, '0' || (500000000 + g)::text from generate_series(23, ${listedContacts * 23}, 23) g
    union all
    select '380' || (600000000 + g)::text, '0' || (600000000 + g)::text from generate_series(1, ${doNotCall - listedContacts}) g`);
  if (handle.kind === "postgres") {
    // DESIGN §10: claimed rows linger in the partial index until VACUUM; autovacuum runs often and without delay.
    // (PGlite has no autovacuum: the embedded app runs with what its turns leave behind.)
    await run("alter table contacts set (autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000, autovacuum_vacuum_cost_delay = 0)");
  }

  const [{ id: callBack }] = await run<{ id: number }>("select id from statuses where text = 'Перезвонить'");
  const users = await run<{ id: number }>(`
    insert into users (login, password_hash, access_key, display_name, is_online)
    select 'bench' || g, 'x', 'KEY' || g, 'Менеджер ' || g, true from generate_series(1, ${managers}) g returning id`);
  const [{ id: filterId }] = await run<{ id: number }>(
    "insert into filters (name, calls_from, calls_until) values ('Нагрузка', '00:00', '00:00') returning id",
  );
  await run(`insert into filter_databases (filter_id, database_id) select ${filterId}, id from databases`);
  await run(`insert into filter_statuses (filter_id, status_id) values (${filterId}, ${callBack})`);
  await run(`insert into filter_managers (filter_id, user_id) select ${filterId}, id from users where login like 'bench%' and not is_admin`);
  const statusId = async (text: string) => (await run<{ id: number }>(`select id from statuses where text = '${text}'`))[0].id;
  if (sizes.retryRules ?? true) {
    const [noAnswer, busy, refused] = [await statusId("Недозвон"), await statusId("Занято"), await statusId("Отказ")];
    await run(`insert into filter_statuses (filter_id, status_id) values (${filterId}, ${noAnswer}), (${filterId}, ${busy})`);
    await run(`insert into filter_retry_rules (filter_id, status_id, delay_minutes, max_attempts, final_status_id)
      values (${filterId}, ${noAnswer}, 120, 5, ${refused}), (${filterId}, ${busy}, 60, 3, ${refused})`);
    await run(`update contacts set status_id = case when id % 2 = 0 then ${noAnswer} else ${busy} end,
        status_at = now() - case when (id / 11) % 10 = 0 then interval '3 hours' else interval '30 minutes' end
      where id % 11 = 5`);
  }
  if (callbacks > 0) {
    const [{ id: callbackStatus }] = await run<{ id: number }>(`
      insert into statuses (text, button_text, asks_callback) values ('Перезвон по времени', 'Перезвон по времени', true) returning id`);
    await run(`
      with m as (select id, row_number() over (order by id) - 1 as n, count(*) over () as total from users where login like 'bench%' and not is_admin),
      picked as (select id, database_id, row_number() over (order by id desc) - 1 as n from contacts order by id desc limit ${callbacks}),
      marked as (update contacts set status_id = ${callbackStatus}, status_at = now() - interval '1 day' where id in (select id from picked))
      insert into callbacks (contact_id, database_id, user_id, filter_id, status_text, due_at)
      select p.id, p.database_id, m.id, ${filterId}, 'Перезвон по времени',
        case when p.n % 20 = 0 then now() - interval '1 hour' else now() + interval '1 day' + make_interval(secs => p.n) end
      from picked p join m on m.n = p.n % m.total`);
  }
  if (sizes.analyze ?? true) await analyzeLeadWorld(handle.db);
  else await run("checkpoint");

  const sessions = createSessionStore(db, 1);
  const agents = await Promise.all(users.map(async (u) => ({ userId: u.id, auth: `Bearer ${(await sessions.create(u.id)).token}`, leadId: 0 })));
  return { filterId, agents };
}

/**
 * The tables' statistics and visibility maps, as autovacuum keeps them on a Postgres server (PGlite runs none: the
 * embedded app works without them until someone runs this). Then a checkpoint: the seeding wrote a few hundred MB,
 * flushed now rather than in the middle of the measured runs.
 */
export async function analyzeLeadWorld(db: Db): Promise<void> {
  for (const table of ["do_not_call", "callbacks", "contacts"]) await queryRows(db, sql.raw(`vacuum analyze ${table}`));
  await queryRows(db, sql.raw("checkpoint"));
}

/** What must never happen, counted after a run: a manager holding two contacts, a contact with two events, a listed number handed out. */
export async function checkLeadWorld(db: Db): Promise<{ doubleHeld: number; doubleEvents: number; listedHanded: number }> {
  const [row] = await queryRows<{ doubleHeld: number; doubleEvents: number; listedHanded: number }>(
    db,
    sql`select
      (select count(*) from lead_events e join contacts c on c.id = e.contact_id
         where exists (select 1 from do_not_call d where d.phone_key = c.phone_key))::int as "listedHanded",
      (select count(*) from (select held_by from contacts where held_by is not null group by held_by having count(*) > 1) x)::int as "doubleHeld",
      (select count(*) from (select contact_id from lead_events group by contact_id having count(*) > 1) y)::int as "doubleEvents"`,
  );
  return row;
}

/**
 * The floor under the HTTP figures: the statements a turn runs (the session lookup the bearer token needs, then the
 * turn's one statement, turnStatement) with no HTTP and no app around them, `group` managers at once, each from the
 * contact he holds, for `seconds`. `exec` runs one statement through the caller's client (postgres.js prepared as
 * the app's are, or the PGlite handle). Answers the turns made.
 */
export async function driveFloor(
  db: Db,
  group: Agent[],
  filterId: number,
  seconds: number,
  exec: (statement: SQL) => Promise<Array<Record<string, unknown>>>,
): Promise<number> {
  const held = await queryRows<{ id: string; held_by: number }>(db, sql`select id, held_by from contacts where held_by is not null`);
  const holding = new Map(held.map((h) => [h.held_by, Number(h.id)]));
  let turns = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    group.map(async (agent) => {
      let contactId = holding.get(agent.userId) ?? 0;
      const token = agent.auth.slice("Bearer ".length);
      while (Date.now() < until && contactId) {
        await exec(sql`select s.id, s.expires_at, u.* from sessions s join users u on u.id = s.user_id where s.id = ${token}`);
        const [next] = await exec(
          turnStatement({
            presser: { userId: agent.userId, filterId },
            contactId,
            status: { text: "Отказ" },
            clientInfo: "",
            withPassport: false,
            holdMinutes: 30,
          }),
        );
        if (!next?.event_id) throw new Error("floor turn refused");
        contactId = next.id ? Number(next.id) : 0;
        turns++;
      }
    }),
  );
  return turns;
}
