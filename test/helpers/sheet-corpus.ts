import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ExcelJS from "exceljs";
import * as XLSX from "xlsx";
import { convert, readFods, saveWithPassword, type LoSheet } from "./libreoffice";
import { agileEncrypt } from "./office-crypto";
import { handBuiltXls } from "./sheet-xls-variants";
import { handBuiltXlsx, odsFormulasWithoutValues } from "./sheet-variants";
import { buildZip } from "./xlsx";

/**
 * The corpus of the differential test (issue 16): the same sheets written by exceljs, by the `xlsx` package and by
 * LibreOffice in every format it writes, and hand-built .xlsx packages that reproduce what other generators write
 * (sheet-variants.ts). Nothing is committed: the files are made at test time into a cache folder named by a hash of
 * the generators' source, and LibreOffice's reading of each (a .fods) is kept next to it, so the second run of the
 * suite (the other database backend) does not start soffice again. Hand-built .xls files (sheet-xls-variants.ts) join
 * them, and files saved with a password (by LibreOffice through its Python bridge, and an agile-encrypted .xlsx of our
 * own), which the import must refuse as encrypted.
 */

export type CorpusFormat = "xlsx" | "xls" | "ods" | "csv";

export interface CorpusFile {
  /** Unique within the corpus: source, sheet and format. */
  name: string;
  file: string;
  format: CorpusFormat;
  source: "libreoffice" | "exceljs" | "xlsx-package" | "hand-built" | "broken";
  /** For CSV: how it is written. */
  csv?: { encoding: "utf-8" | "windows-1251" | "utf-16le"; separator: string };
  /** LibreOffice's reading of every sheet; null when it could not read the file. */
  libreoffice: LoSheet[] | null;
  /** Set when LibreOffice reads this file wrong: the reading above is of a twin with the same cells, and why. */
  twin?: string;
  /** Saved with a password nobody gave us: LibreOffice cannot open it and the import must refuse it as encrypted. */
  encrypted?: boolean;
}

export type Cell =
  string | number | boolean | Date | null | { formula: string; result: number | string | boolean | { error: string } } | { rich: string[] };

export interface Book {
  name: string;
  sheets: Array<{ name: string; rows: Cell[][]; merges?: string[] }>;
}

/** A small seeded generator (mulberry32): the same corpus on every run. */
export function seeded(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
  };
}

const NAMES = [
  "Иван Петров",
  "Мария Сидорова",
  "Ольга Кузнецова-Иванова",
  "Пётр Ёлкин",
  "Анна Смирнова",
  "Сергей Ли",
  "Наталья",
  "Дмитрий Васильевич Орлов",
];
const CITIES = ["Москва", "Санкт-Петербург", "Нижний Новгород", "Ростов-на-Дону", "Улан-Удэ", "Екатеринбург"];
const NOTES = [
  "перезвонить после 18:00",
  'ООО "Ромашка" & партнёры',
  "<важно> не звонить",
  "ул. Ленина, д. 5, кв. 12",
  "l'hôtel «Звезда»",
  "тест\tтаб",
];

const utcDate = (y: number, m: number, d: number, h = 0, min = 0) => new Date(Date.UTC(y, m - 1, d, h, min));

