import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { asc, count, eq } from "drizzle-orm";
import ExcelJS from "exceljs";
import * as XLSX from "xlsx";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { contacts, databases } from "../../db/schema";
import { bearer, useTestApp } from "../helpers/app";
import { convertWithLibreOffice, odsEntries, odsText } from "../helpers/ods";
import { writeZipFile } from "../helpers/xlsx";

/**
 * Issue 16: .ods bases (LibreOffice, Google Sheets) through the import API, hostile .ods files refused in Russian
 * while the server keeps answering, and the sheet choice (an empty first sheet, a `sheet` parameter) for .xlsx,
 * .xls and .ods alike.
 */
let token: string;
let dir: string;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "ods-api-"));
});

afterAll(async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await t.db.delete(databases);
});

type Answer = { status: number; body: { message?: string; [key: string]: unknown } };

function preview(file: string | Buffer, filename: string, sheet?: string) {
  const req = t.request.post("/api/v1/database/preview").set(bearer(token));
  if (sheet !== undefined) req.field("sheet", sheet);
  return req.attach("file", file, filename) as unknown as Promise<Answer>;
}

function importFile(file: string | Buffer, filename: string, name: string, options: { sheet?: string; mappings?: string[] } = {}) {
  const req = t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", JSON.stringify(options.mappings ?? ["name", "phone"]));
  if (options.sheet !== undefined) req.field("sheet", options.sheet);
  return req.attach("file", file, filename) as unknown as Promise<Answer>;
}

async function contactsOf(name: string) {
  const [base] = await t.db.select().from(databases).where(eq(databases.name, name));
  if (!base) return null;
  return t.db.select({ name: contacts.name, phone: contacts.phone }).from(contacts).where(eq(contacts.databaseId, base.id)).orderBy(asc(contacts.id));
}

async function totals() {
  const [{ bases }] = await t.db.select({ bases: count() }).from(databases);
  const [{ rows }] = await t.db.select({ rows: count() }).from(contacts);
  return { bases, rows };
}

/** Sheets: an empty first one, the clients, and a third with other people. */
const SHEETS: Array<[string, Array<Array<string | number>>]> = [
  ["Пустой", []],
  [
    "Клиенты",
    [
      ["ФИО", "Телефон"],
      ["Иванов Иван", "0501234567"],
      ["Петрова Мария", 380671112233],
    ],
  ],
  [
    "Архив",
    [
      ["ФИО", "Телефон"],
      ["Сидоров Пётр", "0631112233"],
    ],
  ],
];

async function exceljsBook(sheets: typeof SHEETS): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const [name, rows] of sheets) workbook.addWorksheet(name).addRows(rows);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

function xlsBook(sheets: typeof SHEETS): Buffer {
  const workbook = XLSX.utils.book_new();
  for (const [name, rows] of sheets) XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(rows), name);
  return XLSX.write(workbook, { bookType: "biff8", type: "buffer" }) as Buffer;
}

const files = new Map<string, Buffer>();
beforeAll(async () => {
  const xlsx = await exceljsBook(SHEETS);
  const allEmpty = await exceljsBook([
    ["Первый", []],
    ["Второй", []],
  ]);
  const single = new ExcelJS.Workbook();
  const sheet = single.addWorksheet("База");
  sheet.addRow(["ФИО", "Телефон", "Город"]);
  sheet.addRow(["Ёлкина Анна", "+380 63 555-44-33", "Одеса"]);
  sheet.addRow(["Коваль Олег", "0501112233", "Киев"]);
  files.set("sheets.xlsx", xlsx);
  files.set("sheets.xls", xlsBook(SHEETS));
  files.set("empty.xlsx", allEmpty);
  const written = await convertWithLibreOffice(
    [
      { name: "sheets.xlsx", data: xlsx },
      { name: "empty.xlsx", data: allEmpty },
      { name: "single.xlsx", data: Buffer.from(await single.xlsx.writeBuffer()) },
    ],
    "ods",
  );
  files.set("sheets.ods", written.get("sheets.xlsx")!);
  files.set("empty.ods", written.get("empty.xlsx")!);
  files.set("single.ods", written.get("single.xlsx")!);
}, 200_000);

describe("an .ods written by LibreOffice", () => {
  it("previews and imports like an .xlsx", async () => {
    const shown = await preview(files.get("single.ods")!, "база.ods");
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      sheet: 1,
      sheets: ["База"],
      hasHeader: true,
      rows: [
        ["Ёлкина Анна", "+380 63 555-44-33", "Одеса"],
        ["Коваль Олег", "0501112233", "Киев"],
      ],
    });
    expect(shown.body.notice).toBeUndefined();
    const res = await importFile(files.get("single.ods")!, "база.ods", "Из LibreOffice");
    expect([res.status, res.body.imported]).toEqual([200, 2]);
    expect(await contactsOf("Из LibreOffice")).toEqual([
      { name: "Ёлкина Анна", phone: "+380 63 555-44-33" },
      { name: "Коваль Олег", phone: "0501112233" },
    ]);
  });
});

