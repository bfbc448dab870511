import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ExcelJS from "exceljs";
import postgres from "postgres";
import { createDb, type DbHandle } from "../db/client";
import { settings } from "../db/schema";
import { seed } from "../db/seed";
import { importBase } from "../server/core/bases/import";
import { median, PG_URL, printTable, withDatabase, type Row } from "./lib";

/**
 * Issue 4: import of a generated ROWS x 8 .xlsx into a database that already holds EXISTING contacts, with both
 * dedup settings on: wall time, peak RSS, and the ratio to a bare exceljs streaming read of the same file, in
 * the same run. Each measured step runs in its own child process so its peak RSS is its own.
 * Targets on real Postgres: ratio 1.5 or less, peak RSS 400 MB or less. PGlite is reported too (its WASM heap
 * makes its memory figure larger). Sizes: BENCH_IMPORT_ROWS, BENCH_EXISTING, BENCH_PGLITE_EXISTING.
 */
const ROWS = Number(process.env.BENCH_IMPORT_ROWS || 100_000);
const EXISTING = Number(process.env.BENCH_EXISTING || 1_000_000);
const PGLITE_EXISTING = Number(process.env.BENCH_PGLITE_EXISTING || EXISTING);
/** Read-and-import pairs on Postgres (PGlite, slower to reset, runs once). */
const RUNS = Number(process.env.BENCH_RUNS || 3);
const ADMIN_ACTOR = { id: 1, login: "bench", isAdmin: true };

const [, , phase, ...args] = process.argv;

/** A file like a call centre's: 8 columns, Cyrillic names, phones as text, some repeats and some known phones. */
async function writeFile(file: string) {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet("Лист1");
  sheet.addRow(["ФИО", "Телефон", "Город", "Адрес", "Возраст", "Примечание", "Источник", "Менеджер"]).commit();
  const names = ["Иванов Иван", "Петренко Ольга", "Коваленко Андрей", "Шевченко Мария", "Бондаренко Олег"];
  const cities = ["Киев", "Львов", "Одесса", "Днепр", "Харьков"];
  for (let i = 0; i < ROWS; i++) {
    // 2% repeat an earlier row of the file; 3% are phones already in the database (see seedExisting).
    const n = i % 50 === 7 ? i - 7 : i;
    const phone = i % 33 === 5 ? `050${String(i).padStart(7, "0")}` : `067${String(n).padStart(7, "0")}`;
    sheet
      .addRow([
        `${names[n % 5]} ${n}`,
        phone,
        cities[n % 5],
        `ул. Садовая, ${n % 300}`,
        String(20 + (n % 50)),
        n % 3 ? "" : "перезвонить вечером",
        "реклама",
        "",
      ])
      .commit();
  }
  sheet.commit();
  await workbook.commit();
}

async function bareRead(file: string) {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(file, {
    sharedStrings: "cache",
    styles: "cache",
    hyperlinks: "ignore",
    worksheets: "emit",
    entries: "emit",
  });
  let rows = 0;
  for await (const sheet of reader) {
    for await (const _row of sheet as AsyncIterable<ExcelJS.Row>) rows++;
    break;
  }
  return rows;
}

async function seedExisting(run: (query: string) => Promise<unknown>, existing: number) {
  await run(`insert into databases (name, contacts_count) values ('Существующая', ${existing})`);
  // Phones 050xxxxxxx: the file's "known" phones fall among them.
  await run(`insert into contacts (database_id, name, phone, phone_key)
             select 1, 'Клиент ' || g, '050' || lpad(g::text, 7, '0'), '38050' || lpad(g::text, 7, '0')
             from generate_series(0, ${existing - 1}) g`);
}

function child(...argv: string[]) {
  const started = Date.now();
  const result = spawnSync(process.execPath, ["--import", "tsx", "bench/import.ts", ...argv], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`child ${argv[0]} failed`);
  const out = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}");
  return { ...out, wallMs: out.ms ?? Date.now() - started };
}

const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

async function measuredImport(handle: DbHandle, file: string) {
  await handle.db.update(settings).set({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true });
  const started = performance.now();
  const result = await importBase(handle.db, ADMIN_ACTOR, { name: `Импорт ${Date.now()}`, mappings: JSON.stringify(["name", "phone", "city", "address", "age", "additionalInfo1", "additionalInfo2", "additionalInfo3"]), file: { path: file } }, { phoneRegion: "UA" });
  const ms = performance.now() - started;
  return { ms, imported: result.imported, duplicates: result.duplicatesInfo.reduce((a, d) => a + d.count, 0) };
}

