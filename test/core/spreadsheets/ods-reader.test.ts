import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MESSAGES, readRows, SHEET_LIMITS, type SheetChoice } from "../../../server/core/spreadsheets";
import { parseSheetRows } from "../../../server/core/spreadsheets/parse";
import { readFods } from "../../helpers/libreoffice";
import { buildOds, convertWithLibreOffice, odsText } from "../../helpers/ods";
import { buildZip } from "../../helpers/xlsx";

/**
 * The .ods reader (server/core/spreadsheets/ods-reader.ts) on files written by LibreOffice (converted at test time from
 * exceljs workbooks) and on a hand-built file laid out as Google Sheets writes it: cell types, paragraphs and
 * spaces, repeats, merged cells, comments, several sheets.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ods-reader-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let fileNo = 0;
function save(data: Buffer): string {
  const file = path.join(dir, `f${fileNo++}.ods`);
  fs.writeFileSync(file, data);
  return file;
}

/** The rows as the import reads them (in this thread) and which sheet they came from. */
async function read(file: string, options: { sheet?: number; listSheets?: boolean; limit?: number } = {}) {
  const rows: string[][] = [];
  let choice: SheetChoice | null = null;
  for await (const row of parseSheetRows(file, options, (c) => (choice = c))) rows.push(row.cells);
  return { rows, choice: choice as SheetChoice | null };
}

