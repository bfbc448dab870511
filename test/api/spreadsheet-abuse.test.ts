import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { asc, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, databases } from "../../db/schema";
import { IMPORT_LIMITS } from "../../server/core/bases/import";
import { SHEET_LIMITS } from "../../server/core/spreadsheets";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";
import { Cells, writeBiff } from "../helpers/xls-biff";
import { buildXls, buildXlsx, inlineCell, workbookEntries, writeZipFile } from "../helpers/xlsx";

/**
 * Hostile spreadsheets against the two upload routes (issue 9): zip bombs, millions of empty cells, formulas,
 * a huge shared-string table, binary files named .xlsx, broken and huge legacy .xls. Each is refused with a
 * Russian message (formulas are imported as inert text), nothing is written, and the server's memory stays
 * bounded while it reads them, and the server keeps answering (issue 14). (The plain cases, a renamed text file, a zip without a workbook, a declared
 * bomb, an oversized file, are in import.test.ts.) Fixtures are generated into a temporary folder as streamed
 * zips, never held whole in memory.
 */
let token: string;
let dir: string;

const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "spreadsheet-abuse-"));
});

afterAll(async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const MB = 1024 * 1024;
/** Generous: the point is "bounded", not a tight figure (PGlite's heap and GC timing move it). */
const RSS_BOUND = 400 * MB;

const MESSAGES = {
  bomb: "Файл повреждён или подозрительно сильно сжат: импорт отменён",
  damaged: "Не удалось прочитать файл: он повреждён или сохранён в неподдерживаемом формате",
  notSpreadsheet: "Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv",
  tooManyStrings: "В файле слишком много текста: таблица строк больше 100 МБ. Разбейте файл на части",
  cellTooLong: "В ячейке больше 32 767 символов (предел Excel): файл повреждён или это не таблица",
  tooSlow: "Файл читается слишком долго: импорт отменён",
  tooManyEmpty: "В файле слишком много пустых строк и ячеек: удалите их в Excel и загрузите файл снова",
  empty: "Файл пустой: в первом листе нет строк",
};

async function totals() {
  const [{ bases }] = await t.db.select({ bases: count() }).from(databases);
  const [{ rows }] = await t.db.select({ rows: count() }).from(contacts);
  return { bases, rows };
}

/** Runs a request while sampling the process's resident memory; answers the response and the peak growth. */
async function measured<T>(request: () => PromiseLike<T>): Promise<{ res: T; growth: number }> {
  const start = process.memoryUsage().rss;
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const res = await request();
    peak = Math.max(peak, process.memoryUsage().rss);
    if (process.env.ABUSE_STATS) console.log(expect.getState().currentTestName, `RSS +${Math.round((peak - start) / MB)} MB`);
    return { res, growth: peak - start };
  } finally {
    clearInterval(timer);
  }
}

type Answer = { status: number; body: { error?: string; message?: string; [key: string]: unknown } };

function preview(file: string | Buffer, filename: string) {
  return t.request.post("/api/v1/database/preview").set(bearer(token)).attach("file", file, filename) as unknown as PromiseLike<Answer>;
}

function importFile(file: string | Buffer, filename: string, name: string, mappings: string[] = ["name", "phone"]) {
  return t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", JSON.stringify(mappings))
    .attach("file", file, filename) as unknown as PromiseLike<Answer>;
}

/** Both routes refuse the file with this message; nothing is written; memory stays bounded. */
async function expectRefused(file: string | Buffer, filename: string, message: string) {
  const before = await totals();
  const shown = await measured(() => preview(file, filename));
  expect([shown.res.status, shown.res.body.message]).toEqual([400, message]);
  expect(shown.growth).toBeLessThan(RSS_BOUND);
  const imported = await measured(() => importFile(file, filename, `Атака ${path.basename(String(filename))}`));
  expect([imported.res.status, imported.res.body.message]).toEqual([400, message]);
  expect(imported.growth).toBeLessThan(RSS_BOUND);
  expect(imported.res.body.error).toEqual(expect.any(String));
  expect(await totals()).toEqual(before);
}