/** The sheets every program writes: what a call centre's base holds, and the cells readers get wrong. */
export function baseBooks(): Book[] {
  const random = seeded(16);
  const contacts: Cell[][] = [["ФИО", "Телефон", "Город", "Дата рождения", "Сумма", "Комментарий"]];
  for (let i = 0; i < 25; i++) {
    const phone = random.pick(["+7916", "8903", "0501", "7495"]) + String(random.int(1_000_000, 9_999_999));
    contacts.push([
      random.pick(NAMES),
      i % 3 === 0 ? Number(phone.replace(/\D/g, "").replace(/^0/, "")) : phone,
      i % 5 === 4 ? null : random.pick(CITIES),
      utcDate(random.int(1940, 2005), random.int(1, 12), random.int(1, 28)),
      Math.round(random.next() * 1_000_000) / 100,
      i % 4 === 0 ? null : random.pick(NOTES),
    ]);
  }
  const numbers: Cell[][] = [
    ["Целые", "Дроби", "Большие", "Отрицательные"],
    [0, 0.1, 123456789012345, -1],
    [42, 1 / 3, 79161234567, -0.5],
    [1e6, 2.5e-7, 9007199254740991, -123456.789],
    [7, 0.1 + 0.2, 1e21, -1e-10],
    [100, 3.14159265358979, 1234567890123456800, -99999999],
  ];
  const dates: Cell[][] = [
    ["Дата", "Дата и время", "Год"],
    [utcDate(2024, 1, 1), utcDate(2024, 3, 8, 9, 30), 2024],
    [utcDate(1900, 3, 1), utcDate(1999, 12, 31, 23, 59), 1999],
    [utcDate(2000, 2, 29), utcDate(2010, 6, 15, 12, 0), 2010],
    [utcDate(1970, 1, 1), utcDate(2038, 1, 19, 3, 14), 2038],
    [utcDate(1905, 5, 5), utcDate(1950, 7, 7, 7, 7), 1950],
  ];
  const longText = "Длинный комментарий оператора: " + "клиент просил перезвонить, ".repeat(60);
  const texts: Cell[][] = [
    ["Текст"],
    [longText],
    ["Строка 1\nСтрока 2\nСтрока 3"],
    ["  пробелы по краям  "],
    ["Кавычки \"двойные\" и 'одинарные'; точка с запятой, запятая"],
    ["Спецсимволы < > & ≤ € № ©"],
    ["Emoji 📞 и иероглифы 電話"],
  ];
  const sparse: Cell[][] = [["A", null, null, "D"], [], [null, "B3"], [], [], [null, null, null, null, null, null, null, null, null, 10, null, "L6"]];
  const numbersAsText: Cell[][] = [
    ["Телефон", "Индекс", "Код"],
    ["0501234567", "007", "1e5"],
    ["+7 (916) 123-45-67", "00100", "12,5"],
    ["89031234567", "0", "-0"],
    ["380501234567", "123456789012345678901", "1.0"],
  ];
  const booleans: Cell[][] = [
    ["Согласие", "Звонить"],
    [true, false],
    [false, true],
  ];
  const formulas: Cell[][] = [
    ["Число", "Удвоенное", "Текст"],
    [1, { formula: "A2*2", result: 2 }, { formula: 'CONCATENATE("Тел ",A2)', result: "Тел 1" }],
    [21, { formula: "A3*2", result: 42 }, { formula: 'CONCATENATE("Тел ",A3)', result: "Тел 21" }],
    [0.5, { formula: "A4*2", result: 1 }, { formula: 'CONCATENATE("Тел ",A4)', result: "Тел 0.5" }],
  ];
  // Formulas whose results are text (a phone's leading zero or plus made by a formula), booleans, errors and empty
  // strings: the cached result is what a reader shows (LibreOffice recalculates an .xls's formulas on loading it).
  const textFormulas: Cell[][] = [
    ["Число", "Текст", "Ещё текст", "Разное"],
    [
      123,
      { formula: 'CONCATENATE("0",A2)', result: "0123" },
      { formula: 'A2&"x"', result: "123x" },
      { formula: 'TEXT(A2,"00000")', result: "00123" },
    ],
    [0.5, { formula: "A3>0", result: true }, { formula: "A3>1", result: false }, { formula: "1/0", result: { error: "#DIV/0!" } }],
    ["Иван", { formula: '""', result: "" }, { formula: 'IF(A3>0,"","нет")', result: "" }, { formula: '"+7"&"9161234567"', result: "+79161234567" }],
    [
      79161234567,
      { formula: 'A5&""', result: "79161234567" },
      { formula: "UPPER(A4)", result: "ИВАН" },
      { formula: "NA()", result: { error: "#N/A" } },
    ],
  ];
  const rich: Cell[][] = [
    ["Имя", "Заметка"],
    [{ rich: ["Анна ", "Сидорова"] }, { rich: ["важно: ", "перезвонить"] }],
    ["Ольга", { rich: ["a", "б", "c"] }],
  ];
  return [
    { name: "contacts", sheets: [{ name: "Клиенты", rows: contacts }] },
    { name: "numbers", sheets: [{ name: "Числа", rows: numbers }] },
    { name: "dates", sheets: [{ name: "Даты", rows: dates }] },
    { name: "texts", sheets: [{ name: "Тексты", rows: texts }] },
    { name: "sparse", sheets: [{ name: "Пропуски", rows: sparse }] },
    { name: "numbers-as-text", sheets: [{ name: "Лист1", rows: numbersAsText }] },
    { name: "booleans", sheets: [{ name: "Лист1", rows: booleans }] },
    { name: "formulas", sheets: [{ name: "Формулы", rows: formulas }] },
    { name: "text-formulas", sheets: [{ name: "Формулы", rows: textFormulas }] },
    { name: "rich", sheets: [{ name: "Лист1", rows: rich }] },
    {
      name: "merged",
      sheets: [
        {
          name: "Лист1",
          rows: [
            ["Объединено", null, "C1"],
            [null, null, "C2"],
            ["A3", "B3", "C3"],
          ],
          merges: ["A1:B2"],
        },
      ],
    },
    {
      name: "several-sheets",
      sheets: [
        {
          name: "Первый",
          rows: [
            ["Лист", "первый"],
            ["Иван", 1],
          ],
        },
        { name: "Второй", rows: [["Лист", "второй"]] },
        { name: "Третий", rows: [["Лист", "третий"]] },
      ],
    },
    {
      name: "empty-first-sheet",
      sheets: [
        { name: "Пустой", rows: [] },
        {
          name: "Данные",
          rows: [
            ["ФИО", "Телефон"],
            ["Иван", "+79161234567"],
          ],
        },
      ],
    },
  ];
}