/** A workbook as a call centre keeps it: an empty first sheet, then the contacts with every kind of cell. */
async function contactsWorkbook(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  workbook.addWorksheet("Пустой");
  const sheet = workbook.addWorksheet("Контакты");
  sheet.addRow(["ФИО", "Телефон", "Дата", "Доля", "Сумма", "Комментарий"]);
  sheet.addRow(["Иванов  Иван", "0501234567", new Date(Date.UTC(2024, 2, 15)), 0.15, 1234.5, "первая строка\nвторая"]);
  sheet.getCell("C2").numFmt = "dd.mm.yyyy";
  sheet.getCell("D2").numFmt = "0%";
  sheet.getCell("E2").numFmt = '#,##0.00 "₽"';
  sheet.getCell("A2").note = "заметка, которой нет в данных";
  sheet.addRow(["Петрова Мария", 380671112233, new Date(Date.UTC(2023, 11, 31, 9, 45)), 1, -7, "да"]);
  sheet.getCell("C3").numFmt = "dd.mm.yyyy hh:mm";
  // LibreOffice writes equal neighbours once with a repeat count.
  sheet.addRow(["Повтор", "+380 63 555 44 33", "x", "x", "x", "x"]);
  sheet.addRow(["Повтор", "+380 63 555 44 33", "x", "x", "x", "x"]);
  sheet.addRow(["Повтор", "+380 63 555 44 33", "x", "x", "x", "x"]);
  sheet.mergeCells("A7:C7");
  sheet.getCell("A7").value = "Объединённая";
  sheet.getCell("D7").value = "после";
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const CONTACT_ROWS = [
  ["ФИО", "Телефон", "Дата", "Доля", "Сумма", "Комментарий"],
  ["Иванов  Иван", "0501234567", "15.03.2024", "0.15", "1234.5", "первая строка\nвторая"],
  ["Петрова Мария", "380671112233", "31.12.2023 09:45", "1", "-7", "да"],
  ["Повтор", "+380 63 555 44 33", "x", "x", "x", "x"],
  ["Повтор", "+380 63 555 44 33", "x", "x", "x", "x"],
  ["Повтор", "+380 63 555 44 33", "x", "x", "x", "x"],
  ["Объединённая", "", "", "после"],
];

describe("files written by LibreOffice", () => {
  let written: Map<string, Buffer>;
  beforeAll(async () => {
    const single = new ExcelJS.Workbook();
    const sheet = single.addWorksheet("Лист1");
    sheet.addRow(["ФИО", "Телефон"]);
    for (let i = 0; i < 300; i++) sheet.addRow([`Клиент ${i}`, `050${String(i).padStart(7, "0")}`]);
    written = await convertWithLibreOffice(
      [
        { name: "contacts.xlsx", data: await contactsWorkbook() },
        { name: "single.xlsx", data: Buffer.from(await single.xlsx.writeBuffer()) },
      ],
      "ods",
    );
  }, 200_000);

  it("reads every kind of cell as LibreOffice shows it, from the first sheet with data", async () => {
    const file = save(written.get("contacts.xlsx")!);
    const { rows, choice } = await read(file);
    expect(rows).toEqual(CONTACT_ROWS);
    expect(choice).toEqual({ index: 1 });
  });

  it("names the sheets, and reads the one asked for (an empty one gives no rows)", async () => {
    const file = save(written.get("contacts.xlsx")!);
    expect(await read(file, { listSheets: true, limit: 3 })).toEqual({
      rows: CONTACT_ROWS.slice(0, 3),
      choice: { index: 1, names: ["Пустой", "Контакты"] },
    });
    expect(await read(file, { sheet: 1 })).toEqual({ rows: [], choice: { index: 0 } });
    expect((await read(file, { sheet: 2 })).rows).toEqual(CONTACT_ROWS);
    await expect(read(file, { sheet: 3 })).rejects.toMatchObject({ status: 400, message: "В файле нет листа 3: листов в нём 2" });
  });

  it("reads in the worker the same, with the trailing million empty rows LibreOffice writes ignored", async () => {
    const file = save(written.get("single.xlsx")!);
    const rows: Array<{ number: number; cells: string[] }> = [];
    for await (const row of readRows(file)) rows.push(row);
    expect(rows.length).toBe(301);
    expect(rows[0]).toEqual({ number: 1, cells: ["ФИО", "Телефон"] });
    expect(rows[300]).toEqual({ number: 301, cells: ["Клиент 299", "0500000299"] });
  });
});

describe("a hand-built file (as Google Sheets writes it)", () => {
  const tables =
    `<table:table table:name="Пусто"><table:table-column table:number-columns-repeated="26"/>` +
    `<table:table-row table:number-rows-repeated="1000"><table:table-cell table:number-columns-repeated="26"/></table:table-row></table:table>` +
    `<table:table table:name="Данные">` +
    `<table:table-header-rows><table:table-row>${odsText("ФИО")}${odsText("Телефон")}${odsText("Число")}${odsText("Дата")}${odsText("Флаг")}${odsText("Время")}</table:table-row></table:table-header-rows>` +
    `<table:table-row>` +
    `<table:table-cell office:value-type="string"><office:annotation><dc:creator>Аня</dc:creator><text:p>комментарий</text:p></office:annotation><text:p>Иван<text:s text:c="3"/>Иванов</text:p><text:p>вторая<text:tab/>строка<text:line-break/>третья</text:p></table:table-cell>` +
    `<table:table-cell office:value-type="string"><text:p><text:span>050</text:span>1234567</text:p></table:table-cell>` +
    `<table:table-cell office:value-type="currency" office:currency="RUB" office:value="1500.25"><text:p>1 500,25 ₽</text:p></table:table-cell>` +
    `<table:table-cell office:value-type="date" office:date-value="2024-02-29T18:05:00"><text:p>29.02.2024 18:05</text:p></table:table-cell>` +
    `<table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>ИСТИНА</text:p></table:table-cell>` +
    `<table:table-cell office:value-type="time" office:time-value="PT07H05M00S"/>` +
    `</table:table-row>` +
    `<table:table-row table:number-rows-repeated="2">${odsText("Двойник")}<table:table-cell office:value-type="float" office:value="1e3"><text:p>1000</text:p></table:table-cell></table:table-row>` +
    `<table:table-row><table:table-cell table:number-columns-spanned="2" office:value-type="string"><text:p>Слито</text:p></table:table-cell><table:covered-table-cell office:value-type="string"><text:p>скрыто</text:p></table:covered-table-cell>${odsText("т", 3)}<table:table-cell table:number-columns-repeated="1000"/></table:table-row>` +
    `<table:table-row><table:table-cell office:value-type="float" office:value="0.125" table:formula="of:=1/8"><text:p>12,5%</text:p></table:table-cell><table:table-cell office:value-type="string" calcext:value-type="error" xmlns:calcext="urn:x"><text:p>#DIV/0!</text:p></table:table-cell>${odsText("ошибка рядом")}</table:table-row>` +
    `<table:table-row table:number-rows-repeated="1048560"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>` +
    `</table:table>` +
    `<table:table table:name="Третий"><table:table-row>${odsText("третий лист")}</table:table-row></table:table>`;

  it("reads text with its spaces and breaks (a tab dropped, as LibreOffice does), numbers, dates, an unstyled boolean as 1 and times; repeats expanded; merges, comments and errors left out", async () => {
    const file = save(buildOds(tables));
    const { rows, choice } = await read(file, { listSheets: true });
    expect(choice).toEqual({ index: 1, names: ["Пусто", "Данные", "Третий"] });
    expect(rows).toEqual([
      ["ФИО", "Телефон", "Число", "Дата", "Флаг", "Время"],
      ["Иван   Иванов\nвтораястрока\nтретья", "0501234567", "1500.25", "29.02.2024 18:05", "1", "07:05"],
      ["Двойник", "1000"],
      ["Двойник", "1000"],
      ["Слито", "", "т", "т", "т"],
      ["0.125", "", "ошибка рядом"],
    ]);
    expect((await read(file, { sheet: 3 })).rows).toEqual([["третий лист"]]);
  });

  it("gives rows their numbers in the sheet, repeats counted", async () => {
    const file = save(buildOds(tables));
    const numbers: number[] = [];
    for await (const row of parseSheetRows(file)) numbers.push(row.number);
    expect(numbers).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("refuses another OpenDocument (a text document) and a content part that is not XML", async () => {
    const text = save(
      buildOds(
        `<table:table table:name="a"><table:table-row>${odsText("x")}</table:table-row></table:table>`,
        "application/vnd.oasis.opendocument.text",
      ),
    );
    await expect(read(text)).rejects.toMatchObject({ status: 400, message: "Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv" });
    const broken = save(buildOds(`<table:table table:name="a"><table:table-row>${odsText("x")}</table:table-row>`));
    await expect(read(broken)).rejects.toMatchObject({ status: 400, code: "damaged_file" });
  });

  it("refuses a file saved with a password (its manifest gives its parts' encryption) with one clear message", async () => {
    const manifest =
      `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
      `<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>` +
      `<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml" manifest:size="2032"><manifest:encryption-data manifest:checksum-type="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0#sha256-1k" manifest:checksum="AAAA">` +
      `<manifest:algorithm manifest:algorithm-name="http://www.w3.org/2001/04/xmlenc#aes256-cbc" manifest:initialisation-vector="AAAA"/>` +
      `<manifest:key-derivation manifest:key-derivation-name="PBKDF2" manifest:key-size="32" manifest:iteration-count="100000" manifest:salt="AAAA"/></manifest:encryption-data></manifest:file-entry></manifest:manifest>`;
    const ciphertext = Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 131 + 7) & 0xff));
    const file = save(
      buildZip([
        { name: "mimetype", data: "application/vnd.oasis.opendocument.spreadsheet" },
        { name: "META-INF/manifest.xml", data: manifest },
        { name: "content.xml", data: ciphertext },
      ]),
    );
    await expect(read(file)).rejects.toMatchObject({ status: 400, code: "file_encrypted", message: MESSAGES.encrypted });
  });

  it("a huge sheet: a value past the last row Excel and LibreOffice have, or more rows than that, is refused", async () => {
    const past = save(
      buildOds(
        `<table:table table:name="a"><table:table-row table:number-rows-repeated="1048576"><table:table-cell/></table:table-row><table:table-row>${odsText("x")}</table:table-row></table:table>`,
      ),
    );
    await expect(read(past)).rejects.toMatchObject({ status: 400, code: "too_many_rows" });
    const saved = SHEET_LIMITS.maxRows;
    SHEET_LIMITS.maxRows = 1000;
    try {
      const many = save(
        buildOds(
          `<table:table table:name="a"><table:table-row table:number-rows-repeated="1001"><table:table-cell office:value-type="float" office:value="1"/></table:table-row></table:table>`,
        ),
      );
      await expect(read(many)).rejects.toMatchObject({ status: 400, code: "too_many_rows" });
    } finally {
      SHEET_LIMITS.maxRows = saved;
    }
  });

  it("a sheet of explicit empty rows is refused like in an .xlsx, while one repeated empty row costs nothing", async () => {
    const saved = SHEET_LIMITS.maxEmptyRows;
    SHEET_LIMITS.maxEmptyRows = 100;
    try {
      const explicit = save(
        buildOds(
          `<table:table table:name="a">${"<table:table-row><table:table-cell/></table:table-row>".repeat(101)}<table:table-row>${odsText("x")}</table:table-row></table:table>`,
        ),
      );
      await expect(read(explicit)).rejects.toMatchObject({ status: 400, code: "too_many_empty" });
      const repeated = save(
        buildOds(
          `<table:table table:name="a"><table:table-row table:number-rows-repeated="100000"><table:table-cell/></table:table-row><table:table-row>${odsText("x")}</table:table-row></table:table>`,
        ),
      );
      expect(await read(repeated)).toMatchObject({ rows: [["x"]] });
    } finally {
      SHEET_LIMITS.maxEmptyRows = saved;
    }
  });

  it("bounds what repeats may add: a repeated row of text past the limit is refused as a bomb", async () => {
    const saved = SHEET_LIMITS.maxRepeatedChars;
    SHEET_LIMITS.maxRepeatedChars = 10_000;
    try {
      const ok = save(
        buildOds(
          `<table:table table:name="a"><table:table-row table:number-rows-repeated="90">${odsText("x".repeat(100))}</table:table-row></table:table>`,
        ),
      );
      expect((await read(ok)).rows.length).toBe(90);
      const bomb = save(
        buildOds(
          `<table:table table:name="a"><table:table-row table:number-rows-repeated="200">${odsText("x".repeat(100))}</table:table-row></table:table>`,
        ),
      );
      await expect(read(bomb)).rejects.toMatchObject({ status: 400, message: "Файл повреждён или подозрительно сильно сжат: импорт отменён" });
    } finally {
      SHEET_LIMITS.maxRepeatedChars = saved;
    }
  });
});