/** A gigabyte of the same megabyte, yielded chunk by chunk. */
function* repeated(chunk: Buffer, times: number) {
  for (let i = 0; i < times; i++) yield chunk;
}

const HEADER_ROW = `<row r="1">${inlineCell("A1", "ФИО")}${inlineCell("B1", "Телефон")}</row>`;

describe("zip bombs", () => {
  it("a sheet that inflates to a gigabyte while the directory claims one megabyte", async () => {
    const file = path.join(dir, "bomb-lying.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sheet: function* () {
          yield HEADER_ROW;
          yield* repeated(Buffer.alloc(MB, 0x20), 1024);
        },
        sheetDeclaredSize: MB,
      }),
    );
    expect(fs.statSync(file).size).toBeLessThan(10 * MB);
    await expectRefused(file, "бомба.xlsx", MESSAGES.bomb);
  }, 120_000);

  it("one cell of 900 MB, the directory telling the truth", async () => {
    const file = path.join(dir, "bomb-cell.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sheet: function* () {
          yield `${HEADER_ROW}<row r="2"><c r="A2" t="inlineStr"><is><t>`;
          yield* repeated(Buffer.alloc(MB, 0x78), 900);
          yield "</t></is></c></row>";
        },
      }),
    );
    await expectRefused(file, "ячейка.xlsx", MESSAGES.cellTooLong);
  }, 120_000);

  it("an entry whose local header claims other sizes than the directory", async () => {
    const good = await buildXlsx([
      ["ФИО", "Телефон"],
      ["Иван", "0501234567"],
    ]);
    const bad = Buffer.from(good);
    // exceljs' writer stores sizes in the local headers only through data descriptors; patch the first
    // local header to claim a size and drop the descriptor flag, so it disagrees with the directory.
    expect(bad.readUInt32LE(0)).toBe(0x04034b50);
    bad.writeUInt16LE(bad.readUInt16LE(6) & ~0x0008, 6);
    bad.writeUInt32LE(0x7fffffff, 22);
    await expectRefused(bad, "заголовок.xlsx", MESSAGES.bomb);
  });

  it("a hidden entry between the listed ones (the streaming reader would read it)", async () => {
    const file = path.join(dir, "hidden.xlsx");
    const entries = workbookEntries({ sheet: () => [HEADER_ROW, `<row r="2">${inlineCell("A2", "Иван")}${inlineCell("B2", "0501234567")}</row>`] });
    await writeZipFile(file, entries);
    // Shift the central directory right by a stored junk entry, as if a hidden part sat before it.
    const data = fs.readFileSync(file);
    const end = data.length - 22;
    const dirOffset = data.readUInt32LE(end + 16);
    const junk = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(26), Buffer.from("x".repeat(100))]);
    const patched = Buffer.concat([data.subarray(0, dirOffset), junk, data.subarray(dirOffset)]);
    patched.writeUInt32LE(dirOffset + junk.length, patched.length - 22 + 16);
    await expectRefused(patched, "скрытое.xlsx", MESSAGES.damaged);
  });
});