async function main() {
  if (phase === "read") {
    const started = performance.now();
    const rows = await bareRead(args[0]);
    console.log(JSON.stringify({ ms: performance.now() - started, rows, rssMb: rssMb() }));
    return;
  }
  if (phase === "import-pg") {
    const handle = await createDb({ databaseUrl: args[1], poolSize: 4 });
    const r = await measuredImport(handle, args[0]);
    await handle.close();
    console.log(JSON.stringify({ ...r, rssMb: rssMb() }));
    return;
  }
  if (phase === "import-pglite") {
    const handle = await createDb({ dataDir: args[1] });
    const r = await measuredImport(handle, args[0]);
    await handle.close();
    console.log(JSON.stringify({ ...r, rssMb: rssMb() }));
    return;
  }

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-bench-import-"));
  const file = path.join(dir, "base.xlsx");
  await writeFile(file);
  const rows: Row[] = [];
  const size = `${(fs.statSync(file).size / 2 ** 20).toFixed(1)} MB`;

  // Postgres
  const admin = postgres(PG_URL, { max: 1, onnotice: () => {} });
  const name = `leaddesk_bench_import_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(PG_URL, name);
  try {
    const handle = await createDb({ databaseUrl: url, poolSize: 2 });
    await handle.migrate();
    await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
    const sql = postgres(url, { max: 1, onnotice: () => {} });
    await seedExisting((q) => sql.unsafe(q), EXISTING);
    await sql.unsafe("vacuum analyze contacts");
    await sql.end();
    await handle.close();

    // Alternating runs, each import into the same 1,000,000 (its base removed afterwards): medians.
    const reads: Array<{ ms: number; rows: number; rssMb: number }> = [];
    const imports: Array<{ ms: number; imported: number; duplicates: number; rssMb: number }> = [];
    const cleanup = postgres(url, { max: 1, onnotice: () => {} });
    for (let run = 0; run < RUNS; run++) {
      reads.push(child("read", file));
      imports.push(child("import-pg", file, url));
      await cleanup.unsafe("delete from contacts where database_id > 1");
      await cleanup.unsafe("delete from databases where id > 1");
      await cleanup.unsafe("vacuum analyze contacts");
    }
    await cleanup.end();
    const readMs = median(reads.map((r) => r.ms));
    const importMs = median(imports.map((r) => r.ms));
    rows.push(
      { backend: "Postgres", step: `bare exceljs read (${size}), median of ${RUNS}`, rows: reads[0].rows, "wall s": readMs / 1000, "peak RSS MB": Math.max(...reads.map((r) => r.rssMb)), ratio: 1 },
      {
        backend: "Postgres",
        step: `import into ${EXISTING.toLocaleString("en")} contacts, both dedups, median of ${RUNS}`,
        rows: imports[0].imported,
        "wall s": importMs / 1000,
        "peak RSS MB": Math.max(...imports.map((r) => r.rssMb)),
        ratio: importMs / readMs,
        "dups removed": imports[0].duplicates,
      },
    );
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }

  // PGlite
  const dataDir = path.join(dir, "pglite");
  {
    const handle = await createDb({ dataDir });
    await handle.migrate();
    await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
    const { sql } = await import("drizzle-orm");
    await seedExisting((q) => handle.db.execute(sql.raw(q)), PGLITE_EXISTING);
    await handle.db.execute(sql.raw("vacuum analyze contacts"));
    await handle.close();
  }
  const read = child("read", file);
  const imported = child("import-pglite", file, dataDir);
  rows.push(
    { backend: "PGlite", step: `bare exceljs read (${size}), 1 run`, rows: read.rows, "wall s": read.ms / 1000, "peak RSS MB": read.rssMb, ratio: 1 },
    {
      backend: "PGlite",
      step: `import into ${PGLITE_EXISTING.toLocaleString("en")} contacts, both dedups, 1 run`,
      rows: imported.imported,
      "wall s": imported.ms / 1000,
      "peak RSS MB": imported.rssMb,
      ratio: imported.ms / read.ms,
      "dups removed": imported.duplicates,
    },
  );
  fs.rmSync(dir, { recursive: true, force: true });
  printTable(`Import: ${ROWS.toLocaleString("en")} rows x 8 columns (.xlsx), ratio to a bare exceljs streaming read`, rows);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
