import postgres from "postgres";
import { createDb } from "../db/client";
import { seed } from "../server/seed";
import { searchContacts } from "../server/core/bases/search";
import { median, percentile, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * Issue 4: search at 1,000,000 contacts (20 bases) on real Postgres: median latency by phone (written in a
 * different way than stored) and by a part of a name, in all bases and in one. Target: median 50 ms or less.
 * Calls the core function the API and the page use (the HTTP layer is measured by other benches).
 */
const CONTACTS = Number(process.env.BENCH_CONTACTS || 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES || 40);
const ADMIN_ACTOR = { id: 1, login: "bench", isAdmin: true };

async function main() {
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_search_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(PG_URL, name);
  const handle = await createDb({ databaseUrl: url, poolSize: 4 });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await handle.migrate();
    await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
    await sql`insert into databases (name, contacts_count) select 'База ' || g, ${CONTACTS / 20} from generate_series(1, 20) g`;
    // Realistic names: 40 surnames x 20 first names, and a number so most full names are rare.
    await sql.unsafe(`
      insert into contacts (database_id, name, phone, phone_key)
      select 1 + (g % 20),
             (array['Иванов','Петренко','Коваленко','Шевченко','Бондаренко','Ткаченко','Кравченко','Олейник','Шевчук','Поляков',
                    'Мельник','Бойко','Ковальчук','Савченко','Руденко','Мороз','Лысенко','Марченко','Павленко','Гончаренко',
                    'Кузьменко','Левченко','Харченко','Карпенко','Пономаренко','Сидоренко','Гаврилюк','Клименко','Литвиненко','Романенко',
                    'Нестеренко','Приходько','Тимошенко','Захарченко','Васильев','Смирнов','Соколов','Попов','Лебедев','Новиков'])[1 + g % 40]
             || ' ' || (array['Иван','Олег','Мария','Анна','Андрей','Ольга','Сергей','Наталья','Дмитрий','Юлия',
                              'Алексей','Ирина','Виктор','Елена','Павел','Татьяна','Николай','Светлана','Артём','Виктория'])[1 + (g / 40) % 20]
             || ' ' || g,
             '0' || (50 + g % 50)::text || lpad((g % 10000000)::text, 7, '0'),
             '380' || (50 + g % 50)::text || lpad((g % 10000000)::text, 7, '0')
      from generate_series(1, ${CONTACTS}) g`);
    await sql.unsafe("vacuum analyze contacts");

    const time = async (term: string, database = 0) => {
      const samples: number[] = [];
      let hits = 0;
      for (let i = 0; i < SAMPLES + 3; i++) {
        const started = performance.now();
        const result = await searchContacts(handle.db, ADMIN_ACTOR, { term, database }, { phoneRegion: "UA" });
        if (i >= 3) samples.push(performance.now() - started);
        hits = result.length;
      }
      return { hits, samples };
    };
    const rows: Row[] = [];
    const add = (what: string, term: string, r: { hits: number; samples: number[] }) =>
      rows.push({ search: what, term, hits: r.hits, "median ms": median(r.samples), "p95 ms": percentile(r.samples, 95) });
    // g = 123457: 0 + (50 + 7) + 0123457 → 0570123457
    add("phone, all bases", "+38 (057) 012-34-57", await time("+38 (057) 012-34-57"));
    add("phone, one base", "057 012 34 57", await time("057 012 34 57", 1 + (123457 % 20)));
    add("rare name part, all bases", "ковальчук ирина 12", await time("ковальчук ирина 12"));
    add("surname, all bases (capped at 200 hits)", "петренко", await time("петренко"));
    add("name part, one base", "лысенко", await time("лысенко", 17));
    add("no match", "Зюзюкин", await time("Зюзюкин"));
    printTable(`Search at ${CONTACTS.toLocaleString("en")} contacts (Postgres; target: median 50 ms or less)`, rows);
  } finally {
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