describe("empty cells", () => {
  it("a sheet of 10 million empty cells (a million rows of ten) is refused early", async () => {
    const file = path.join(dir, "empty-cells.xlsx");
    const columns = "ABCDEFGHIJ".split("");
    await writeZipFile(
      file,
      workbookEntries({
        dimension: "A1:J1000002",
        sheet: function* () {
          yield `${HEADER_ROW}<row r="2">${inlineCell("A2", "Иван")}${inlineCell("B2", "0501234567")}</row>`;
          // Blocks of 2,000 rows per chunk: cheap to make, never all in memory.
          for (let block = 0; block < 500; block++) {
            const rows: string[] = [];
            for (let r = 3 + block * 2000; r < 3 + (block + 1) * 2000; r++) {
              rows.push(`<row r="${r}">${columns.map((c) => `<c r="${c}${r}" s="0"/>`).join("")}</row>`);
            }
            yield rows.join("");
          }
        },
      }),
    );
    await expectRefused(file, "пустые.xlsx", MESSAGES.tooManyEmpty);
  }, 180_000);

  it("a few very wide empty rows (10,000 empty cells each) are refused too", async () => {
    const file = path.join(dir, "wide.xlsx");
    const letters = Array.from({ length: 10_000 }, (_, i) => {
      let n = i + 1;
      let s = "";
      while (n > 0) {
        s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
        n = Math.floor((n - 1) / 26);
      }
      return s;
    });
    await writeZipFile(
      file,
      workbookEntries({
        dimension: "A1:NTP1000",
        sheet: function* () {
          yield HEADER_ROW;
          for (let r = 2; r <= 1000; r++) yield `<row r="${r}">${letters.map((c) => `<c r="${c}${r}"/>`).join("")}</row>`;
        },
      }),
    );
    await expectRefused(file, "широкие.xlsx", MESSAGES.tooManyEmpty);
  }, 180_000);

  it("a sheet that only declares a huge range (A1:XFD1048576) is read for what it holds", async () => {
    const file = path.join(dir, "declared.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        dimension: "A1:XFD1048576",
        sheet: () => [HEADER_ROW, `<row r="2">${inlineCell("A2", "Иван Заявленный")}${inlineCell("B2", "0501234567")}</row>`],
      }),
    );
    const { res, growth } = await measured(() => importFile(file, "диапазон.xlsx", "Заявленный диапазон"));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 1 });
    expect(growth).toBeLessThan(RSS_BOUND);
    await t.db.delete(databases).where(eq(databases.name, "Заявленный диапазон"));
  });
});

describe("formulas", () => {
  it("imports the cached value of a formula, never evaluates, and keeps formula-looking text as inert text", async () => {
    const workbook = await buildXlsxWithFormulas();
    // Formulas without a cached value (column D) are never run: imported, they are refused by name (decision 043)...
    const refused = await importFile(workbook, "формулы.xlsx", "Формулы", ["name", "phone", "city", "additionalInfo1"]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^В импортируемых столбцах 2 формулы без сохранённого значения \(D2, D3\)/);
    // ...and skipped, the rest imports.
    const res = await importFile(workbook, "формулы.xlsx", "Формулы", ["name", "phone", "city", "skip"]);
    expect(res.status).toBe(200);
    const rows = await t.db
      .select({ name: contacts.name, phone: contacts.phone, city: contacts.city })
      .from(contacts)
      .where(eq(contacts.databaseId, res.body.id as number))
      .orderBy(asc(contacts.id));
    expect(rows).toEqual([
      // A formula's cached value, whatever the formula would do.
      { name: "Иван по ссылке", phone: "0501234567", city: "" },
      { name: "Пётр", phone: "0671234567", city: "" },
      // Text that looks like a formula stays exactly that text.
      { name: '=HYPERLINK("http://evil.example/","Нажми")', phone: "0631234567", city: "=cmd|' /C calc'!A0" },
      { name: "+7 (495) 000-00-00", phone: "0991234567", city: "@SUM(1+1)*cmd|' /C notepad'!A1" },
    ]);
    await t.db.delete(databases).where(eq(databases.id, res.body.id as number));
  });
});