describe("booleans: TRUE/FALSE only with a boolean style, as LibreOffice reads them", () => {
  const bool = (value: boolean, style?: string) =>
    `<table:table-cell${style ? ` table:style-name="${style}"` : ""} office:value-type="boolean" office:boolean-value="${value}"><text:p>${value ? "ИСТИНА" : "ЛОЖЬ"}</text:p></table:table-cell>`;
  const formulaBool = (value: boolean, style?: string) =>
    `<table:table-cell${style ? ` table:style-name="${style}"` : ""} table:formula="of:=${value ? "1&lt;2" : "1&gt;2"}" office:value-type="boolean" office:boolean-value="${value}"><text:p>${value ? "ИСТИНА" : "ЛОЖЬ"}</text:p></table:table-cell>`;
  const styles =
    `<number:boolean-style style:name="Bool"><number:boolean/></number:boolean-style>` +
    `<style:style style:name="Default" style:family="table-cell"/>` +
    `<style:style style:name="Флажок" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="Bool"/>`;
  const automaticStyles =
    `<number:boolean-style style:name="N99"><number:boolean/></number:boolean-style>` +
    `<number:number-style style:name="N2"><number:number number:decimal-places="2"/></number:number-style>` +
    `<style:style style:name="ce1" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N99"/>` +
    `<style:style style:name="ce2" style:family="table-cell" style:parent-style-name="Флажок"/>` +
    `<style:style style:name="ce3" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N2"/>` +
    `<style:style style:name="ce4" style:family="table-cell" style:parent-style-name="Флажок" style:data-style-name="N2"/>` +
    `<number:number-style style:name="N0"><number:number number:min-integer-digits="1"/></number:number-style>` +
    `<number:number-style style:name="N1"><number:number number:decimal-places="0" number:min-integer-digits="1"/></number:number-style>` +
    `<style:style style:name="ce5" style:family="table-cell" style:data-style-name="N0"/>` +
    `<style:style style:name="ce6" style:family="table-cell" style:data-style-name="N1"/>`;
  // Columns: its own boolean style, a parent's (in styles.xml), a number style, a number style over a boolean
  // parent, the column's boolean default, the column's default without a data style (General), a column that names
  // no style (General too), one past the columns the sheet defines (General too), General as LibreOffice writes it,
  // "0"; the last row has its own default.
  // The second sheet has no columns and no style names (as SheetJS writes): 1 and 0; but a formula's boolean result
  // TRUE/FALSE when it has no style, and by its style when it has one.
  const tables =
    `<table:table table:name="Лист1">` +
    `<table:table-column table:number-columns-repeated="4" table:default-cell-style-name="Default"/>` +
    `<table:table-column table:default-cell-style-name="ce1"/><table:table-column table:default-cell-style-name="Default"/><table:table-column/>` +
    `<table:table-row>${["свой", "родитель", "числовой", "перекрыт", "столбец", "общий", "без имени", "за столбцами", "N0", "N1"].map((t) => odsText(t)).join("")}</table:table-row>` +
    `<table:table-row>${bool(true, "ce1")}${bool(true, "ce2")}${bool(true, "ce3")}${bool(true, "ce4")}${bool(true)}${bool(true)}${bool(true)}${bool(true)}${bool(true, "ce5")}${bool(true, "ce6")}</table:table-row>` +
    `<table:table-row>${bool(false, "ce1")}${bool(false, "ce2")}${bool(false, "ce3")}${bool(false, "ce4")}${bool(false)}${bool(false)}${bool(false)}${bool(false)}${bool(false, "ce5")}${bool(false, "ce6")}</table:table-row>` +
    `<table:table-row table:default-cell-style-name="ce2">${bool(true)}</table:table-row>` +
    `</table:table>` +
    `<table:table table:name="Лист2"><table:table-row>${bool(true)}${bool(false)}${formulaBool(true)}${formulaBool(false)}${formulaBool(true, "ce3")}${formulaBool(true, "ce1")}</table:table-row></table:table>`;

  it("agrees with LibreOffice on every boolean cell, whatever holds its style", async () => {
    const data = buildOds(tables, undefined, { styles, automaticStyles });
    const file = save(data);
    const { rows } = await read(file);
    expect(rows).toEqual([
      ["свой", "родитель", "числовой", "перекрыт", "столбец", "общий", "без имени", "за столбцами", "N0", "N1"],
      ["ИСТИНА", "ИСТИНА", "1", "1", "ИСТИНА", "ИСТИНА", "ИСТИНА", "ИСТИНА", "ИСТИНА", "1"],
      ["ЛОЖЬ", "ЛОЖЬ", "0", "0", "ЛОЖЬ", "ЛОЖЬ", "ЛОЖЬ", "ЛОЖЬ", "ЛОЖЬ", "0"],
      ["ИСТИНА"],
    ]);
    const second = (await read(file, { sheet: 2 })).rows;
    expect(second).toEqual([["1", "0", "ИСТИНА", "ЛОЖЬ", "1", "ИСТИНА"]]);
    // LibreOffice's own reading of the same file: a boolean where we read ИСТИНА/ЛОЖЬ, the number where we read 1/0.
    const fods = path.join(dir, "booleans.fods");
    fs.writeFileSync(fods, (await convertWithLibreOffice([{ name: "booleans.ods", data }], "fods")).get("booleans.ods")!);
    const sheets = readFods(fods);
    const lo = (sheet: number, ours: string[][]) =>
      ours.map((row, r) =>
        row.map((_, c) => {
          const cell = sheets[sheet].cells.get(`${r},${c}`);
          if (cell?.type === "boolean") return cell.value === "true" ? "ИСТИНА" : "ЛОЖЬ";
          return cell?.value ?? "";
        }),
      );
    expect(lo(0, rows)).toEqual(rows);
    expect(lo(1, second)).toEqual(second);
  }, 200_000);

  it("bounds the styles it holds: a file of too many style names is refused as too complex", async () => {
    const saved = SHEET_LIMITS.maxOdsStyleChars;
    SHEET_LIMITS.maxOdsStyleChars = 1000;
    try {
      const many = Array.from(
        { length: 200 },
        (_, i) => `<style:style style:name="ce${i}" style:family="table-cell" style:data-style-name="N99"/>`,
      ).join("");
      const file = save(buildOds(tables, undefined, { styles, automaticStyles: automaticStyles + many }));
      await expect(read(file)).rejects.toMatchObject({ status: 400, message: MESSAGES.outOfMemory });
      expect((await read(save(buildOds(tables, undefined, { styles, automaticStyles })))).rows.length).toBe(4);
    } finally {
      SHEET_LIMITS.maxOdsStyleChars = saved;
    }
  });
});