const serial = (date: Date) => date.getTime() / 86_400_000 + 25569;

export async function exceljsXlsx(book: Book): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  for (const { name, rows, merges } of book.sheets) {
    const sheet = workbook.addWorksheet(name);
    rows.forEach((row, r) =>
      row.forEach((cell, c) => {
        if (cell === null) return;
        const target = sheet.getCell(r + 1, c + 1);
        if (cell instanceof Date) {
          target.value = cell;
          target.numFmt = cell.getUTCHours() || cell.getUTCMinutes() ? "dd.mm.yyyy hh:mm" : "dd.mm.yyyy";
        } else if (typeof cell === "object" && "rich" in cell) {
          target.value = { richText: cell.rich.map((text, i) => ({ text, font: i % 2 ? { bold: true } : { italic: true } })) };
        } else if (typeof cell === "object") {
          const { formula, result } = cell;
          target.value = { formula, result: typeof result === "object" ? { error: result.error as ExcelJS.CellErrorValue["error"] } : result };
        } else target.value = cell;
      }),
    );
    for (const range of merges ?? []) sheet.mergeCells(range);
  }
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** Excel's error codes, as the `xlsx` package takes them. */
const XLSX_ERRORS: Record<string, number> = {
  "#NULL!": 0x00,
  "#DIV/0!": 0x07,
  "#VALUE!": 0x0f,
  "#REF!": 0x17,
  "#NAME?": 0x1d,
  "#NUM!": 0x24,
  "#N/A": 0x2a,
};

function xlsxPackageBook(book: Book): XLSX.WorkBook {
  const workbook = XLSX.utils.book_new();
  for (const { name, rows, merges } of book.sheets) {
    const sheet: XLSX.WorkSheet = {};
    let width = 0;
    rows.forEach((row, r) =>
      row.forEach((cell, c) => {
        if (cell === null) return;
        width = Math.max(width, c + 1);
        const address = XLSX.utils.encode_cell({ r, c });
        if (cell instanceof Date)
          sheet[address] = { t: "n", v: serial(cell), z: cell.getUTCHours() || cell.getUTCMinutes() ? "dd.mm.yyyy hh:mm" : "dd.mm.yyyy" };
        else if (typeof cell === "object" && "rich" in cell) sheet[address] = { t: "s", v: cell.rich.join("") };
        else if (typeof cell === "object") {
          const { result, formula: f } = cell;
          sheet[address] =
            typeof result === "object"
              ? { t: "e", v: XLSX_ERRORS[result.error] ?? 0x0f, f }
              : { t: typeof result === "number" ? "n" : typeof result === "boolean" ? "b" : "s", v: result, f };
        } else sheet[address] = { t: typeof cell === "number" ? "n" : typeof cell === "boolean" ? "b" : "s", v: cell };
      }),
    );
    if (rows.length) sheet["!ref"] = XLSX.utils.encode_range({ s: { r: 0, c: 0 }, e: { r: rows.length - 1, c: Math.max(width - 1, 0) } });
    if (merges) sheet["!merges"] = merges.map((range) => XLSX.utils.decode_range(range));
    XLSX.utils.book_append_sheet(workbook, sheet, name);
  }
  return workbook;
}