async function buildXlsxWithFormulas(): Promise<Buffer> {
  const ExcelJS = (await import("exceljs")).default;
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("Лист1");
  sheet.addRow(["ФИО", "Телефон", "Город", "Доп"]);
  sheet.addRow([
    { formula: 'HYPERLINK("http://evil.example/","Иван по ссылке")', result: "Иван по ссылке" },
    { formula: 'CONCATENATE("050","1234567")', result: "0501234567" },
    null,
    { formula: "cmd|' /C calc'!A0" },
  ]);
  sheet.addRow(["Пётр", "0671234567", null, { formula: 'WEBSERVICE("http://evil.example/")' }]);
  sheet.addRow(['=HYPERLINK("http://evil.example/","Нажми")', "0631234567", "=cmd|' /C calc'!A0"]);
  sheet.addRow(["+7 (495) 000-00-00", "0991234567", "@SUM(1+1)*cmd|' /C notepad'!A1"]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

describe("shared strings", () => {
  it("a shared-string table over 100 MB is refused from the zip directory, before inflating", async () => {
    const file = path.join(dir, "strings-big.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sharedStrings: function* () {
          // ~130 MB of distinct strings, 50,000 per chunk.
          for (let block = 0; block < 100; block++) {
            const parts: string[] = [];
            for (let i = block * 50_000; i < (block + 1) * 50_000; i++) parts.push(`<si><t>Строка номер ${i}</t></si>`);
            yield parts.join("");
          }
        },
        sheet: () => [`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`],
      }),
    );
    expect(fs.statSync(file).size).toBeLessThan(50 * MB);
    await expectRefused(file, "строки.xlsx", MESSAGES.tooManyStrings);
  }, 120_000);

  it("a shared-string table that lies about its size", async () => {
    const file = path.join(dir, "strings-lying.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sharedStrings: function* () {
          for (let block = 0; block < 60; block++) yield `<si><t>${"я".repeat(500_000)}</t></si>`.repeat(4);
        },
        sharedStringsDeclaredSize: MB,
        sheet: () => [`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`],
      }),
    );
    await expectRefused(file, "строки-ложь.xlsx", MESSAGES.bomb);
  }, 120_000);

  it("a table just under the limit (90 MB, 2.5 million strings) is read with bounded memory", async () => {
    const file = path.join(dir, "strings-ok.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sharedStrings: function* () {
          yield "<si><t>ФИО</t></si><si><t>Телефон</t></si><si><t>Иван Строков</t></si><si><t>0501234567</t></si>";
          for (let block = 0; block < 50; block++) {
            const parts: string[] = [];
            for (let i = block * 50_000; i < (block + 1) * 50_000; i++) parts.push(`<si><t>Строка ${1_000_000 + i}</t></si>`);
            yield parts.join("");
          }
        },
        sheet: () => [
          `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`,
          `<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2" t="s"><v>3</v></c></row>`,
        ],
      }),
    );
    const before = await totals();
    const { res, growth } = await measured(() => preview(file, "много-строк.xlsx"));
    expect([res.status, res.body.message]).toEqual([200, undefined]);
    expect(res.body.rows).toEqual([["Иван Строков", "0501234567"]]);
    expect(growth).toBeLessThan(RSS_BOUND);
    expect(await totals()).toEqual(before);
  }, 120_000);

  it("a cell longer than Excel allows (40,000 characters)", async () => {
    const file = path.join(dir, "long-cell.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sheet: () => [HEADER_ROW, `<row r="2">${inlineCell("A2", "я".repeat(40_000))}${inlineCell("B2", "0501234567")}</row>`],
      }),
    );
    await expectRefused(file, "длинная.xlsx", MESSAGES.cellTooLong);
  });
});

describe("binary files named .xlsx", () => {
  const random = (size: number, seed = 7) => {
    const buffer = Buffer.alloc(size);
    let x = seed;
    for (let i = 0; i < size; i++) {
      x = (x * 1103515245 + 12345) & 0x7fffffff;
      buffer[i] = x >> 16;
    }
    return buffer;
  };

  it("random bytes", async () => {
    await expectRefused(random(2 * MB), "случайные.xlsx", MESSAGES.notSpreadsheet);
  });

  it("random bytes behind a zip signature", async () => {
    const data = random(MB);
    data.writeUInt32LE(0x04034b50, 0);
    await expectRefused(data, "zip.xlsx", MESSAGES.damaged);
  });

  it("a PNG named .xlsx", async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), random(4096)]);
    await expectRefused(png, "картинка.xlsx", MESSAGES.notSpreadsheet);
  });

  it("a real workbook cut short", async () => {
    const rows = [["ФИО", "Телефон"], ...Array.from({ length: 2000 }, (_, i) => [`Клиент ${i}`, `050${String(1000000 + i)}`])];
    const whole = await buildXlsx(rows);
    await expectRefused(whole.subarray(0, Math.floor(whole.length * 0.6)), "обрезан.xlsx", MESSAGES.damaged);
  });

  it("a workbook whose sheet uses a compression method the reader does not know", async () => {
    const file = path.join(dir, "method.xlsx");
    const entries = workbookEntries({ sheet: () => [HEADER_ROW] });
    entries[entries.length - 1].method = 14; // LZMA
    await writeZipFile(file, entries);
    await expectRefused(file, "метод.xlsx", MESSAGES.damaged);
  });

  it("a workbook whose sheet is not XML", async () => {
    const file = path.join(dir, "not-xml.xlsx");
    const entries = workbookEntries({ sheet: () => [] });
    entries[entries.length - 1].chunks = () => [random(64 * 1024)];
    await writeZipFile(file, entries);
    const before = await totals();
    const res = await importFile(file, "не-xml.xlsx", "Не XML");
    expect(res.status).toBe(400);
    expect([MESSAGES.damaged, MESSAGES.empty, MESSAGES.cellTooLong]).toContain(res.body.message);
    expect(await totals()).toEqual(before);
  });
});

