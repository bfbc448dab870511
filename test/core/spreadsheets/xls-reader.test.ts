import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import * as XLSX from "xlsx";
import { afterAll, describe, expect, it } from "vitest";
import { createRequire } from "node:module";
import { MESSAGES, readRows, SHEET_LIMITS } from "../../../server/core/spreadsheets";
import { agileEncrypt } from "../../helpers/office-crypto";
import { Cells, FN, writeBiff, XF } from "../../helpers/xls-biff";
import { handBuiltXls } from "../../helpers/sheet-xls-variants";
import { buildXlsx } from "../../helpers/xlsx";

/**
 * The legacy .xls path (parse.ts and xls-file.ts around the `xlsx` package) on what the differential test
 * against LibreOffice found (issue 16), and its reading of a sheet in windows of rows (decision 048).
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "xls-reader-"));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

async function rowsOf(name: string, data: Buffer): Promise<string[][]> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, data);
  const rows: string[][] = [];
  for await (const row of readRows(file)) rows.push(row.cells);
  return rows;
}

function book(sheets: Array<[string, XLSX.WorkSheet]>, date1904 = false): XLSX.WorkBook {
  const workbook = XLSX.utils.book_new();
  for (const [name, sheet] of sheets) XLSX.utils.book_append_sheet(workbook, sheet, name);
  workbook.Workbook = { ...workbook.Workbook, WBProps: { date1904 } };
  return workbook;
}

describe("the .xls reader", () => {
  it("reads the dates of a workbook that counts days from 1904 on the right day, not four years early", async () => {
    const sheet: XLSX.WorkSheet = {
      A1: { t: "s", v: "Дата рождения" },
      A2: { t: "n", v: 43830, z: "dd.mm.yyyy" },
      A3: { t: "n", v: 43830.5, z: "dd.mm.yyyy hh:mm" },
      A4: { t: "n", v: 43830, z: "0" },
      "!ref": "A1:A4",
    };
    const data = (date1904: boolean) => XLSX.write(book([["Лист1", sheet]], date1904), { bookType: "biff8", type: "buffer" }) as Buffer;
    // 43830 days after 01.01.1904 (Excel for Mac's epoch) is 01.01.2024; after 1900's, 31.12.2019.
    expect(await rowsOf("1904.xls", data(true))).toEqual([["Дата рождения"], ["01.01.2024"], ["01.01.2024 12:00"], ["43830"]]);
    expect(await rowsOf("1900.xls", data(false))).toEqual([["Дата рождения"], ["31.12.2019"], ["31.12.2019 12:00"], ["43830"]]);
  });

  it("reads the first sheet when a BIFF5 writer gave every sheet the same name", async () => {
    // The `xlsx` package writes Cyrillic sheet names into BIFF5 as "______": all three sheets are then called alike.
    const sheets: Array<[string, XLSX.WorkSheet]> = [
      ["Первый", XLSX.utils.aoa_to_sheet([["первый лист"], [1]])],
      ["Второй", XLSX.utils.aoa_to_sheet([["второй лист"]])],
      ["Третий", XLSX.utils.aoa_to_sheet([["третий лист"]])],
    ];
    const rows = await rowsOf("biff5.xls", XLSX.write(book(sheets), { bookType: "biff5", type: "buffer" }) as Buffer);
    expect(rows).toHaveLength(2);
    expect(rows[1]).toEqual(["1"]);
  });

  it("reads every sheet of such a file, named as LibreOffice names them: an empty first sheet gives way to the second", async () => {
    const sheets: Array<[string, XLSX.WorkSheet]> = [
      ["Пустой", XLSX.utils.aoa_to_sheet([])],
      ["Данные", XLSX.utils.aoa_to_sheet([["Phone"], ["+79161234567"]])],
      ["Третий", XLSX.utils.aoa_to_sheet([["third"]])],
    ];
    const file = path.join(dir, "biff5-empty-first.xls");
    fs.writeFileSync(file, XLSX.write(book(sheets), { bookType: "biff5", type: "buffer" }) as Buffer);
    const rows: string[][] = [];
    let choice: unknown = null;
    for await (const row of readRows(file, { listSheets: true }, (c) => (choice = c))) rows.push(row.cells);
    expect(choice).toEqual({ index: 1, names: ["______", "______" + "_2", "______" + "_3"] });
    expect(rows).toEqual([["Phone"], ["+79161234567"]]);
    const third: string[][] = [];
    for await (const row of readRows(file, { sheet: 3 })) third.push(row.cells);
    expect(third).toEqual([["third"]]);
  });

  it("reads a line break written as CR (or CR LF) as one line feed, as LibreOffice does", async () => {
    const sheet = XLSX.utils.aoa_to_sheet([["ул. Ленина,\r д. 5", "Строка\r\nвторая"]]);
    expect(await rowsOf("breaks.xls", XLSX.write(book([["Лист1", sheet]]), { bookType: "biff8", type: "buffer" }) as Buffer)).toEqual([
      ["ул. Ленина,\n д. 5", "Строка\nвторая"],
    ]);
  });

  it("reads a formula's cached text from the STRING record after it, also past a CONTINUE record; booleans read 1 and 0", async () => {
    const x = new Cells(8);
    const p = x.w.ptg;
    const long = "абв".repeat(3000);
    const data = writeBiff({
      biff: 8,
      sheets: [
        {
          name: "Лист1",
          records: [
            x.number(0, 0, 501234567),
            ...x.formula(0, 1, [p.str("0"), p.ref(0, 0), p.funcVar(2, FN.CONCATENATE)], "0501234567"),
            ...x.formula(0, 2, [p.ref(0, 0), p.int(0), p.gt], true),
            ...x.formula(0, 3, [p.str("")], { emptyString: true }),
            ...x.formula(0, 4, [p.func(FN.NA)], { error: 0x2a }),
            x.bool(0, 5, false),
            ...x.formula(1, 0, [p.str("абв"), p.int(3000), p.func(FN.REPT)], long),
            ...x.formula(1, 1, [p.int(2024), p.int(1), p.int(15), p.func(FN.DATE)], 45306, { xf: XF.date }),
          ],
        },
      ],
    });
    expect(await rowsOf("formulas.xls", data)).toEqual([
      ["501234567", "0501234567", "1", "", "", "0"],
      [long, "15.01.2024"],
    ]);
  });

  it("reads an Excel 5.0 file without a CODEPAGE record (as 1C writes it) in the code page of its fonts' character set", async () => {
    const x = new Cells(5);
    const records = [
      x.label(0, 0, "Пётр Ёлкин"),
      x.rstring(0, 1, "Анна Сидорова", [
        [0, 1],
        [5, 2],
      ]),
      ...x.formula(0, 2, [x.w.ptg.str("Иван")], "Иван"),
    ];
    const rows = (fontCharset: number) =>
      rowsOf(`biff5-${fontCharset}.xls`, writeBiff({ biff: 5, codepage: null, fontCharset, sheets: [{ name: "Лист1", records }] }));
    expect(await rowsOf("biff5-1251.xls", writeBiff({ biff: 5, codepage: 1251, sheets: [{ name: "Лист1", records }] }))).toEqual([
      ["Пётр Ёлкин", "Анна Сидорова", "Иван"],
    ]);
    expect(await rows(204)).toEqual([["Пётр Ёлкин", "Анна Сидорова", "Иван"]]);
    // The ANSI character set says nothing: a Russian Windows reads the bytes as Windows-1251.
    expect(await rows(0)).toEqual([["Пётр Ёлкин", "Анна Сидорова", "Иван"]]);
  });

  it("opens a workbook encrypted with Excel's built-in password (a protected structure), as Excel and LibreOffice do", async () => {
    const x = new Cells(8);
    const sheets = [
      { name: "Контакты", records: [x.label(0, 0, "ФИО"), x.label(0, 1, "Телефон"), x.label(1, 0, "Иван Петров"), x.number(1, 1, 79161234567)] },
    ];
    const expected = [
      ["ФИО", "Телефон"],
      ["Иван Петров", "79161234567"],
    ];
    expect(await rowsOf("rc4.xls", writeBiff({ biff: 8, sheets, sst: ["x"], encryption: { kind: "rc4", password: "VelvetSweatshop" } }))).toEqual(
      expected,
    );
    expect(await rowsOf("cryptoapi.xls", writeBiff({ biff: 8, sheets, encryption: { kind: "rc4-cryptoapi", password: "VelvetSweatshop" } }))).toEqual(
      expected,
    );
  });

  it("opens Excel 95's XOR obfuscation with the built-in password (BIFF5 and BIFF8), as LibreOffice does; another password is refused", async () => {
    for (const biff of [5, 8] as const) {
      const x = new Cells(biff);
      const p = x.w.ptg;
      const records = [x.label(0, 0, "ФИО"), x.label(0, 1, "Телефон"), x.label(1, 0, "Иван Петров"), x.number(1, 1, 79161234567)];
      records.push(...x.formula(2, 0, [p.str("Пётр "), p.str("Ёлкин"), p.concat], "Пётр Ёлкин"), x.label(2, 1, "+79031234567"));
      const sheets = [
        { name: "Контакты", records },
        { name: "Второй", records: [x.label(0, 0, "второй")] },
      ];
      const codepage = biff === 5 ? 1251 : undefined;
      const plain = await rowsOf(`plain${biff}.xls`, writeBiff({ biff, codepage, sheets }));
      expect(plain).toEqual([
        ["ФИО", "Телефон"],
        ["Иван Петров", "79161234567"],
        ["Пётр Ёлкин", "+79031234567"],
      ]);
      const obfuscated = writeBiff({ biff, codepage, sheets, encryption: { kind: "xor", password: "VelvetSweatshop" } });
      expect(await rowsOf(`xor${biff}.xls`, obfuscated)).toEqual(plain);
      const file = path.join(dir, `xor-password${biff}.xls`);
      fs.writeFileSync(file, writeBiff({ biff, codepage, sheets, encryption: { kind: "xor", password: "sekret" } }));
      await expect(readRows(file).next()).rejects.toMatchObject({ status: 400, message: MESSAGES.encrypted });
    }
  });

  it("reads a workbook encrypted with a 40-bit RC4 CryptoAPI key and the built-in password exactly as its unencrypted original", async () => {
    // Excel 2002 wrote 40-bit keys by default; LibreOffice 7.4 reads only 128-bit ones, so no corpus file can check
    // this: the same workbook (shared strings, text formulas, numbers, dates, several 1,024-byte key blocks) is
    // written plain and encrypted by xls-biff.ts, and the import must read both the same.
    const x = new Cells(8);
    const p = x.w.ptg;
    const sst = ["ФИО", "Телефон", "Дата"];
    const records = [x.labelSst(0, 0, 0), x.labelSst(0, 1, 1), x.labelSst(0, 2, 2)];
    for (let r = 1; r <= 150; r++) {
      sst.push(`Клиент ${r} ${"ё".repeat(r % 17)}`);
      records.push(x.labelSst(r, 0, sst.length - 1), x.number(r, 1, 79160000000 + r), x.number(r, 2, 45292 + r, XF.date));
      records.push(...x.formula(r, 3, [p.str("+"), p.ref(r, 1), p.concat], `+${79160000000 + r}`));
    }
    const sheets = [
      { name: "Контакты", records },
      { name: "Второй", records: [x.label(0, 0, "второй лист")] },
    ];
    const plain = await rowsOf("plain.xls", writeBiff({ biff: 8, sheets, sst }));
    expect(plain).toHaveLength(151);
    expect(plain[150]).toEqual(["Клиент 150 ёёёёёёёёёёёёёё", "79160000150", "30.05.2024", "+79160000150"]);
    const encrypted = writeBiff({ biff: 8, sheets, sst, encryption: { kind: "rc4-cryptoapi", password: "VelvetSweatshop", keyBits: 40 } });
    // Encrypted for real: the text is nowhere in the file.
    expect(encrypted.includes(Buffer.from("Клиент 150", "utf16le"))).toBe(false);
    expect(await rowsOf("cryptoapi-40.xls", encrypted)).toEqual(plain);
    // Another password with the same 40-bit key size is refused as encrypted.
    const file = path.join(dir, "cryptoapi-40-password.xls");
    fs.writeFileSync(file, writeBiff({ biff: 8, sheets, sst, encryption: { kind: "rc4-cryptoapi", password: "секрет", keyBits: 40 } }));
    await expect(readRows(file).next()).rejects.toMatchObject({ status: 400, message: MESSAGES.encrypted });
  });

  it("refuses a file saved with a password with one clear message, whatever the format and the encryption", async () => {
    const x = new Cells(8);
    const sheets = [{ name: "Лист1", records: [x.label(0, 0, "ФИО"), x.label(1, 0, "Иван")] }];
    const files: Array<[string, Buffer]> = [
      ["rc4.xls", writeBiff({ biff: 8, sheets, encryption: { kind: "rc4", password: "секрет" } })],
      ["cryptoapi.xls", writeBiff({ biff: 8, sheets, encryption: { kind: "rc4-cryptoapi", password: "секрет" } })],
      ["agile.xlsx", agileEncrypt(await buildXlsx([["ФИО"], ["Иван"]]), "секрет")],
    ];
    for (const [name, data] of files) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, data);
      await expect(readRows(file).next(), name).rejects.toMatchObject({ status: 400, message: MESSAGES.encrypted });
    }
    expect(MESSAGES.encrypted).toBe("Файл защищён паролем: снимите пароль в программе, где он создан, и загрузите снова");
  });

  it("reads every sheet a few rows at a time (each window a read of its own) exactly as in one read", async () => {
    const files: Array<[string, Buffer]> = handBuiltXls()
      .filter((variant) => !variant.encrypted)
      .map((variant) => [`${variant.name}.xls`, variant.data]);
    const rows = (from: number, count: number, text: string) =>
      Array.from({ length: count }, (_, i) => [`${text} ${from + i}`, 79160000000 + from + i, i % 3 ? (from + i) / 4 : null, i % 5 === 0]);
    const sheets: Array<[string, XLSX.WorkSheet]> = [
      ["Первый", XLSX.utils.aoa_to_sheet([["ФИО", "Телефон"], ...rows(1, 40, "первый")])],
      ["Второй", XLSX.utils.aoa_to_sheet([[], [], ["второй"], ...rows(100, 25, "второй")])],
      ["Третий", XLSX.utils.aoa_to_sheet(rows(200, 30, "третий"))],
    ];
    // BIFF5 gives the three sheets one name ("______"): each window's read must still find its own sheet.
    files.push(["windows-biff5.xls", XLSX.write(book(sheets), { bookType: "biff5", type: "buffer" }) as Buffer]);
    files.push(["windows-biff8.xls", XLSX.write(book(sheets), { bookType: "biff8", type: "buffer" }) as Buffer]);
    const everySheet = async (name: string) => {
      const file = path.join(dir, name);
      let names: string[] = [];
      const read: unknown[] = [];
      for (let sheet = 1; sheet === 1 || sheet <= names.length; sheet++) {
        try {
          for await (const row of readRows(file, { sheet, listSheets: true }, (choice) => (names = choice.names ?? []))) read.push(row);
        } catch (error) {
          read.push((error as Error).message);
        }
      }
      return [names, ...read];
    };
    const saved = SHEET_LIMITS.xlsWindowCells;
    try {
      for (const [name, data] of files) {
        fs.writeFileSync(path.join(dir, name), data);
        SHEET_LIMITS.xlsWindowCells = saved;
        const whole = await everySheet(name);
        expect(whole.length, name).toBeGreaterThan(2);
        for (const cells of [1, 7]) {
          SHEET_LIMITS.xlsWindowCells = cells;
          expect(await everySheet(name), `${name}, ${cells} cells a window`).toEqual(whole);
        }
      }
    } finally {
      SHEET_LIMITS.xlsWindowCells = saved;
    }
  });

  it("refuses an OLE file that holds no workbook (a Word document) as not a spreadsheet, not as a damaged .xls", async () => {
    const { CFB } = createRequire(import.meta.url)("xlsx") as typeof XLSX;
    const cfb = CFB.utils.cfb_new();
    CFB.utils.cfb_add(cfb, "/WordDocument", Buffer.alloc(2048, 0x20));
    const file = path.join(dir, "document.xls");
    fs.writeFileSync(file, Buffer.from(CFB.write(cfb, { type: "buffer", fileType: "cfb" }) as Uint8Array));
    await expect(readRows(file).next()).rejects.toMatchObject({ status: 400, message: MESSAGES.notSpreadsheet });
  });
});
