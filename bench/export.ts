import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { sql } from "drizzle-orm";
import ExcelJS from "exceljs";
import postgres from "postgres";
import { createDb, type DbHandle, queryRows } from "../db/client";
import { exports } from "../db/schema";
import { seed } from "../server/seed";
import { EXPORT_HEADER, claimNextExport, runExportJob } from "../server/core/exports/run";
import { buildPages, startApp } from "./app";
import { benchAdminAuthorization, httpJson, median, PG_URL, printTable, processMemoryMb, withDatabase, type Row } from "./lib";

/**
 * Issue 4: an export of ROWS contacts on real Postgres (the worker's whole job: count, keyset pages with the
 * joins, exceljs streaming write, progress updates, the file stored in the row) against a bare exceljs streaming
 * write of the same rows already in memory, in the same run. Target: ratio 1.5 or less.
 *
 * Issue 19: the same export on the embedded database, as `npm start` serves it (the app's own process on a PGlite
 * DATA_DIR): the job asked for through /api/v1 and timed by its own start and end times, alternating with the bare
 * write; and the app process's peak RSS (VmHWM: the WASM heap of PGlite is in it), beside its RSS when idle.
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

/** The exported base (ROWS contacts, half of them with the status, a manager and a client card) and a noise base. */
async function seedExportBases(handle: DbHandle): Promise<number> {
  const run = <T = Record<string, unknown>>(text: string) => queryRows<T>(handle.db, sql.raw(text));
  await handle.migrate();
  await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
  await run(`insert into databases (name, contacts_count) values ('Экспортная', ${ROWS}), ('Другая', ${ROWS})`);
  const [status] = await run<{ id: number }>("select id from statuses where button_text = 'Отказ'");
  await run(`
    insert into contacts (database_id, name, phone, phone_key, city, address, age, additional_info1, status_id, status_at, last_user_id, client_info)
    select 1 + (g % 2), 'Клиент ' || g, '050' || lpad(g::text, 7, '0'), '38050' || lpad(g::text, 7, '0'),
           'Киев', 'ул. Садовая, ' || (g % 300), (20 + g % 50)::text, 'заметка ' || g,
           ${status.id}, now() - (g || ' seconds')::interval, 1, 'Паспорт: есть' || chr(10) || 'Сумма: ' || g
    from generate_series(1, ${ROWS * 2}) g`);
  await run("vacuum analyze contacts");
  return status.id;
}

/** The exported rows as the file shows them, read into memory: the bare write's input. */
async function rowsInMemory(handle: DbHandle): Promise<unknown[][]> {
  const rows = await queryRows<Record<string, unknown>>(
    handle.db,
    sql.raw(`select c.name, c.phone, c.city, c.address, c.age, c.additional_info1, '' a2, '' a3, '' a4, d.name base,
                    s.text status, u.display_name manager, to_char(c.status_at, 'DD.MM.YYYY, HH24:MI:SS') at, c.client_info
             from contacts c join databases d on d.id = c.database_id join statuses s on s.id = c.status_id
             join users u on u.id = c.last_user_id where c.database_id = 1 order by c.id`),
  );
  return rows.map((r) => Object.values(r));
}

async function onPostgres(): Promise<Row[]> {
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_export_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(PG_URL, name);
  const handle = await createDb({ databaseUrl: url, poolSize: 4 });
  try {
    const statusId = await seedExportBases(handle);
    const memoryRows = await rowsInMemory(handle);

    const bare: number[] = [];
    const job: number[] = [];
    let bytes = 0;
    let written = 0;
    for (let run = 0; run < RUNS; run++) {
      let started = performance.now();
      await bareWrite(memoryRows);
      bare.push(performance.now() - started);

      await handle.db.delete(exports);
      await handle.db.insert(exports).values({ name: "bench", databaseIds: [1], statusIds: [statusId] });
      started = performance.now();
      const claimed = await claimNextExport(handle.db, "bench", 60);
      if (!claimed) throw new Error("no job");
      const result = await runExportJob(handle.db, claimed, "bench", 60, () => false);
      job.push(performance.now() - started);
      bytes = result.bytes;
      written = result.rows;
    }
    return [
      {
        backend: "Postgres",
        step: "bare exceljs streaming write (rows in memory)",
        rows: memoryRows.length,
        "median s": median(bare) / 1000,
        ratio: 1,
      },
      {
        backend: "Postgres",
        step: "export job (query pages + write + progress + store)",
        rows: written,
        "median s": median(job) / 1000,
        ratio: median(job) / median(bare),
        "file MB": bytes / 2 ** 20,
      },
    ];
  } finally {
    await handle.close();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

interface ExportView {
  id: number;
  isExported: boolean;
  error: string | null;
  rowsWritten: number;
  startTime: string | null;
  endTime: string | null;
}

async function onPglite(): Promise<Row[]> {
  buildPages("export");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-bench-export-"));
  try {
    const handle = await createDb({ dataDir });
    const statusId = await seedExportBases(handle);
    const memoryRows = await rowsInMemory(handle);
    const auth = await benchAdminAuthorization(handle.db);
    await handle.close();

    const app = await startApp({ env: { DATA_DIR: dataDir, DATABASE_URL: "" } });
    const api = `${app.origin}/api/v1/database/exports`;
    try {
      const idle = processMemoryMb(app.pid);
      const bare: number[] = [];
      const job: number[] = [];
      let last: ExportView | undefined;
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        await bareWrite(memoryRows);
        bare.push(performance.now() - started);

        const created = await httpJson(api, {
          method: "POST",
          headers: { Authorization: auth },
          body: { name: "bench", databaseIds: [1], statusIds: [statusId] },
        });
        if (created.status !== 201) throw new Error(`export not created: ${created.status} ${created.text}`);
        const { id } = JSON.parse(created.text) as ExportView;
        for (;;) {
          await new Promise((r) => setTimeout(r, 100));
          const list = JSON.parse((await httpJson(api, { headers: { Authorization: auth } })).text) as ExportView[];
          last = list.find((e) => e.id === id);
          if (!last) throw new Error(`export ${id} is gone`);
          if (last.error) throw new Error(`export ${id} failed: ${last.error}`);
          if (last.isExported) break;
        }
        job.push(Date.parse(last.endTime!) - Date.parse(last.startTime!));
        if (run < RUNS - 1) await httpJson(`${api}/${id}`, { method: "DELETE", headers: { Authorization: auth } });
      }
      const peak = processMemoryMb(app.pid).peak;
      const file = await httpJson(`${api}/${last!.id}`, { headers: { Authorization: auth } });
      if (file.status !== 200) throw new Error(`download: ${file.status}`);
      return [
        {
          backend: "PGlite",
          step: "bare exceljs streaming write (rows in memory)",
          rows: memoryRows.length,
          "median s": median(bare) / 1000,
          ratio: 1,
        },
        {
          backend: "PGlite",
          step: "export job in the app's process (npm start), through /api/v1",
          rows: last!.rowsWritten,
          "median s": median(job) / 1000,
          ratio: median(job) / median(bare),
          "file MB": file.bytes / 2 ** 20,
          "app idle RSS MB": idle.rss,
          "app peak RSS MB": peak,
        },
      ];
    } finally {
      await app.stop();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const rows = [...(await onPostgres()), ...(await onPglite())];
  printTable(
    `Export of ${ROWS.toLocaleString("en")} contacts (Postgres in this process; PGlite in the app's process; target: ratio 1.5 or less), median of ${RUNS}`,
    rows,
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