describe("legacy .xls", () => {
  const OLE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);

  it("garbage behind the OLE signature", async () => {
    const data = Buffer.alloc(3 * MB);
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24;
    OLE.copy(data);
    await expectRefused(data, "мусор.xls", MESSAGES.damaged);
  });

  it("a real .xls cut in half", async () => {
    const rows = [["ФИО", "Телефон"], ...Array.from({ length: 3000 }, (_, i) => [`Клиент ${i}`, `050${String(1000000 + i)}`])];
    const whole = buildXls(rows);
    await expectRefused(whole.subarray(0, Math.floor(whole.length / 2)), "половина.xls", MESSAGES.damaged);
  });

  it("an OLE header whose allocation table points at itself", async () => {
    const data = buildXls([
      ["ФИО", "Телефон"],
      ["Иван", "0501234567"],
    ]);
    const bad = Buffer.from(data);
    // The first FAT sector number in the header points at sector 0 and the directory chain starts there too.
    bad.writeUInt32LE(0, 0x4c);
    bad.writeUInt32LE(0, 0x30);
    bad.writeUInt32LE(0xffff, 0x2c); // and claims 65,535 FAT sectors
    const before = await totals();
    const { res, growth } = await measured(() => importFile(bad, "петля.xls", "Петля"));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(MESSAGES.damaged);
    expect(growth).toBeLessThan(RSS_BOUND);
    expect(await totals()).toEqual(before);
  });

  it("a large real .xls (65,000 rows, the format's most) is previewed with bounded memory", async () => {
    const rows = [["ФИО", "Телефон", "Город", "Адрес", "Комментарий"]];
    for (let i = 0; i < 65_000; i++)
      rows.push([`Клиент Длинноимённый ${i}`, `050${String(1000000 + i)}`, "Київ", `ул. Крещатик, ${i}`, "перезвонить".repeat(3)]);
    const file = path.join(dir, "big.xls");
    fs.writeFileSync(file, buildLargeXls(rows));
    rows.length = 0;
    const before = await totals();
    const { res, growth } = await measured(() => preview(file, "большой.xls"));
    expect(res.status).toBe(200);
    expect(res.body.rows).toHaveLength(10);
    expect(growth).toBeLessThan(RSS_BOUND);
    expect(await totals()).toEqual(before);
  }, 120_000);

  it("a real .xls just under the size limit (65,000 rows of 16 columns) is imported whole, with bounded memory", async () => {
    // Its million cells took more than the reader's 512 MB and the import failed as "damaged" (issue 14).
    const header = ["ФИО", "Телефон", "Город", "Адрес", ...Array.from({ length: 12 }, (_, i) => `Поле ${i + 1}`)];
    const rows: Array<Array<string | number>> = [header];
    for (let i = 0; i < 65_000; i++) {
      const row: Array<string | number> = [`Кл ${i}`, `050${1_000_000 + i}`, i % 7, i * 3];
      for (let c = 4; c < 16; c++) row.push(c % 2 ? i * c : `z${c}`);
      rows.push(row);
    }
    const file = path.join(dir, "big16.xls");
    fs.writeFileSync(file, buildLargeXls(rows));
    rows.length = 0;
    const size = fs.statSync(file).size;
    expect(size).toBeGreaterThan(15 * MB);
    expect(size).toBeLessThan(20 * MB);
    const { res, growth } = await measured(() => importFile(file, "большой.xls", "Большой xls", ["name", "phone", "city", "address"]));
    expect([res.status, res.body.message, res.body.imported]).toEqual([200, "База данных успешно импортирована", 65_000]);
    expect(growth).toBeLessThan(RSS_BOUND);
    await t.db.delete(databases).where(eq(databases.name, "Большой xls"));
  }, 240_000);
});

