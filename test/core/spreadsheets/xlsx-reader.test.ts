import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MESSAGES, readRows } from "../../../server/core/spreadsheets";
import { parseSheetRows } from "../../../server/core/spreadsheets/parse";
import { isDateFormat } from "../../../server/core/spreadsheets/xlsx-reader";
import { buildXlsx, writeZipFile, type StreamedEntry } from "../../helpers/xlsx";

/**
 * The .xlsx reader (server/core/spreadsheets/xlsx-reader.ts) on workbooks as different programs write them: parts in any
 * order, namespace prefixes, dates by number format, rich text, booleans and errors.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "xlsx-reader-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG = "http://schemas.openxmlformats.org/package/2006/relationships";

interface Parts {
  workbook?: string;
  rels?: string;
  sharedStrings?: string;
  styles?: string;
  sheets: Record<string, string>;
  /** Part names in the order they go into the zip; the rest follow. */
  order?: string[];
}

let fileNo = 0;
async function rowsOf(parts: Parts): Promise<string[][]> {
  const all: Record<string, string | undefined> = {
    "[Content_Types].xml": `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>`,
    "xl/workbook.xml": parts.workbook,
    "xl/_rels/workbook.xml.rels": parts.rels,
    "xl/sharedStrings.xml": parts.sharedStrings,
    "xl/styles.xml": parts.styles,
    ...parts.sheets,
  };
  const names = [...new Set([...(parts.order ?? []), ...Object.keys(all)])].filter((name) => all[name] !== undefined);
  const entries: StreamedEntry[] = names.map((name) => ({ name, chunks: () => [all[name]!] }));
  const file = path.join(dir, `book-${++fileNo}.xlsx`);
  await writeZipFile(file, entries);
  const rows: string[][] = [];
  for await (const row of readRows(file)) rows.push(row.cells);
  return rows;
}

const workbook = (sheets: Array<[string, string]>, extra = "") =>
  `<?xml version="1.0"?><workbook xmlns="${MAIN}" xmlns:r="${REL}">${extra}<sheets>${sheets
    .map(([name, id], i) => `<sheet name="${name}" sheetId="${i + 1}" r:id="${id}"/>`)
    .join("")}</sheets></workbook>`;
const rels = (targets: Record<string, string>) =>
  `<?xml version="1.0"?><Relationships xmlns="${PKG}">${Object.entries(targets)
    .map(([id, target]) => `<Relationship Id="${id}" Type="${REL}/worksheet" Target="${target}"/>`)
    .join("")}<Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`;
const sheet = (rows: string) => `<?xml version="1.0"?><worksheet xmlns="${MAIN}"><sheetData>${rows}</sheetData></worksheet>`;
const sst = (items: string[]) => `<?xml version="1.0"?><sst xmlns="${MAIN}">${items.map((item) => `<si>${item}</si>`).join("")}</sst>`;