describe("a float in a date or time format (as SheetJS 0.20 writes dates): the date or time LibreOffice shows", () => {
  const float = (value: number, style?: string) =>
    `<table:table-cell${style ? ` table:style-name="${style}"` : ""} office:value-type="float" office:value="${value}"><text:p>${value}</text:p></table:table-cell>`;
  // A common date style in styles.xml, reached through an automatic style's parent.
  const styles =
    `<number:date-style style:name="Д"><number:day number:style="long"/><number:text>.</number:text><number:month number:style="long"/><number:text>.</number:text><number:year number:style="long"/></number:date-style>` +
    `<style:style style:name="Дата" style:family="table-cell" style:data-style-name="Д"/>`;
  // As SheetJS 0.20.3 writes them (a parent "Default" that no part defines), and LibreOffice's HH:MM, HH:MM:SS and [HH]:MM.
  const automaticStyles =
    `<number:date-style style:name="N69"><number:day number:style="long"/><number:month number:style="long" number:textual="false"/><number:year number:style="long"/></number:date-style>` +
    `<number:date-style style:name="N70"><number:day number:style="long"/><number:month number:style="long" number:textual="false"/><number:year number:style="long"/><number:hours number:style="long"/><number:text>:</number:text><number:minutes number:style="long"/></number:date-style>` +
    `<number:time-style style:name="N71"><number:hours number:style="long"/><number:text>:</number:text><number:minutes number:style="long"/></number:time-style>` +
    `<number:time-style style:name="N72"><number:hours number:style="long"/><number:text>:</number:text><number:minutes number:style="long"/><number:text>:</number:text><number:seconds number:style="long"/></number:time-style>` +
    `<number:time-style style:name="N73" number:truncate-on-overflow="false"><number:hours/><number:text>:</number:text><number:minutes number:style="long"/></number:time-style>` +
    `<number:number-style style:name="N74"><number:number number:min-integer-digits="1" number:decimal-places="2"/></number:number-style>` +
    `<style:style style:name="ce1" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N69"/>` +
    `<style:style style:name="ce2" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N70"/>` +
    `<style:style style:name="ce3" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N71"/>` +
    `<style:style style:name="ce4" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N72"/>` +
    `<style:style style:name="ce5" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N73"/>` +
    `<style:style style:name="ce6" style:family="table-cell" style:parent-style-name="Дата"/>` +
    `<style:style style:name="ce7" style:family="table-cell" style:parent-style-name="Default" style:data-style-name="N74"/>`;
  const headers = ["дата", "дата и время", "время", "за сутки", "секунды", "часы подряд", "родитель", "столбец", "число", "0.00", "почти сутки"];
  // Column H's default style is the date one; the others name none (General).
  const tables =
    `<table:table table:name="Лист1">` +
    `<table:table-column table:number-columns-repeated="7"/><table:table-column table:default-cell-style-name="ce1"/><table:table-column table:number-columns-repeated="3"/>` +
    `<table:table-row>${headers.map((t) => odsText(t)).join("")}</table:table-row>` +
    `<table:table-row>${float(45292, "ce1")}${float(45359.3958333333, "ce2")}${float(0.5, "ce3")}${float(1.75, "ce3")}${float(0.51059, "ce4")}${float(1.75, "ce5")}${float(61, "ce6")}${float(45292)}${float(1.5)}${float(5, "ce7")}${float(0.999999, "ce3")}</table:table-row>` +
    `</table:table>`;
  // A document whose null date is 1904 (table:null-date): LibreOffice counts its days from there.
  const tables1904 =
    `<table:calculation-settings><table:null-date table:date-value="1904-01-01"/></table:calculation-settings>` +
    `<table:table table:name="Лист1"><table:table-row>${float(0, "ce1")}${float(43830, "ce1")}${float(43830)}</table:table-row></table:table>`;
  const expected = [
    headers,
    ["01.01.2024", "08.03.2024 09:30", "12:00", "18:00", "12:15:14", "42:00", "01.03.1900", "01.01.2024", "1.5", "5", "23:59"],
  ];
  const expected1904 = [["01.01.1904", "01.01.2024", "43830"]];

  it("reads the dates as date cells and the times as LibreOffice shows them, a number in another format staying a number; LibreOffice's own save of the file reads the same", async () => {
    const data = buildOds(tables, undefined, { styles, automaticStyles });
    const data1904 = buildOds(tables1904, undefined, { styles, automaticStyles });
    expect((await read(save(data))).rows).toEqual(expected);
    expect((await read(save(data1904))).rows).toEqual(expected1904);
    // LibreOffice saves these cells as date and time cells (with the time it shows as their text), which the reader
    // already read as LibreOffice does: the floats must read the same.
    const saved = await convertWithLibreOffice(
      [
        { name: "floats.ods", data },
        { name: "floats-1904.ods", data: data1904 },
      ],
      "ods",
    );
    expect((await read(save(saved.get("floats.ods")!))).rows).toEqual(expected);
    expect((await read(save(saved.get("floats-1904.ods")!))).rows).toEqual(expected1904);
  }, 200_000);
});