/**
 * A large BIFF8 .xls of text (LABEL) and number (NUMBER) cells, by our BIFF writer (xls-biff.ts, whose files the
 * differential test reads with LibreOffice): the `xlsx` package's own writer (0.20.3) keeps a 16 KB block for each
 * record it writes until it ends, about 17 GB for a sheet of a million cells (decision 048).
 */
function buildLargeXls(rows: Array<Array<string | number>>): Buffer {
  const x = new Cells(8);
  const records = rows.flatMap((row, r) => row.map((value, c) => (typeof value === "number" ? x.number(r, c, value) : x.label(r, c, value))));
  return writeBiff({ biff: 8, sheets: [{ name: "Лист1", records }] });
}

const MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";

/** A sheet of a header and `rows` contacts. */
function contactRows(rows: number) {
  return function* () {
    yield HEADER_ROW;
    for (let r = 2; r < rows + 2; r++) yield `<row r="${r}">${inlineCell(`A${r}`, `Клиент ${r}`)}${inlineCell(`B${r}`, `050${1_000_000 + r}`)}</row>`;
  };
}

describe("the server keeps answering while a file is read (issue 14)", () => {
  /** A manager's lead turn and the health check, one after the other: how long each took. */
  async function probe(getLead: () => PromiseLike<{ status: number }>) {
    let started = performance.now();
    const health = await t.request.get("/api/v1/health");
    const healthMs = performance.now() - started;
    started = performance.now();
    const lead = await getLead();
    const leadMs = performance.now() - started;
    expect([health.status, lead.status]).toEqual([200, 200]);
    return Math.max(healthMs, leadMs);
  }

  it('a number format of 200,000 "[" (a 14 KB file) stalls neither the health check nor the lead turn', async () => {
    const manager = await createUser(t.db);
    const managerToken = await t.tokenFor(manager);
    const { base } = await createBase(t.db, { count: 50 });
    const s = await statusesByText(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [s["Перезвонить"].id] });
    const getLead = () => t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(bearer(managerToken));

    const file = path.join(dir, "brackets.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        styles: `<?xml version="1.0" encoding="UTF-8"?><styleSheet xmlns="${MAIN_NS}"><numFmts count="1"><numFmt numFmtId="164" formatCode="${"[".repeat(200_000)}"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164"/></cellXfs></styleSheet>`,
        sheet: () => [HEADER_ROW, `<row r="2">${inlineCell("A2", "Иван Скобкин")}<c r="B2" s="1"><v>501234567</v></c></row>`],
      }),
    );
    expect(fs.statSync(file).size).toBeLessThan(20 * 1024);

    // Usual answer times, measured now on this machine.
    const usual: number[] = [];
    for (let i = 0; i < 10; i++) usual.push(await probe(getLead));
    const bound = Math.max(3000, 10 * Math.max(...usual));

    let reading = true;
    const shown = preview(file, "скобки.xlsx");
    const imported = importFile(file, "скобки.xlsx", "Скобки");
    const both = Promise.all([shown, imported]).finally(() => (reading = false));
    const during: number[] = [];
    while (reading) {
      during.push(await probe(getLead));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [shownRes, importedRes] = await both;
    expect(shownRes.status).toBe(200);
    expect([importedRes.status, importedRes.body.imported]).toEqual([200, 1]);
    expect(Math.max(...during)).toBeLessThan(bound);
    await t.db.delete(databases).where(eq(databases.name, "Скобки"));
  }, 180_000);

  it("a read that works too long is ended even between two rows (the worker's work-time limit)", async () => {
    // 600,000 shared strings are read before the first row: no row-by-row check could stop that part.
    const file = path.join(dir, "slow-strings.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sharedStrings: function* () {
          yield "<si><t>ФИО</t></si><si><t>Телефон</t></si>";
          for (let block = 0; block < 12; block++) {
            const parts: string[] = [];
            for (let i = block * 50_000; i < (block + 1) * 50_000; i++) parts.push(`<si><t>Строка ${i}</t></si>`);
            yield parts.join("");
          }
        },
        sheet: () => [
          `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`,
          `<row r="2">${inlineCell("A2", "Иван")}${inlineCell("B2", "0501234567")}</row>`,
        ],
      }),
    );
    const limits = SHEET_LIMITS as typeof SHEET_LIMITS & { maxWorkSeconds: number };
    const saved = limits.maxWorkSeconds;
    limits.maxWorkSeconds = 0.05;
    try {
      await expectRefused(file, "медленный.xlsx", MESSAGES.tooSlow);
    } finally {
      limits.maxWorkSeconds = saved;
    }
    // With the usual limit the same file is read.
    const res = await preview(file, "медленный.xlsx");
    expect(res.status).toBe(200);
  }, 120_000);
});

describe("what one import may hold (issue 14)", () => {
  it("one 32,000-character shared string in every row is refused at its first cell, with the row and column", async () => {
    // 83 KB that used to become 15,000 contacts and 480 MB of text.
    const file = path.join(dir, "long-shared.xlsx");
    await writeZipFile(
      file,
      workbookEntries({
        sharedStrings: () => [`<si><t>${"Ж".repeat(32_000)}</t></si>`],
        sheet: function* () {
          yield `<row r="1">${inlineCell("A1", "ФИО")}${inlineCell("B1", "Телефон")}${inlineCell("C1", "Адрес")}</row>`;
          for (let r = 2; r < 15_002; r++)
            yield `<row r="${r}">${inlineCell(`A${r}`, `Клиент ${r}`)}${inlineCell(`B${r}`, `050${1_000_000 + r}`)}<c r="C${r}" t="s"><v>0</v></c></row>`;
        },
      }),
    );
    expect(fs.statSync(file).size).toBeLessThan(1024 * 1024);
    const before = await totals();
    const { res, growth } = await measured(() => importFile(file, "длинный-адрес.xlsx", "Длинный адрес", ["name", "phone", "address"]));
    expect([res.status, res.body.message]).toEqual([
      400,
      "Строка 2, столбец C: в ячейке 32 000 символов, а в поле контакта может быть не больше 1 000. Исправьте ячейку или не импортируйте этот столбец",
    ]);
    expect(growth).toBeLessThan(RSS_BOUND);
    expect(await totals()).toEqual(before);
    // The same column left out, the file imports.
    const skipped = await importFile(file, "длинный-адрес.xlsx", "Без адреса", ["name", "phone", "skip"]);
    expect([skipped.status, skipped.body.imported]).toEqual([200, 15_000]);
    await t.db.delete(databases).where(eq(databases.name, "Без адреса"));
  }, 120_000);

  it("the text of one import is limited, and the refusal says at which row", async () => {
    const file = path.join(dir, "much-text.xlsx");
    await writeZipFile(file, workbookEntries({ sheet: contactRows(2000) }));
    const saved = IMPORT_LIMITS.maxTotalChars;
    // Each row holds "Клиент N" and a ten-digit phone: about 21 characters.
    IMPORT_LIMITS.maxTotalChars = 10_000;
    try {
      const before = await totals();
      const res = await importFile(file, "много-текста.xlsx", "Много текста");
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/^В файле слишком много текста для одной базы: к строке \d+ больше 10 000 символов\. Разбейте файл на части$/);
      const row = Number(/строке (\d+)/.exec(String(res.body.message))?.[1]);
      expect(row).toBeGreaterThan(400);
      expect(row).toBeLessThan(600);
      expect(await totals()).toEqual(before);
    } finally {
      IMPORT_LIMITS.maxTotalChars = saved;
    }
  }, 60_000);
});