describe.each(["xlsx", "xls", "ods"])("the sheet choice in an .%s", (format) => {
  const file = () => files.get(`sheets.${format}`)!;
  const filename = `листы.${format}`;

  it("an empty first sheet: the preview says so and shows the first sheet with data, which the import takes", async () => {
    const shown = await preview(file(), filename);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({
      sheet: 2,
      sheets: ["Пустой", "Клиенты", "Архив"],
      notice: "Первый лист «Пустой» пустой, поэтому показан лист «Клиенты». Другой лист можно выбрать в списке «Лист»",
      rows: [
        ["Иванов Иван", "0501234567"],
        ["Петрова Мария", "380671112233"],
      ],
    });
    const res = await importFile(file(), filename, `Клиенты ${format}`);
    expect([res.status, res.body.imported]).toEqual([200, 2]);
    expect(await contactsOf(`Клиенты ${format}`)).toEqual([
      { name: "Иванов Иван", phone: "0501234567" },
      { name: "Петрова Мария", phone: "380671112233" },
    ]);
  });

  it("the sheet asked for is previewed and imported", async () => {
    const shown = await preview(file(), filename, "3");
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ sheet: 3, rows: [["Сидоров Пётр", "0631112233"]] });
    expect(shown.body.notice).toBeUndefined();
    const res = await importFile(file(), filename, `Архив ${format}`, { sheet: "3" });
    expect([res.status, res.body.imported]).toEqual([200, 1]);
    expect(await contactsOf(`Архив ${format}`)).toEqual([{ name: "Сидоров Пётр", phone: "0631112233" }]);
  });

  it("an empty sheet, a sheet that is not there, or not a number: a Russian 400 and nothing written", async () => {
    const before = await totals();
    const answers = await Promise.all([
      preview(file(), filename, "1"),
      preview(file(), filename, "4"),
      preview(file(), filename, "второй"),
      importFile(file(), filename, `Пустой ${format}`, { sheet: "1" }),
      importFile(file(), filename, `Нет листа ${format}`, { sheet: "9" }),
    ]);
    expect(answers.map((a) => [a.status, a.body.message])).toEqual([
      [400, "Лист «Пустой» пустой: выберите другой лист"],
      [400, "В файле нет листа 4: листов в нём 3"],
      [400, "Номер листа: целое число от 1"],
      [400, "Лист 1 пустой: выберите другой лист"],
      [400, "В файле нет листа 9: листов в нём 3"],
    ]);
    expect(await totals()).toEqual(before);
  });
});

it.each(["xlsx", "ods"])("an .%s whose every sheet is empty is refused as empty", async (format) => {
  const res = await preview(files.get(`empty.${format}`)!, `пусто.${format}`);
  expect([res.status, res.body.message]).toEqual([400, "Файл пустой: ни в одном листе нет строк"]);
});

describe("hostile .ods files are refused in Russian while the server keeps answering", () => {
  const MB = 1024 * 1024;
  const BOMB = "Файл повреждён или подозрительно сильно сжат: импорт отменён";
  const CELL = "В ячейке больше 32 767 символов (предел Excel): файл повреждён или это не таблица";
  const HEADER = `<table:table table:name="Лист1"><table:table-row>${odsText("ФИО")}${odsText("Телефон")}</table:table-row>`;

  /** Preview and import both refuse with this message and write nothing; health checks answer meanwhile. */
  async function expectRefused(file: string, message: string) {
    const before = await totals();
    for (const request of [() => preview(file, "атака.ods"), () => importFile(file, "атака.ods", "Атака")]) {
      let reading = true;
      // The read runs in the sheet worker: the server's thread answers health checks meanwhile.
      const answer = Promise.resolve(request()).finally(() => (reading = false));
      while (reading) {
        const health = await t.request.get("/api/v1/health");
        expect(health.status).toBe(200);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const res = await answer;
      expect([res.status, res.body.message]).toEqual([400, message]);
    }
    expect(await totals()).toEqual(before);
  }

  it("a row of text repeated a million times (a few bytes for 200 million characters)", async () => {
    const file = path.join(dir, "rows.ods");
    await writeZipFile(
      file,
      odsEntries(() => [
        HEADER,
        `<table:table-row table:number-rows-repeated="1000000">${odsText("Я".repeat(100), 2)}</table:table-row></table:table>`,
      ]),
    );
    expect(fs.statSync(file).size).toBeLessThan(4096);
    await expectRefused(file, BOMB);
  });

  it("a cell of two billion spaces (text:s)", async () => {
    const file = path.join(dir, "spaces.ods");
    await writeZipFile(
      file,
      odsEntries(() => [
        HEADER,
        `<table:table-row><table:table-cell office:value-type="string"><text:p>a<text:s text:c="2000000000"/></text:p></table:table-cell></table:table-row></table:table>`,
      ]),
    );
    await expectRefused(file, CELL);
  });

  it("a cell of 200 MB of text", async () => {
    const file = path.join(dir, "cell.ods");
    await writeZipFile(
      file,
      odsEntries(function* () {
        yield `${HEADER}<table:table-row><table:table-cell office:value-type="string"><text:p>`;
        const chunk = Buffer.alloc(MB, 0x78);
        for (let i = 0; i < 200; i++) yield chunk;
        yield "</text:p></table:table-cell></table:table-row></table:table>";
      }),
    );
    await expectRefused(file, CELL);
  }, 120_000);

  it("a content part that inflates to a gigabyte while the directory claims one megabyte", async () => {
    const file = path.join(dir, "bomb.ods");
    await writeZipFile(
      file,
      odsEntries(function* () {
        yield HEADER;
        const chunk = Buffer.alloc(MB, 0x20);
        for (let i = 0; i < 1024; i++) yield chunk;
        yield "</table:table>";
      }, MB),
    );
    expect(fs.statSync(file).size).toBeLessThan(10 * MB);
    await expectRefused(file, BOMB);
  }, 120_000);
});