describe("the xlsx reader", () => {
  it("reads the sheet the workbook lists first, with its shared strings, wherever the parts sit in the zip", async () => {
    const rows = await rowsOf({
      workbook: workbook([
        ["Клиенты", "rId2"],
        ["Архив", "rId1"],
      ]),
      rels: rels({ rId1: "worksheets/sheet1.xml", rId2: "/xl/worksheets/sheet2.xml" }),
      sharedStrings: sst(["<t>ФИО</t>", "<t>Телефон</t>", "<t>Иван Петров</t>", "<t>Архивный</t>"]),
      sheets: {
        "xl/worksheets/sheet1.xml": sheet(`<row r="1"><c r="A1" t="s"><v>3</v></c></row>`),
        "xl/worksheets/sheet2.xml": sheet(
          `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>` +
            `<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>380501234567</v></c></row>`,
        ),
      },
      // The sheet first, the workbook and the strings after it: exceljs' streaming reader lost such parts.
      order: ["xl/worksheets/sheet2.xml", "xl/worksheets/sheet1.xml", "xl/styles.xml", "xl/sharedStrings.xml", "xl/workbook.xml"],
    });
    expect(rows).toEqual([
      ["ФИО", "Телефон"],
      ["Иван Петров", "380501234567"],
    ]);
  });

  it("reads elements written with a namespace prefix (x:row, x:c)", async () => {
    const rows = await rowsOf({
      workbook: `<?xml version="1.0"?><x:workbook xmlns:x="${MAIN}" xmlns:r="${REL}"><x:sheets><x:sheet name="Лист" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>`,
      rels: rels({ rId1: "worksheets/sheet1.xml" }),
      sheets: {
        "xl/worksheets/sheet1.xml": `<?xml version="1.0"?><x:worksheet xmlns:x="${MAIN}"><x:sheetData><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t>Ольга</x:t></x:is></x:c><x:c r="C1"><x:v>42</x:v></x:c></x:row></x:sheetData></x:worksheet>`,
      },
    });
    expect(rows).toEqual([["Ольга", "", "42"]]);
  });

  it("shows numbers styled as dates as dd.mm.yyyy (with the time when there is one), other numbers as written", async () => {
    const styles = `<?xml version="1.0"?><styleSheet xmlns="${MAIN}"><numFmts count="2"><numFmt numFmtId="164" formatCode="dd/mm/yyyy"/><numFmt numFmtId="165" formatCode="&quot;руб.&quot;#,##0.00"/></numFmts><cellStyleXfs count="1"><xf numFmtId="14"/></cellStyleXfs><cellXfs count="5"><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="22"/><xf numFmtId="165"/></cellXfs></styleSheet>`;
    const row = `<row r="1"><c r="A1" s="1"><v>45292</v></c><c r="B1" s="2"><v>45337</v></c><c r="C1" s="3"><v>45292.5</v></c><c r="D1" s="4"><v>1234.5</v></c><c r="E1"><v>45292</v></c><c r="F1" t="d"><v>2024-03-08T09:30:00</v></c></row>`;
    const rows = await rowsOf({
      workbook: workbook([["Лист", "rId1"]]),
      rels: rels({ rId1: "worksheets/sheet1.xml" }),
      styles,
      sheets: { "xl/worksheets/sheet1.xml": sheet(row) },
    });
    expect(rows).toEqual([["01.01.2024", "15.02.2024", "01.01.2024 12:00", "1234.5", "45292", "08.03.2024 09:30"]]);

    // A workbook counting days from 1904 (old Excel for Mac).
    const rows1904 = await rowsOf({
      workbook: workbook([["Лист", "rId1"]], `<workbookPr date1904="1"/>`),
      rels: rels({ rId1: "worksheets/sheet1.xml" }),
      styles,
      sheets: { "xl/worksheets/sheet1.xml": sheet(`<row r="1"><c r="A1" s="1"><v>43830</v></c></row>`) },
    });
    expect(rows1904).toEqual([["01.01.2024"]]);
  });

  it("joins rich-text runs without phonetic hints, decodes _xHHHH_, and reads booleans, errors and cells without an address", async () => {
    const rows = await rowsOf({
      workbook: workbook([["Лист", "rId1"]]),
      rels: rels({ rId1: "worksheets/sheet1.xml" }),
      sharedStrings: sst([
        `<r><rPr><b/></rPr><t>Анна </t></r><r><t>Сидорова</t></r><rPh sb="0" eb="1"><t>アンナ</t></rPh>`,
        `<t>ул. Ленина,_x000D_ д. 5</t>`,
      ]),
      sheets: {
        "xl/worksheets/sheet1.xml": sheet(
          `<row><c t="s"><v>0</v></c><c t="s"><v>1</v></c><c t="b"><v>1</v></c><c t="b"><v>0</v></c><c t="e"><v>#N/A</v></c><c t="str"><f>A1&amp;"!"</f><v>Анна Сидорова!</v></c></row>`,
        ),
      },
    });
    expect(rows).toEqual([["Анна Сидорова", "ул. Ленина,\n д. 5", "ИСТИНА", "ЛОЖЬ", "", "Анна Сидорова!"]]);
  });

  it("reads a shared-string cell with an empty value as an empty cell, not as the first string (issue 16)", async () => {
    const rows = await rowsOf({
      workbook: workbook([["Лист", "rId1"]]),
      rels: rels({ rId1: "worksheets/sheet1.xml" }),
      sharedStrings: sst(["<t>ФИО</t>", "<t>Телефон</t>", "<t>+79161234567</t>"]),
      sheets: {
        "xl/worksheets/sheet1.xml": sheet(
          `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>` +
            `<row r="2"><c r="A2" t="s"><v/></c><c r="B2" t="s"><v>2</v></c></row>` +
            `<row r="3"><c r="A3" t="s"><v></v></c><c r="B3" t="s"/><c r="C3" t="s"><v>2</v></c></row>`,
        ),
      },
    });
    expect(rows).toEqual([
      ["ФИО", "Телефон"],
      ["", "+79161234567"],
      ["", "", "+79161234567"],
    ]);
  });

  it("finds the workbook, its shared strings and styles where the package's relationships put them (issue 16)", async () => {
    // A small valid package of another generator: the workbook is not xl/workbook.xml, the strings elsewhere too.
    const file = path.join(dir, "elsewhere.xlsx");
    await writeZipFile(file, [
      {
        name: "_rels/.rels",
        chunks: () => [
          `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="r1" Type="${REL}/officeDocument" Target="/book/main.xml"/></Relationships>`,
        ],
      },
      { name: "book/main.xml", chunks: () => [workbook([["Лист", "rId1"]])] },
      {
        name: "book/_rels/main.xml.rels",
        chunks: () => [
          `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="sheets/first.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="../strings.xml"/><Relationship Id="rId3" Type="${REL}/styles" Target="look.xml"/></Relationships>`,
        ],
      },
      { name: "strings.xml", chunks: () => [sst(["<t>Мария</t>"])] },
      {
        name: "book/look.xml",
        chunks: () => [
          `<?xml version="1.0"?><styleSheet xmlns="${MAIN}"><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="14"/></cellXfs></styleSheet>`,
        ],
      },
      { name: "book/sheets/first.xml", chunks: () => [sheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" s="1"><v>45292</v></c></row>`)] },
    ]);
    const rows: string[][] = [];
    for await (const row of readRows(file)) rows.push(row.cells);
    expect(rows).toEqual([["Мария", "01.01.2024"]]);

    // A package whose main part is not a workbook (a .docx) is still not a table.
    const docx = path.join(dir, "letter.xlsx");
    await writeZipFile(docx, [
      {
        name: "_rels/.rels",
        chunks: () => [
          `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="r1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
        ],
      },
      {
        name: "word/document.xml",
        chunks: () => [
          `<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body/></w:document>`,
        ],
      },
    ]);
    await expect(readRows(docx).next()).rejects.toMatchObject({ status: 400, message: MESSAGES.notSpreadsheet });
  });

  it("reads a package zipped with backslashes in its names, or with names in other capitals than its relationships", async () => {
    // A Windows tool's zip (xl\worksheets\sheet1.xml), and a database export's "Sheet1.xml" for "sheet1.xml".
    for (const [label, rename] of [
      ["backslash", (name: string) => name.replace(/\//g, "\\")],
      ["case", (name: string) => name.replace("sheet1", "Sheet1").replace("sharedStrings", "SHAREDSTRINGS")],
    ] as const) {
      const file = path.join(dir, `names-${label}.xlsx`);
      await writeZipFile(file, [
        {
          name: rename("_rels/.rels"),
          chunks: () => [
            `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="r1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
          ],
        },
        { name: rename("xl/workbook.xml"), chunks: () => [workbook([["Лист", "rId1"]])] },
        { name: rename("xl/_rels/workbook.xml.rels"), chunks: () => [rels({ rId1: "worksheets/sheet1.xml" })] },
        { name: rename("xl/sharedStrings.xml"), chunks: () => [sst(["<t>Ольга</t>"])] },
        { name: rename("xl/worksheets/sheet1.xml"), chunks: () => [sheet(`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>7</v></c></row>`)] },
      ]);
      const rows: string[][] = [];
      for await (const row of readRows(file)) rows.push(row.cells);
      expect([label, rows]).toEqual([label, [["Ольга", "7"]]]);
    }
  });

  it("refuses a sheet whose cells have no column in their address, or that is not XML", async () => {
    const parts = (body: string): Parts => ({
      workbook: workbook([["Лист", "rId1"]]),
      rels: rels({ rId1: "worksheets/sheet1.xml" }),
      sheets: { "xl/worksheets/sheet1.xml": body },
    });
    await expect(rowsOf(parts(sheet(`<row><c r="12"><v>1</v></c></row>`)))).rejects.toMatchObject({ status: 400, code: "damaged_file" });
    await expect(rowsOf(parts(`<worksheet><sheetData><row><c r="A1"><v>1</v></row>`))).rejects.toMatchObject({ status: 400, code: "damaged_file" });
  });

  it("reads an exceljs workbook (the sheet before the workbook part) the same way every time", async () => {
    // exceljs' own streaming reader failed about one read in 250 on such a file, at random (a race).
    const file = path.join(dir, "exceljs.xlsx");
    fs.writeFileSync(
      file,
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["Мария", "+380671000001"],
      ]),
    );
    const expected = JSON.stringify([
      ["ФИО", "Телефон"],
      ["Мария", "+380671000001"],
    ]);
    const outcomes = new Map<string, number>();
    for (let i = 0; i < 1000; i++) {
      let result: string;
      try {
        const rows: string[][] = [];
        // In this thread: the reader is what is tested here, not the worker that runs it (1,000 workers take long).
        for await (const row of parseSheetRows(file)) rows.push(row.cells);
        result = JSON.stringify(rows);
      } catch (error) {
        result = String(error);
      }
      outcomes.set(result, (outcomes.get(result) ?? 0) + 1);
    }
    expect(Object.fromEntries(outcomes)).toEqual({ [expected]: 1000 });
    // A thousand reads: seconds alone, past a minute once with both suites running at a load of 12.
  }, 180_000);

  it('tells date formats from others in one pass, however many "[" a format holds (issue 14)', () => {
    const dates = ["yyyy-mm-dd", "dd.mm.yyyy hh:mm", "[h]:mm:ss", "[$-419]d mmm yyyy", '"с" d', "[Red]m/d", "[unclosed y", '"unclosed y'];
    const others = ["General", "0.00", '0 "дней"', "[Red]0.00", "\\d0", '# ##0,00 "₽"', "[$€-2] #,##0"];
    expect(dates.filter((code) => !isDateFormat(code))).toEqual([]);
    expect(others.filter((code) => isDateFormat(code))).toEqual([]);
    // The format of the 14 KB file that held the server for 18 s: generous bounds, it takes milliseconds.
    for (const code of ["[".repeat(200_000), `"${"[".repeat(200_000)}`, '"'.repeat(200_001), "[]".repeat(100_000)]) {
      const started = performance.now();
      expect(isDateFormat(code)).toBe(false);
      expect(performance.now() - started).toBeLessThan(1000);
    }
  });

  it("gives every row its number in the sheet, empty rows left out", async () => {
    const file = path.join(dir, "numbers.xlsx");
    await writeZipFile(file, [
      { name: "xl/workbook.xml", chunks: () => [workbook([["Лист1", "rId1"]])] },
      { name: "xl/_rels/workbook.xml.rels", chunks: () => [rels({ rId1: "worksheets/sheet1.xml" })] },
      {
        name: "xl/worksheets/sheet1.xml",
        chunks: () => [
          sheet(
            `<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row><row r="2"/><row r="5"><c r="A5"><v>5</v></c></row><row><c><v>6</v></c></row>`,
          ),
        ],
      },
    ]);
    const rows: Array<{ number: number; cells: string[] }> = [];
    for await (const row of readRows(file)) rows.push(row);
    expect(rows).toEqual([
      { number: 1, cells: ["a"] },
      { number: 5, cells: ["5"] },
      { number: 6, cells: ["6"] },
    ]);
  });

  it("refuses a zip whose entries are encrypted (a password set in an archiver) as a file saved with a password", async () => {
    const data = await buildXlsx([["ФИО"], ["Иван"]]);
    // The first local header's "encrypted" flag.
    data.writeUInt16LE(data.readUInt16LE(6) | 1, 6);
    const file = path.join(dir, "zip-password.xlsx");
    fs.writeFileSync(file, data);
    await expect(readRows(file).next()).rejects.toMatchObject({ status: 400, message: MESSAGES.encrypted });
  });

  it("reads what other generators write: UTF-16 parts, absolute targets, a chart sheet first, a row written twice, a tiny number", async () => {
    const file = path.join(dir, "generators.xlsx");
    const utf16 = (xml: string, bigEndian = false) => {
      const le = Buffer.from(`\ufeff${xml.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>')}`, "utf16le");
      return bigEndian ? Buffer.from(le).swap16() : le;
    };
    await writeZipFile(file, [
      {
        name: "xl/workbook.xml",
        chunks: () => [
          workbook([
            ["Диаграмма", "rId9"],
            ["Данные", "rId1"],
          ]),
        ],
      },
      {
        name: "xl/_rels/workbook.xml.rels",
        chunks: () => [
          `<?xml version="1.0"?><Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="/xl/worksheets/data.xml"/>` +
            `<Relationship Id="rId9" Type="${REL}/chartsheet" Target="/xl/chartsheets/sheet1.xml"/><Relationship Id="rIdS" Type="${REL}/sharedStrings" Target="/xl/sharedStrings.xml"/></Relationships>`,
        ],
      },
      {
        name: "xl/chartsheets/sheet1.xml",
        chunks: () => [`<?xml version="1.0"?><chartsheet xmlns="${MAIN}"><sheetViews><sheetView workbookViewId="0"/></sheetViews></chartsheet>`],
      },
      { name: "xl/sharedStrings.xml", chunks: () => [utf16(sst(["<t>Иван Петров</t>", "<t>+79161234567</t>"]), true)] },
      {
        name: "xl/worksheets/data.xml",
        chunks: () => [
          utf16(
            sheet(
              `<row r="1"><c r="A1" t="s"><v>0</v></c></row><row r="1"><c r="B1" t="s"><v>1</v></c></row><row r="2"><c r="A2"><v>1E-25</v></c></row>`,
            ),
          ),
        ],
      },
    ]);
    const rows: string[][] = [];
    let choice: unknown = null;
    for await (const row of readRows(file, { listSheets: true }, (c) => (choice = c))) rows.push(row.cells);
    expect(choice).toEqual({ index: 1, names: ["Диаграмма", "Данные"] });
    expect(rows).toEqual([["Иван Петров", "+79161234567"], ["0.0000000000000000000000001"]]);
  });
});
