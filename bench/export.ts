import { PassThrough } from "node:stream";
import ExcelJS from "exceljs";
import postgres from "postgres";
import { createDb } from "../db/client";
import { exports } from "../db/schema";
import { seed } from "../db/seed";
import { EXPORT_HEADER, claimNextExport, runExportJob } from "../server/core/exports/run";
import { median, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * Issue 4: an export of ROWS contacts on real Postgres (the worker's whole job: count, keyset pages with the
 * joins, exceljs streaming write, progress updates, the file stored in the row) against a bare exceljs streaming
 * write of the same rows already in memory, in the same run. Target: ratio 1.5 or less.
 */
const ROWS = Number(process.env.BENCH_EXPORT_ROWS || 100_000);
const RUNS = Number(process.env.BENCH_RUNS || 3);

async function bareWrite(rows: unknown[][]) {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on("data", (c: Buffer) => chunks.push(c));
  const done = new Promise((resolve) => stream.on("end", resolve));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet("Экспорт");
  sheet.addRow(EXPORT_HEADER).commit();
  for (const row of rows) sheet.addRow(row).commit();
  sheet.commit();
  await workbook.commit();
  await done;
  return Buffer.concat(chunks).length;
}

async function main() {
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_export_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(PG_URL, name);
  const handle = await createDb({ databaseUrl: url, poolSize: 4 });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await handle.migrate();
    await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
    await sql`insert into databases (name, contacts_count) values ('Экспортная', ${ROWS}), ('Другая', ${ROWS})`;
    const [status] = await sql`select id from statuses where button_text = 'Отказ'`;
    // Half of the exported base has the status, with a manager and a client card; the other base is noise.
    await sql.unsafe(`
      insert into contacts (database_id, name, phone, phone_key, city, address, age, additional_info1, status_id, status_at, last_user_id, client_info)
      select 1 + (g % 2), 'Клиент ' || g, '050' || lpad(g::text, 7, '0'), '38050' || lpad(g::text, 7, '0'),
             'Киев', 'ул. Садовая, ' || (g % 300), (20 + g % 50)::text, 'заметка ' || g,
             ${status.id}, now() - (g || ' seconds')::interval, 1, 'Паспорт: есть' || chr(10) || 'Сумма: ' || g
      from generate_series(1, ${ROWS * 2}) g`);
    await sql.unsafe("vacuum analyze contacts");

    const [{ n }] = await sql`select count(*)::int as n from contacts where database_id = 1 and status_id = ${status.id}`;
    const memoryRows = (
      await sql.unsafe(`select c.name, c.phone, c.city, c.address, c.age, c.additional_info1, '' a2, '' a3, '' a4, d.name base,
                               s.text status, u.display_name manager, to_char(c.status_at, 'DD.MM.YYYY, HH24:MI:SS') at, c.client_info
                        from contacts c join databases d on d.id = c.database_id join statuses s on s.id = c.status_id
                        join users u on u.id = c.last_user_id where c.database_id = 1 order by c.id`)
    ).map((r) => Object.values(r));

    const bare: number[] = [];
    const job: number[] = [];
    let bytes = 0;
    for (let run = 0; run < RUNS; run++) {
      let started = performance.now();
      await bareWrite(memoryRows);
      bare.push(performance.now() - started);

      await handle.db.delete(exports);
      await handle.db.insert(exports).values({ name: "bench", databaseIds: [1], statusIds: [status.id] });
      started = performance.now();
      const claimed = await claimNextExport(handle.db, "bench", 60);
      if (!claimed) throw new Error("no job");
      const result = await runExportJob(handle.db, claimed, "bench", 60, () => false);
      job.push(performance.now() - started);
      bytes = result.bytes;
    }
    const rows: Row[] = [
      { step: "bare exceljs streaming write (rows in memory)", rows: memoryRows.length, "median s": median(bare) / 1000, ratio: 1 },
      {
        step: "export job (query pages + write + progress + store)",
        rows: n,
        "median s": median(job) / 1000,
        ratio: median(job) / median(bare),
        "file MB": bytes / 2 ** 20,
      },
    ];
    printTable(`Export of ${ROWS.toLocaleString("en")} contacts (Postgres; target: ratio 1.5 or less)`, rows);
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
