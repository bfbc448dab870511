import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse";
import ExcelJS from "exceljs";
import { sql as sqlTag } from "drizzle-orm";
import postgres from "postgres";
import { createDb, type DbHandle } from "../db/client";
import { settings } from "../db/schema";
import { seed } from "../server/seed";
import { importBase } from "../server/core/bases/import";
import { APP_NODE_FLAGS, capHeapGrowth } from "../server/heap";
import { readRows } from "../server/core/spreadsheets";
import { IMPORT_MAPPINGS, importRows, uploadImport, writeImportXlsx } from "./import-file";
import { buildPages, startApp } from "./app";
import { benchAdminAuthorization, cpuSnapshot, median, PG_URL, printTable, processMemoryMb, withDatabase, type Row } from "./lib";

/**
 * Issue 4: import of a generated ROWS x 8 .xlsx into a database that already holds EXISTING contacts, with both
 * dedup settings on: wall time, peak RSS, and the ratio to a bare exceljs streaming read of the same file, in
 * the same run. Each measured step runs in its own child process so its peak RSS is its own.
 * Targets on real Postgres: ratio 1.5 or less, peak RSS 400 MB or less. PGlite is reported too (its WASM heap
 * makes its memory figure larger). Sizes: BENCH_IMPORT_ROWS, BENCH_EXISTING, BENCH_PGLITE_EXISTING.
 *
 * Issue 16: the same rows as a .csv (UTF-8 with a BOM, `;`), imported on Postgres against a bare csv-parse read of
 * the same file (target: ratio 1.5 or less). BENCH_IMPORT_ONLY=csv (or xlsx) runs one part alone. Beside it, the
 * floor of any import on the same indexes and triggers: the same file through bare csv-parse, COPY into a temporary
 * table and one INSERT ... SELECT into contacts in one transaction, no app logic at all (every row, no dedup, the
 * phone as its own key).
 *
 * PGlite: both formats, BENCH_PGLITE_RUNS runs (default 1), each into a fresh copy of one seeded DATA_DIR, with
 * each run's peak RSS. Then the same import as an admin makes it: the file uploaded to /api/v1/database/import of
 * the app started as `npm start` starts it (bench/app.ts startApp), with that process's RSS once it is ready and its
 * peak (VmHWM since its start, so the HTTP server, the pages' code and the upload are in it).
 * BENCH_IMPORT_BACKENDS=pglite (or postgres) measures one backend alone.
 */
const ROWS = Number(process.env.BENCH_IMPORT_ROWS || 100_000);
const EXISTING = Number(process.env.BENCH_EXISTING || 1_000_000);
const PGLITE_EXISTING = Number(process.env.BENCH_PGLITE_EXISTING || EXISTING);
/** Read-and-import pairs on Postgres, and on PGlite (each on a fresh copy of the seeded DATA_DIR). */
const RUNS = Number(process.env.BENCH_RUNS || 3);
const PGLITE_RUNS = Number(process.env.BENCH_PGLITE_RUNS || 1);
/** Which backends to measure: BENCH_IMPORT_BACKENDS=pglite (or postgres) runs one alone. */
const BACKENDS = (process.env.BENCH_IMPORT_BACKENDS || "postgres,pglite").split(",");
const ADMIN_ACTOR = { id: 1, login: "bench", isAdmin: true };

const [, , phase, ...args] = process.argv;

const ONLY = process.env.BENCH_IMPORT_ONLY;

/** The bench's base: 2% repeats inside the file, 3% phones already in the database (see seedExisting). */
const baseRows = () => importRows(ROWS, { knownPhones: true });

const writeFile = (file: string) => writeImportXlsx(file, baseRows());

/** The same rows as Excel's "CSV UTF-8" in a Russian locale writes them: a BOM, `;`, CRLF (no cell needs quotes). */
function writeCsv(file: string) {
  const lines = ["\uFEFF"];
  for (const row of baseRows()) lines.push(`${row.join(";")}\r\n`);
  fs.writeFileSync(file, lines.join(""));
}

/** The baseline: csv-parse alone over the same file, every record taken. */
async function bareCsvParse(file: string) {
  let rows = 0;
  const parser = fs.createReadStream(file).pipe(parse({ delimiter: ";", bom: true, relax_column_count: true }));
  for await (const _record of parser) rows++;
  return rows;
}

/**
 * The floor: csv-parse, COPY and one INSERT ... SELECT into the same contacts, committed. Returns rows written and
 * the CPU used, taken while its connection is still open.
 */