/** LibreOffice's CSV filter options: separator, quote, character set (its numbering), first line. */
const CSV_WRITES: Array<{ key: string; encoding: NonNullable<CorpusFile["csv"]>["encoding"]; separator: string; charset: number }> = [
  { key: "csv-utf8-comma", encoding: "utf-8", separator: ",", charset: 76 },
  { key: "csv-cp1251-semicolon", encoding: "windows-1251", separator: ";", charset: 34 },
  { key: "csv-utf16-tab", encoding: "utf-16le", separator: "\t", charset: 65535 },
];
const csvFilter = (write: (typeof CSV_WRITES)[number]) => `${write.separator.charCodeAt(0)},34,${write.charset},1`;
/** Reading a CSV, every column is text (column/format pairs, 2 = text): the file's characters, as a CSV reader keeps them. */
const csvReadFilter = (write: (typeof CSV_WRITES)[number]) => `${csvFilter(write)},${Array.from({ length: 40 }, (_, i) => `${i + 1}/2`).join("/")}`;

/**
 * Sources LibreOffice saves as .xlsx, .xls and .ods, as flat ODF: a sheet protected against changes (which must still
 * import), and a workbook whose structure is protected (which LibreOffice, like Excel, saves as an .xls encrypted with
 * Excel's default password, that anyone opens).
 */
function protectedSources(): Array<{ name: string; fods: string }> {
  const ns =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"';
  const cell = (value: string | number) =>
    typeof value === "number"
      ? `<table:table-cell office:value-type="float" office:value="${value}"><text:p>${value}</text:p></table:table-cell>`
      : `<table:table-cell office:value-type="string"><text:p>${value}</text:p></table:table-cell>`;
  const rows = [
    ["ФИО", "Телефон"],
    ["Иван Петров", "+79161234567"],
    ["Мария", 79031234567],
  ]
    .map((row) => `<table:table-row>${row.map(cell).join("")}</table:table-row>`)
    .join("");
  const doc = (spreadsheet: string, table: string) =>
    `<?xml version="1.0" encoding="UTF-8"?><office:document ${ns} office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet"><office:body><office:spreadsheet${spreadsheet}><table:table table:name="Контакты"${table}>${rows}</table:table></office:spreadsheet></office:body></office:document>`;
  return [
    { name: "sheet-protected", fods: doc("", ' table:protected="true"') },
    { name: "structure-protected", fods: doc(' table:structure-protected="true"', "") },
  ];
}

/** Files no spreadsheet program can read: each must be refused with a Russian message, not read as data. */
function brokenFiles(exceljsSample: Buffer): Array<{ name: string; format: CorpusFormat; data: Buffer }> {
  const random = seeded(404);
  const noise = Buffer.alloc(4096);
  for (let i = 0; i < noise.length; i++) noise[i] = random.int(0, 255);
  noise[0] = 0x01; // not a text file, not a known signature
  return [
    { name: "truncated", format: "xlsx", data: exceljsSample.subarray(0, Math.floor(exceljsSample.length / 2)) },
    { name: "zip-without-workbook", format: "xlsx", data: buildZip([{ name: "readme.txt", data: "не таблица" }]) },
    { name: "noise", format: "xlsx", data: noise },
  ];
}

const here = path.dirname(fileURLToPath(import.meta.url));
const GENERATORS = ["sheet-corpus.ts", "sheet-variants.ts", "sheet-xls-variants.ts", "xls-biff.ts", "office-crypto.ts", "libreoffice.ts", "xlsx.ts"];

