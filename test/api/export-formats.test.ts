import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXPORT_HEADER } from "../../server/core/exports/run";
import { bearer, useTestApp } from "../helpers/app";
import { endWithTheRun } from "../helpers/children";
import { csvText, utf8WithBom } from "../helpers/csv";

/**
 * Export as .xlsx or .csv (issue 16): both files are converted back by LibreOffice (Debian's
 * libreoffice-calc-nogui, as a person would open them) and every cell must be the one exported.
 */

let token: string;
let dir: string;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-export-formats-"));
});

afterAll(async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Values a CSV writer gets wrong: the delimiter, quotes, line breaks, leading zeros, `+`, a formula-like name. */
const CONTACTS = [
  ["Иванов Иван Иванович", "0501234567", "Київ", "ул. Крещатик, 1; кв. 5", "042", 'сказал "перезвоните"\nпосле обеда'],
  ["Ёлкина Анна", "+380 (63) 555-44-33", "Одеса", "", "", ""],
  ["=СУММ(1;2)", "00380671112233", "Львов", "", "", "@note"],
  ["Şahin Ömer 李", "0671234567", "", "", "", "  "],
];
/** A cell that would run as a formula when the file is opened is written with a leading `'` (CSV only). */
const AS_CSV_SHOWS = (value: string) => (/^[=@]/.test(value) ? `'${value}` : value);

async function download(id: number) {
  return t.request
    .get(`/api/v1/database/exports/${id}`)
    .set(bearer(token))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done(null, Buffer.concat(chunks)));
    });
}

async function exportAs(format: string | undefined) {
  const res = await t.request
    .post("/api/v1/database/exports")
    .set(bearer(token))
    .send({ name: `Как ${format}`, databaseIds: [baseId], statusIds: [0], ...(format ? { format } : {}) });
  expect(res.status).toBe(201);
  for (let i = 0; i < 200; i++) {
    const list = await t.request.get("/api/v1/database/exports").set(bearer(token));
    const job = list.body.find((e: { id: number }) => e.id === res.body.id);
    if (job?.isExported) return { job, file: await download(job.id) };
    if (job?.error) throw new Error(job.error);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("export did not finish");
}

/** LibreOffice opens the file (a .csv as UTF-8, `;`, every column text) and saves its first sheet as CSV. */
async function throughLibreOffice(file: Buffer, name: string): Promise<string[][]> {
  const input = path.join(dir, name);
  fs.writeFileSync(input, file);
  const out = path.join(dir, "out");
  const textColumns = Array.from({ length: EXPORT_HEADER.length }, (_, i) => `${i + 1}/2`).join("/");
  const args = [
    `-env:UserInstallation=file://${path.join(dir, "profile")}`,
    "--headless",
    ...(name.endsWith(".csv") ? [`--infilter=CSV:59,34,76,1,${textColumns}`] : []),
    "--convert-to",
    "csv:Text - txt - csv (StarCalc):59,34,76,1",
    "--outdir",
    out,
    input,
  ];
  const child = spawn("soffice", args, { stdio: ["ignore", "pipe", "pipe"] });
  endWithTheRun(child);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  const converted = path.join(out, `${path.basename(name, path.extname(name))}.csv`);
  if (code !== 0 || !fs.existsSync(converted)) throw new Error(`soffice failed (${code}): ${log}`);
  const text = fs.readFileSync(converted, "utf8");
  fs.rmSync(converted);
  return parse(text, { delimiter: ";", relax_column_count: true }) as string[][];
}

let baseId: number;
beforeAll(async () => {
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", "Для экспорта")
    .field("mappings", JSON.stringify(["name", "phone", "city", "address", "age", "additionalInfo1"]))
    .attach("file", utf8WithBom(csvText([["ФИО", "Телефон", "Город", "Адрес", "Возраст", "Заметка"], ...CONTACTS])), "для экспорта.csv");
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  baseId = res.body.id;
});

/** A row of the export as written: the contact's fields, four empty extra fields but the first, the base, no status. */
const exported = (row: string[]) => {
  const cells = [...row.slice(0, 5), row[5].trim(), "", "", "", "Для экспорта", "", "", "", ""];
  return cells;
};

describe("export formats", () => {
  it("xlsx (the default): LibreOffice reads back every exported cell", async () => {
    const { job, file } = await exportAs(undefined);
    expect(job.format).toBe("xlsx");
    expect(file.headers["content-type"]).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(file.headers["content-disposition"]).toMatch(/^attachment; filename="export-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    const cells = await throughLibreOffice(file.body, "export.xlsx");
    expect(cells).toEqual([EXPORT_HEADER, ...CONTACTS.map(exported)]);
  });

  it("csv: UTF-8 with a BOM and `;`; LibreOffice reads back every exported cell", async () => {
    const { job, file } = await exportAs("csv");
    expect(job.format).toBe("csv");
    expect(file.headers["content-type"]).toBe("text/csv; charset=utf-8");
    expect(file.headers["content-disposition"]).toMatch(/^attachment; filename="export-\d{4}-\d{2}-\d{2}\.csv"$/);
    expect([...file.body.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(file.body.toString("utf8", 3).split("\r\n")[0]).toBe(EXPORT_HEADER.join(";"));
    const cells = await throughLibreOffice(file.body, "export.csv");
    expect(cells).toEqual([EXPORT_HEADER, ...CONTACTS.map((row) => exported(row).map(AS_CSV_SHOWS))]);
  });

  it("refuses an unknown format with a Russian message", async () => {
    const res = await t.request
      .post("/api/v1/database/exports")
      .set(bearer(token))
      .send({ name: "ods", databaseIds: [baseId], statusIds: [0], format: "ods" });
    expect([res.status, res.body.message]).toEqual([400, "Формат файла: xlsx или csv"]);
  });
});