async function bareSqlImport(file: string, url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`select 1`;
  const cpu = cpuFromHere();
  const started = performance.now();
  const escape = (v: string) => v.replace(/[\\\t\n\r]/g, (c) => (c === "\\" ? "\\\\" : c === "\t" ? "\\t" : c === "\n" ? "\\n" : "\\r"));
  try {
    return await sql
      .begin(async (tx) => {
        const [base] = await tx`insert into databases (name) values (${`Пол ${Date.now()}`}) returning id`;
        await tx.unsafe(`create temp table floor_rows (name text, phone text, city text, address text, age text,
                       info1 text, info2 text, info3 text) on commit drop`);
        const copy = await tx.unsafe("copy floor_rows from stdin").writable();
        const lines = new Transform({
          objectMode: true,
          transform(record: string[], _encoding, done) {
            done(null, `${Array.from({ length: 8 }, (_, i) => escape(record[i] ?? "")).join("\t")}\n`);
          },
        });
        const parser = parse({ delimiter: ";", bom: true, relax_column_count: true, from_line: 2 });
        await pipeline(fs.createReadStream(file), parser, lines, copy);
        const written = await tx.unsafe(`insert into contacts (database_id, name, phone, phone_key, city, address, age,
                                         additional_info1, additional_info2, additional_info3)
                                       select ${Number(base.id)}, name, phone, phone, city, address, age, info1, info2, info3
                                       from floor_rows`);
        return written.count;
      })
      .then((rows) => ({ rows, ms: performance.now() - started, ...cpu() }));
  } finally {
    await sql.end();
  }
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

/**
 * CPU in ms from here on: this process's with its reading worker (module loading before it left out), and every
 * local Postgres process's, the child's own connections still open (a backend that exits takes its count along).
 */
function cpuFromHere() {
  const before = cpuSnapshot();
  return () => {
    const after = cpuSnapshot();
    return { cpuMs: after.node - before.node, postgresCpuMs: after.postgres - before.postgres };
  };
}

function child(...argv: string[]) {
  const started = Date.now();
  // The import phases run with the app's start flags, so their memory is what the app's would be.
  const flags = argv[0].startsWith("import-") ? APP_NODE_FLAGS : [];
  const result = spawnSync(process.execPath, [...flags, "--import", "tsx", "bench/import.ts", ...argv], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 16 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`child ${argv[0]} failed`);
  const out = JSON.parse(result.stdout.trim().split("\n").pop() ?? "{}");
  return { ...out, wallMs: out.ms ?? Date.now() - started };
}

/**
 * This process's own peak RSS (VmHWM). Not getrusage's maxRSS: Linux carries that across fork and exec, so a
 * child would report at least its parent's RSS at the spawn (the parent that just seeded PGlite held 350 MB).
 */
const rssMb = () => Math.round(processMemoryMb(process.pid).peak);

async function warmUp(beside: string) {
  const small = path.join(path.dirname(beside), `warm-${process.pid}.csv`);
  fs.writeFileSync(small, "ФИО;Телефон\r\nИванов Иван;0501234567\r\n");
  for await (const _row of readRows(small, { name: "warm.csv" })) {
    /* read through */
  }
  fs.rmSync(small);
}

async function measuredImport(handle: DbHandle, file: string) {
  await handle.db.update(settings).set({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true });
  const started = performance.now();
  const result = await importBase(
    handle.db,
    ADMIN_ACTOR,
    { name: `Импорт ${Date.now()}`, mappings: IMPORT_MAPPINGS, file: { path: file, name: path.basename(file) } },
    { phoneRegion: "UA" },
  );
  const ms = performance.now() - started;
  return { ms, imported: result.imported, duplicates: result.duplicatesInfo.reduce((a, d) => a + d.count, 0) };
}

/** An admin's upload of `file` to the app (`npm start`'s process on `dataDir`): wall time and the app's memory. */
async function importThroughApp(file: string, dataDir: string) {
  const handle = await createDb({ dataDir });
  await handle.db.update(settings).set({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true });
  const authorization = await benchAdminAuthorization(handle.db);
  await handle.close();
  const app = await startApp({ env: { DATA_DIR: dataDir, DATABASE_URL: "" } });
  try {
    const readyMb = Math.round(processMemoryMb(app.pid).rss);
    const { ms, imported } = await uploadImport(`${app.origin}/api/v1`, authorization, file, `Импорт через API ${Date.now()}`);
    return { ms, imported, readyMb, rssMb: Math.round(processMemoryMb(app.pid).peak) };
  } finally {
    await app.stop();
  }
}

async function main() {
  // A running server bundles the worker's code once and keeps idle workers (decision 019): a CSV measurement, a
  // tenth of an .xlsx one, would otherwise be mostly that start. One small file is read first.
  if ((phase === "read-sheet" || phase === "import-pg") && args[0].endsWith(".csv")) await warmUp(args[0]);
  if (phase === "read" || phase === "parse-csv" || phase === "read-sheet") {
    const cpu = cpuFromHere();
    const started = performance.now();
    let rows = 0;
    if (phase === "read") rows = await bareRead(args[0]);
    else if (phase === "parse-csv") rows = await bareCsvParse(args[0]);
    // The import's own reading: the sheet worker (encoding, delimiter, csv-parse, cells as text), no database.
    else for await (const _row of readRows(args[0], { name: path.basename(args[0]) })) rows++;
    console.log(JSON.stringify({ ms: performance.now() - started, rows, rssMb: rssMb(), ...cpu() }));
    return;
  }
  // The import phases run the app's code as the app's process runs it, with its heap growth cap.
  if (phase === "import-pg" || phase === "import-pglite") capHeapGrowth();
  if (phase === "import-pg") {
    const handle = await createDb({ databaseUrl: args[1], poolSize: 4 });
    await handle.db.execute(sqlTag`select 1`);
    const cpu = cpuFromHere();
    const r = await measuredImport(handle, args[0]);
    const used = cpu();
    await handle.close();
    console.log(JSON.stringify({ ...r, rssMb: rssMb(), ...used }));
    return;
  }
  if (phase === "floor-pg") {
    console.log(JSON.stringify({ ...(await bareSqlImport(args[0], args[1])), rssMb: rssMb() }));
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
  const csvFile = path.join(dir, "base.csv");
  if (ONLY !== "csv") await writeFile(file);
  // The .csv is written for the .xlsx too: the floor (csv-parse + COPY) reads the same rows from it.
  writeCsv(csvFile);
  const rows: Row[] = [];
  const csvRows: Row[] = [];
  const sizeOf = (f: string) => `${(fs.statSync(f).size / 2 ** 20).toFixed(1)} MB`;

  // Postgres
  if (BACKENDS.includes("postgres")) await onPostgres();
  async function onPostgres() {
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

      const cleanup = postgres(url, { max: 1, onnotice: () => {} });
      const formats = [
        { kind: "xlsx", file, baseline: "read", label: "bare exceljs read", into: rows },
        { kind: "csv", file: csvFile, baseline: "parse-csv", label: "bare csv-parse read", into: csvRows },
      ].filter((f) => !ONLY || f.kind === ONLY);
      for (const format of formats) {
        // Alternating runs, each import into the same 1,000,000 (its base removed afterwards): medians.
        type Measured = { ms: number; rssMb: number; cpuMs: number; postgresCpuMs: number };
        const reads: Array<Measured & { rows: number }> = [];
        const sheetReads: Array<Measured & { rows: number }> = [];
        const imports: Array<Measured & { imported: number; duplicates: number }> = [];
        const floors: Array<Measured & { rows: number }> = [];
        for (let run = 0; run < RUNS; run++) {
          reads.push(child(format.baseline, format.file));
          sheetReads.push(child("read-sheet", format.file));
          imports.push(child("import-pg", format.file, url));
          await cleanup.unsafe("delete from contacts where database_id > 1");
          await cleanup.unsafe("delete from databases where id > 1");
          await cleanup.unsafe("vacuum analyze contacts");
          floors.push(child("floor-pg", csvFile, url));
          await cleanup.unsafe("delete from contacts where database_id > 1");
          await cleanup.unsafe("delete from databases where id > 1");
          await cleanup.unsafe("vacuum analyze contacts");
        }
        const readMs = median(reads.map((r) => r.ms));
        const importMs = median(imports.map((r) => r.ms));
        // CPU seconds beside the wall time (on a shared machine the wall time swings with the neighbours' load).
        const cpu = (list: Measured[]): Row => ({
          "node CPU s": median(list.map((r) => r.cpuMs)) / 1000,
          "Postgres CPU s": median(list.map((r) => r.postgresCpuMs)) / 1000,
        });
        format.into.push({
          backend: "Postgres",
          step: `${format.label} (${sizeOf(format.file)}), median of ${RUNS}`,
          rows: reads[0].rows,
          "wall s": readMs / 1000,
          ...cpu(reads),
          "peak RSS MB": Math.max(...reads.map((r) => r.rssMb)),
          ratio: 1,
        });
        if (sheetReads.length) {
          const sheetMs = median(sheetReads.map((r) => r.ms));
          format.into.push({
            backend: "Postgres",
            step: `the import's reader alone (sheet worker), median of ${RUNS}`,
            rows: sheetReads[0].rows,
            "wall s": sheetMs / 1000,
            ...cpu(sheetReads),
            "peak RSS MB": Math.max(...sheetReads.map((r) => r.rssMb)),
            ratio: sheetMs / readMs,
          });
        }
        format.into.push({
          backend: "Postgres",
          step: `import into ${EXISTING.toLocaleString("en")} contacts, both dedups, median of ${RUNS}`,
          rows: imports[0].imported,
          "wall s": importMs / 1000,
          ...cpu(imports),
          "peak RSS MB": Math.max(...imports.map((r) => r.rssMb)),
          ratio: importMs / readMs,
          "dups removed": imports[0].duplicates,
        });
        if (floors.length) {
          const floorMs = median(floors.map((r) => r.ms));
          format.into.push({
            backend: "Postgres",
            step: `floor: csv-parse + COPY + one INSERT ... SELECT, same indexes, median of ${RUNS}`,
            rows: floors[0].rows,
            "wall s": floorMs / 1000,
            ...cpu(floors),
            "peak RSS MB": Math.max(...floors.map((r) => r.rssMb)),
            ratio: floorMs / readMs,
            "import / floor": importMs / floorMs,
          });
        }
      }
      await cleanup.end();
    } finally {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  }

  // PGlite: each run imports into a fresh copy of one seeded DATA_DIR (an import cannot be undone cheaply there).
  if (BACKENDS.includes("pglite")) {
    buildPages("import"); // for importThroughApp's app
    const seeded = path.join(dir, "pglite");
    {
      const handle = await createDb({ dataDir: seeded });
      await handle.migrate();
      await seed(handle.db, { login: "bench", password: "Bench-password-1", accessKey: "BENCHKEY00000001" });
      const { sql } = await import("drizzle-orm");
      await seedExisting((q) => handle.db.execute(sql.raw(q)), PGLITE_EXISTING);
      await handle.db.execute(sql.raw("vacuum analyze contacts"));
      await handle.close();
    }
    const formats = [
      { kind: "xlsx", file, baseline: "read", label: "bare exceljs read", into: rows },
      { kind: "csv", file: csvFile, baseline: "parse-csv", label: "bare csv-parse read", into: csvRows },
    ].filter((f) => !ONLY || f.kind === ONLY);
    for (const format of formats) {
      const reads: Array<{ ms: number; rows: number; rssMb: number }> = [];
      const imports: Array<{ ms: number; imported: number; duplicates: number; rssMb: number }> = [];
      const appImports: Array<{ ms: number; imported: number; readyMb: number; rssMb: number }> = [];
      for (let run = 0; run < PGLITE_RUNS; run++) {
        const dataDir = path.join(dir, `pglite-run-${run}`);
        fs.cpSync(seeded, dataDir, { recursive: true });
        reads.push(child(format.baseline, format.file));
        imports.push(child("import-pglite", format.file, dataDir));
        fs.rmSync(dataDir, { recursive: true, force: true });
        fs.cpSync(seeded, dataDir, { recursive: true });
        appImports.push(await importThroughApp(format.file, dataDir));
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
      const runs = PGLITE_RUNS === 1 ? "1 run" : `median of ${PGLITE_RUNS}`;
      const readMs = median(reads.map((r) => r.ms));
      const importMs = median(imports.map((r) => r.ms));
      format.into.push(
        {
          backend: "PGlite",
          step: `${format.label} (${sizeOf(format.file)}), ${runs}`,
          rows: reads[0].rows,
          "wall s": readMs / 1000,
          "peak RSS MB": median(reads.map((r) => r.rssMb)),
          ratio: 1,
        },
        {
          backend: "PGlite",
          step: `import into ${PGLITE_EXISTING.toLocaleString("en")} contacts, both dedups, ${runs}`,
          rows: imports[0].imported,
          "wall s": importMs / 1000,
          "peak RSS MB": median(imports.map((r) => r.rssMb)),
          "peak RSS MB, each run": imports.map((r) => r.rssMb).join(" "),
          ratio: importMs / readMs,
          "dups removed": imports[0].duplicates,
        },
        {
          backend: "PGlite",
          step: `the same through the app's API (npm start's process, ${median(appImports.map((r) => r.readyMb))} MB when ready), ${runs}`,
          rows: appImports[0].imported,
          "wall s": median(appImports.map((r) => r.ms)) / 1000,
          "peak RSS MB": median(appImports.map((r) => r.rssMb)),
          "peak RSS MB, each run": appImports.map((r) => r.rssMb).join(" "),
          ratio: median(appImports.map((r) => r.ms)) / readMs,
          "dups removed": imports[0].duplicates,
        },
      );
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  if (rows.length) printTable(`Import: ${ROWS.toLocaleString("en")} rows x 8 columns (.xlsx), ratio to a bare exceljs streaming read`, rows);
  if (csvRows.length) {
    printTable(`Import: ${ROWS.toLocaleString("en")} rows x 8 columns (.csv, UTF-8 with BOM, ';'), ratio to a bare csv-parse read`, csvRows);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