/** The corpus, built once per version of its generators (a few tens of seconds, mostly soffice) and then reused. */
export async function buildCorpus(): Promise<CorpusFile[]> {
  const hash = createHash("sha256");
  for (const name of GENERATORS) hash.update(fs.readFileSync(path.join(here, name)));
  const folder = path.join(os.tmpdir(), `sheet-corpus-${hash.digest("hex").slice(0, 16)}`);
  const manifest = path.join(folder, "manifest.json");
  if (fs.existsSync(manifest)) return JSON.parse(fs.readFileSync(manifest, "utf8"), reviveCells) as CorpusFile[];

  const work = fs.mkdtempSync(`${folder}-building-`);
  const files: CorpusFile[] = [];
  const add = (name: string, format: CorpusFormat, source: CorpusFile["source"], data: Buffer, csv?: CorpusFile["csv"], encrypted?: boolean) => {
    const file = path.join(work, `${name}.${format}`);
    fs.writeFileSync(file, data);
    files.push({ name, file, format, source, csv, libreoffice: null, ...(encrypted ? { encrypted } : {}) });
  };

  // exceljs, and the sources LibreOffice saves in its formats.
  const sources = path.join(work, "sources");
  fs.mkdirSync(sources);
  const loSources: string[] = [];
  for (const book of baseBooks()) {
    const data = await exceljsXlsx(book);
    add(`exceljs-${book.name}`, "xlsx", "exceljs", data);
    const source = path.join(sources, `${book.name}.xlsx`);
    fs.writeFileSync(source, data);
    loSources.push(source);
    const workbook = xlsxPackageBook(book);
    add(`sheetjs-xlsx-${book.name}`, "xlsx", "xlsx-package", XLSX.write(workbook, { bookType: "xlsx", type: "buffer" }) as Buffer);
    add(`sheetjs-biff8-${book.name}`, "xls", "xlsx-package", XLSX.write(workbook, { bookType: "biff8", type: "buffer" }) as Buffer);
    add(`sheetjs-biff5-${book.name}`, "xls", "xlsx-package", XLSX.write(workbook, { bookType: "biff5", type: "buffer" }) as Buffer);
    add(`sheetjs-ods-${book.name}`, "ods", "xlsx-package", XLSX.write(workbook, { bookType: "ods", type: "buffer" }) as Buffer);
  }

  // Hand-built packages; the ones whose quirks survive a save are also saved by LibreOffice as .xls.
  const variants = handBuiltXlsx();
  const xlsSources: string[] = [];
  for (const variant of variants) {
    add(`hand-${variant.name}`, "xlsx", "hand-built", variant.data);
    if (variant.alsoAsXls) {
      const source = path.join(sources, `variant-${variant.name}.xlsx`);
      fs.writeFileSync(source, variant.data);
      xlsSources.push(source);
    }
  }

  // Hand-built .xls files.
  add("hand-ods-formulas-without-values", "ods", "hand-built", odsFormulasWithoutValues());
  const xlsVariants = handBuiltXls();
  for (const variant of xlsVariants) add(`hand-${variant.name}`, "xls", "hand-built", variant.data, undefined, variant.encrypted);
  const contactsXlsx = await exceljsXlsx(baseBooks()[0]);
  add("hand-agile-encrypted", "xlsx", "hand-built", agileEncrypt(contactsXlsx, "секрет"), undefined, true);

  // Protected sources, saved by LibreOffice as .xlsx, .xls and .ods with the others.
  const protectedInputs = protectedSources().map(({ name, fods }) => {
    const source = path.join(sources, `${name}.fods`);
    fs.writeFileSync(source, fods);
    return source;
  });

  // LibreOffice saves the sources in every format it writes, one soffice process per format.
  const saved = path.join(work, "saved");
  const saves: Array<{ to: string; ext: string; format: CorpusFormat; key: string; inputs: string[]; csv?: CorpusFile["csv"] }> = [
    { to: "xlsx:Calc MS Excel 2007 XML", ext: "xlsx", format: "xlsx", key: "xlsx", inputs: [...loSources, ...protectedInputs] },
    { to: "xls:MS Excel 97", ext: "xls", format: "xls", key: "xls", inputs: [...loSources, ...xlsSources, ...protectedInputs] },
    { to: "ods:calc8", ext: "ods", format: "ods", key: "ods", inputs: [...loSources, ...protectedInputs] },
    ...CSV_WRITES.map((write) => ({
      to: `csv:Text - txt - csv (StarCalc):${csvFilter(write)}`,
      ext: "csv",
      format: "csv" as const,
      key: write.key,
      inputs: loSources,
      csv: { encoding: write.encoding, separator: write.separator },
    })),
  ];
  for (const save of saves) {
    const out = path.join(saved, save.key);
    await convert(save.inputs, save.to, out, { recalculate: true });
    for (const input of save.inputs) {
      const base = path.basename(input, path.extname(input));
      const output = path.join(out, `${base}.${save.ext}`);
      if (fs.existsSync(output)) add(`libreoffice-${save.key}-${base}`, save.format, "libreoffice", fs.readFileSync(output), save.csv);
    }
  }

  // LibreOffice saves the contacts with a password in each of its formats (through its Python bridge).
  const passwordSaves = [
    { ext: "xlsx", format: "xlsx" as const, filter: "Calc MS Excel 2007 XML" },
    { ext: "xls", format: "xls" as const, filter: "MS Excel 97" },
    { ext: "ods", format: "ods" as const, filter: "calc8" },
  ].map((save) => ({ ...save, input: loSources[0], output: path.join(saved, "password", `contacts.${save.ext}`), password: "секрет" }));
  fs.mkdirSync(path.join(saved, "password"), { recursive: true });
  await saveWithPassword(passwordSaves);
  for (const save of passwordSaves)
    add(`libreoffice-password-${save.ext}-contacts`, save.format, "libreoffice", fs.readFileSync(save.output), undefined, true);

  for (const broken of brokenFiles(fs.readFileSync(loSources[0]))) add(`broken-${broken.name}`, broken.format, "broken", broken.data);

  // LibreOffice reads every file (CSV with the filter options it was written with).
  const readings = path.join(work, "readings");
  const groups = new Map<string, CorpusFile[]>();
  for (const file of files) {
    const write = file.csv && CSV_WRITES.find((w) => w.encoding === file.csv!.encoding && w.separator === file.csv!.separator);
    const key = write ? `CSV:${csvReadFilter(write)}` : "";
    groups.set(key, [...(groups.get(key) ?? []), file]);
  }
  for (const [infilter, group] of groups) {
    await convert(
      group.map((file) => file.file),
      "fods",
      readings,
      infilter ? { infilter } : {},
    );
  }
  for (const file of files) {
    const fods = path.join(readings, `${path.basename(file.file, `.${file.format}`)}.fods`);
    file.libreoffice = fs.existsSync(fods) ? readFods(fods) : null;
  }
  for (const [variant, format] of [...variants.map((v) => [v, "xlsx"] as const), ...xlsVariants.map((v) => [v, "xls"] as const)]) {
    if (!variant.sameAs) continue;
    const named = (name: string) => files.find((f) => f.name === `hand-${name}` && f.format === format)!;
    named(variant.name).libreoffice = named(variant.sameAs.variant).libreoffice;
    named(variant.name).twin = `read as hand-${variant.sameAs.variant}: ${variant.sameAs.why}`;
  }

  fs.rmSync(sources, { recursive: true, force: true });
  fs.rmSync(saved, { recursive: true, force: true });
  fs.rmSync(readings, { recursive: true, force: true });
  const final = files.map((file) => ({ ...file, file: path.join(folder, path.basename(file.file)) }));
  fs.writeFileSync(
    path.join(work, "manifest.json"),
    JSON.stringify(final, (key, value) => (value instanceof Map ? { map: [...value] } : value)),
  );
  try {
    fs.renameSync(work, folder);
  } catch {
    // Another run finished the same corpus first.
    fs.rmSync(work, { recursive: true, force: true });
  }
  return JSON.parse(fs.readFileSync(manifest, "utf8"), reviveCells) as CorpusFile[];
}

function reviveCells(_key: string, value: unknown) {
  return value && typeof value === "object" && "map" in value && Array.isArray((value as { map: unknown }).map)
    ? new Map((value as { map: Array<[string, unknown]> }).map)
    : value;
}
