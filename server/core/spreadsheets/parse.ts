import fs from "node:fs";
import { createRequire } from "node:module";
import { badRequest } from "../errors";
import { readCsv } from "./csv-reader";
import { CSV_NAME } from "../../../common/upload-kind";
import { MESSAGES, type ReadOptions, SHEET_LIMITS, type SheetChoice, type SheetRow, workbookSignature } from "./limits";
import { checkOdsMime, isEncryptedOds, odsSheets, OdsLimitError, readOdsSheet } from "./ods-reader";
import { type CfbApi, isBiffWorkbook, openOle, type OleContent, xlsRowCells, xlsSheetOffsets, xlsView } from "./xls-file";
import { isDateFormat, readFirstSheet, serialToDate, XlsxNotWorkbookError, xlsxSheetNames } from "./xlsx-reader";
import { checkZip, verifyEntries, type ZipEntry, ZipLimitError } from "./zip";

/**
 * Parsing an uploaded spreadsheet: this runs inside the sheet worker (worker.ts), never on the server's
 * event loop; `readRows` in reader.ts is the way in. Uploads are untrusted: the format is decided by the
 * file's first bytes, not its name; `.xlsx` and `.ods` are checked from their zip directory (no zip bombs), then
 * the sheet streams through our readers (xlsx-reader.ts, ods-reader.ts); legacy `.xls` is read by the `xlsx` package
 * (SheetJS, as published), a window of rows at a time.
 * Every cell comes back as text: Cyrillic, leading zeros and long numbers stay as written.
 */

/**
 * The file's format, from its size and first bytes, with an .xlsx's checked zip directory; a 400 with a Russian
 * message for anything else.
 */
async function detectSheet(path: string, name = ""): Promise<{ kind: "xlsx" | "ods"; entries: ZipEntry[] } | { kind: "xls" } | { kind: "csv" }> {
  const size = fs.statSync(path).size;
  if (size === 0) throw badRequest(MESSAGES.empty, "empty_file");
  if (size > SHEET_LIMITS.maxFileBytes) throw badRequest(MESSAGES.tooLarge, "file_too_large");
  const signature = workbookSignature(path);
  if (signature === "zip") return checkZip(path);
  // Its size is checked once it is known not to be an encrypted package (xlsBook).
  if (signature === "ole") return { kind: "xls" };
  // Text has no signature: a file named .csv (.tsv, .txt) that is no workbook is read as CSV (csv-reader.ts).
  if (CSV_NAME.test(name)) return { kind: "csv" };
  throw badRequest(MESSAGES.notSpreadsheet, "not_spreadsheet");
}

/** A failure while inflating or parsing, as the Russian 400 the person sees. */
function readError(error: unknown) {
  if ((error as { status?: number }).status) return error;
  if (error instanceof XlsxNotWorkbookError) return badRequest(MESSAGES.notSpreadsheet, "not_spreadsheet");
  if (error instanceof ZipLimitError) {
    if (error.kind === "bomb") return badRequest(MESSAGES.bomb, "zip_bomb");
    if (error.kind === "run") return badRequest(MESSAGES.cellTooLong, "cell_too_long");
  }
  if (error instanceof OdsLimitError) {
    if (error.kind === "repeat") return badRequest(MESSAGES.bomb, "zip_bomb");
    if (error.kind === "cell") return badRequest(MESSAGES.cellTooLong, "cell_too_long");
    if (error.kind === "rows") return badRequest(MESSAGES.tooManyRows, "too_many_rows");
    if (error.kind === "styles") return badRequest(MESSAGES.outOfMemory, "too_complex");
  }
  return badRequest(MESSAGES.damaged, "damaged_file");
}

/** A cell as the text a person sees: numbers without float noise or exponents, dates as dd.mm.yyyy. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  // NUL cannot be stored in a Postgres text column.
  if (typeof value === "string") return plainText(value);
  if (typeof value === "number") return numberText(value);
  if (typeof value === "boolean") return value ? "ИСТИНА" : "ЛОЖЬ";
  if (value instanceof Date) return dateText(value);
  if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText))
      return (v.richText as Array<{ text?: string }>)
        .map((r) => r.text ?? "")
        .join("")
        .trim();
    if ("result" in v) return cellText(v.result);
    if ("text" in v) return cellText(v.text);
    if ("error" in v) return "";
    if ("formula" in v || "sharedFormula" in v) return "";
  }
  return String(value).trim();
}

/**
 * Text as it is kept: without NUL (a Postgres text column cannot hold it), every line break as LF (Excel writes CR LF
 * and lone CR as _x000D_; LibreOffice reads them as LF), no spaces around.
 */
function plainText(value: string): string {
  let text = value.includes("\u0000") ? value.replace(/\u0000/g, "") : value;
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  return text.trim();
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) return "";
  const text = String(n);
  if (!/e/i.test(text)) return text;
  // 1e+21 and beyond: the digits the float holds, never an exponent.
  if (Number.isInteger(n)) return BigInt(n).toString();
  // Below 1e-6: the shortest digits that give the float back, after as many zeros as the exponent says (1e-25 is
  // 0.0…01, not 0).
  const [mantissa, exponent] = text.split("e");
  const digits = mantissa.replace("-", "").replace(".", "");
  return `${n < 0 ? "-" : ""}0.${"0".repeat(-Number(exponent) - 1)}${digits}`;
}

function dateText(date: Date): string {
  if (Number.isNaN(date.getTime())) return "";
  const dd = String(date.getUTCDate()).padStart(2, "0");
  const mm = String(date.getUTCMonth() + 1).padStart(2, "0");
  const base = `${dd}.${mm}.${date.getUTCFullYear()}`;
  const h = date.getUTCHours();
  const m = date.getUTCMinutes();
  return h || m ? `${base} ${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}` : base;
}

/**
 * The rows of a sheet with their numbers in the file, each an array of cell texts (empty rows left out): the sheet
 * `options.sheet` (1 = the first), or by default the first sheet, or when it holds nothing the first that holds
 * something (issue 16). `onSheet` hears which one before the first row (or at the end, when none holds a row).
 * Throws AppError (400) for a file that is not a spreadsheet, is too big, too long or damaged, or has no such sheet.
 */
export async function* parseSheetRows(
  path: string,
  options: ReadOptions = {},
  onSheet: (choice: SheetChoice) => void = () => {},
): AsyncGenerator<SheetRow> {
  const sheet = await detectSheet(path, options.name);
  const limit = options.limit ?? Infinity;
  const checkFirst = options.checkFirst ?? Number.isFinite(limit);
  const book =
    sheet.kind === "xlsx"
      ? await xlsxBook(path, sheet.entries, checkFirst)
      : sheet.kind === "ods"
        ? await odsBook(path, sheet.entries, checkFirst)
        : sheet.kind === "csv"
          ? csvBook(path)
          : xlsBook(path, Math.min(limit, SHEET_LIMITS.maxRows));
  const names = options.listSheets || options.sheet !== undefined ? await book.names() : undefined;
  if (options.sheet !== undefined && !(Number.isInteger(options.sheet) && options.sheet >= 1 && options.sheet <= names!.length)) {
    throw badRequest(`В файле нет листа ${options.sheet}: листов в нём ${names!.length}`, "no_such_sheet");
  }
  const source = book.rows(options.sheet === undefined ? 0 : options.sheet - 1, options.sheet === undefined, (index) =>
    onSheet(options.listSheets ? { index, names } : { index }),
  );
  let count = 0;
  let emptyRows = 0;
  let emptyCells = 0;
  for await (const { number, cells, width, computed } of source) {
    // A row whose only cells are formulas without a value is not empty: LibreOffice shows their results.
    if (!computed?.length && !cells.some((cell) => cell !== "")) {
      emptyRows++;
      emptyCells += width;
      if (emptyRows > SHEET_LIMITS.maxEmptyRows || emptyCells > SHEET_LIMITS.maxEmptyCells) {
        throw badRequest(MESSAGES.tooManyEmpty, "too_many_empty");
      }
      continue;
    }
    if (count >= limit) return;
    count++;
    if (count > SHEET_LIMITS.maxRows) throw badRequest(MESSAGES.tooManyRows, "too_many_rows");
    for (const cell of cells) if (cell.length > SHEET_LIMITS.maxCellChars) throw badRequest(MESSAGES.cellTooLong, "cell_too_long");
    yield computed?.length ? { number, cells, computed } : { number, cells };
  }
}

/** A row as read: its number, its cells as text, and how many cells the file wrote for it (empty ones included). */
interface RawRow extends SheetRow {
  width: number;
}

/** A workbook of any format: its sheets' names, and the raw rows of one sheet (or of the first with data). */
interface Book {
  names(): Promise<string[]>;
  /**
   * The rows of sheet `index`; with `orFirstWithData`, when it holds no value, those of the next sheet that does.
   * `onIndex` is told the sheet before its first row with a value, or at the end when there is none.
   */
  rows(index: number, orFirstWithData: boolean, onIndex: (index: number) => void): AsyncGenerator<RawRow>;
}

/** For the formats whose sheets are read one by one: sheet `index`, then while nothing had a value the next ones. */
async function* firstWithData(
  index: number,
  orFirstWithData: boolean,
  count: () => Promise<number> | number,
  sheet: (index: number) => AsyncIterable<RawRow>,
  onIndex: (index: number) => void,
): AsyncGenerator<RawRow> {
  for (let i = index, last = index; i <= last; i++) {
    let found = false;
    for await (const row of sheet(i)) {
      if (!found && row.cells.some((cell) => cell !== "")) {
        found = true;
        onIndex(i);
      }
      yield row;
    }
    if (found) return;
    if (i === index && orFirstWithData) last = (await count()) - 1;
  }
  onIndex(index);
}

async function xlsxBook(path: string, entries: ZipEntry[], checkFirst: boolean): Promise<Book> {
  if (checkFirst) await verifyEntries(path, entries).catch((error: unknown) => Promise.reject(readError(error)));
  const limits = { maxColumns: SHEET_LIMITS.maxColumns, maxXmlRunBytes: SHEET_LIMITS.maxXmlRunBytes };
  let names: Promise<string[]> | undefined;
  const sheetNames = () => (names ??= xlsxSheetNames(path, entries, limits).catch((error: unknown) => Promise.reject(readError(error))));
  return {
    names: sheetNames,
    rows: (index, orFirstWithData, onIndex) =>
      firstWithData(
        index,
        orFirstWithData,
        async () => (await sheetNames()).length,
        (i) => readXlsx(path, entries, i),
        onIndex,
      ),
  };
}

async function* readXlsx(path: string, entries: ZipEntry[], index: number): AsyncGenerator<RawRow> {
  const limits = { maxColumns: SHEET_LIMITS.maxColumns, maxXmlRunBytes: SHEET_LIMITS.maxXmlRunBytes };
  try {
    for await (const row of readFirstSheet(path, entries, limits, index)) {
      yield { number: row.number, cells: row.values.map(cellText), width: row.width, ...(row.computed ? { computed: row.computed } : {}) };
    }
  } catch (error) {
    throw readError(error);
  }
}

async function odsBook(path: string, entries: ZipEntry[], checkFirst: boolean): Promise<Book> {
  if (!(await checkOdsMime(path, entries).catch((error: unknown) => Promise.reject(readError(error))))) {
    throw badRequest(MESSAGES.notSpreadsheet, "not_spreadsheet");
  }
  // A password-protected .ods keeps its parts encrypted inside a plain zip; its manifest says so.
  if (await isEncryptedOds(path, entries).catch((error: unknown) => Promise.reject(readError(error)))) {
    throw badRequest(MESSAGES.encrypted, "file_encrypted");
  }
  if (checkFirst) await verifyEntries(path, entries).catch((error: unknown) => Promise.reject(readError(error)));
  const limits = {
    maxColumns: SHEET_LIMITS.maxColumns,
    maxXmlRunBytes: SHEET_LIMITS.maxXmlRunBytes,
    maxCellChars: SHEET_LIMITS.maxCellChars,
    maxRepeatedChars: SHEET_LIMITS.maxRepeatedChars,
    maxRows: SHEET_LIMITS.maxRows,
    maxStyleChars: SHEET_LIMITS.maxOdsStyleChars,
  };
  return {
    async names() {
      try {
        return (await odsSheets(path, entries, limits)).names;
      } catch (error) {
        throw readError(error);
      }
    },
    async *rows(index, orFirstWithData, onIndex) {
      try {
        for await (const row of readOdsSheet(path, entries, limits, index, orFirstWithData, onIndex)) {
          yield { number: row.number, cells: row.values.map(cellText), width: row.width, ...(row.computed ? { computed: row.computed } : {}) };
        }
      } catch (error) {
        throw readError(error);
      }
    },
  };
}

/** A CSV file: one sheet, without a name. */
function csvBook(path: string): Book {
  return {
    names: async () => [""],
    rows: (index, orFirstWithData, onIndex) =>
      firstWithData(
        index,
        orFirstWithData,
        () => 1,
        () => readCsvCells(path),
        onIndex,
      ),
  };
}

async function* readCsvCells(path: string): AsyncGenerator<RawRow> {
  for await (const row of readCsv(path, SHEET_LIMITS.maxColumns)) {
    yield { number: row.number, cells: row.cells.map(cellText), width: row.width };
  }
}

/** The `xlsx` package (SheetJS), as it is published. */
function loadXlsx(): typeof import("xlsx") {
  const file = xlsxFile ?? createRequire(import.meta.url).resolve("xlsx");
  return createRequire(file)(file) as typeof import("xlsx");
}

/** Where the `xlsx` package is, when this runs bundled into the worker (without a module URL of its own). */
let xlsxFile: string | undefined;
export function useXlsxFrom(file: string) {
  xlsxFile = file;
}

let xlsx: typeof import("xlsx") | undefined;

/**
 * A sheet's names as LibreOffice shows them: a repeated name gets "_2", "_3"... (a BIFF5 file whose writer turned
 * Cyrillic names into "______" has several sheets of one name, and each can be chosen).
 */
function uniqueNames(names: string[]): string[] {
  const taken = new Set<string>();
  const next = new Map<string, number>();
  return names.map((name) => {
    let unique = name;
    for (let n = next.get(name) ?? 2; taken.has(unique); n++) {
      unique = `${name}_${n}`;
      next.set(name, n + 1);
    }
    taken.add(unique);
    return unique;
  });
}

/**
 * Legacy .xls: the OLE file is opened first (xls-file.ts): an encrypted one is refused, or decrypted when Excel's
 * default password opens it. The `xlsx` package then reads the workbook stream (it starts with a BOF record),
 * decrypted and with a BIFF5 code page found: first the globals alone (the sheets' names), then a sheet in windows of
 * rows of at most SHEET_LIMITS.xlsWindowCells cells, each a read of its own (xlsView: the other cells hidden), handed
 * out row by row (decision 048).
 */
function xlsBook(path: string, maxRows: number): Book {
  xlsx ??= loadXlsx();
  const read = xlsx.read;
  const data = fs.readFileSync(path);
  let content: OleContent | null;
  try {
    content = openOle(data, xlsx.CFB as unknown as CfbApi);
  } catch {
    content = null;
  }
  // An encrypted package says so whatever its size; a big .xls is refused before it is parsed.
  if (content?.kind === "encrypted") throw badRequest(MESSAGES.encrypted, "file_encrypted");
  if (data.length > SHEET_LIMITS.maxXlsBytes) throw badRequest(MESSAGES.xlsTooLarge, "file_too_large");
  if (!content) throw badRequest(MESSAGES.damaged, "damaged_file");
  if (content.kind === "not-workbook") throw badRequest(MESSAGES.notSpreadsheet, "not_spreadsheet");
  const { stream, computed, codepage } = content;
  // A BIFF5 or BIFF8 workbook (Excel 5 and later) starts with its globals' BOF; of other bytes the package would guess
  // another format.
  if (!isBiffWorkbook(stream)) throw badRequest(MESSAGES.damaged, "damaged_file");
  const into = Buffer.allocUnsafe(stream.length);
  // Dates are made here from the number and its format (cellNF), as for .xlsx: the package's own (cellDates) ignore
  // a workbook's 1904 date system (four years early) and are built in the server's time zone. Empty formatted cells
  // are not kept (sheetStubs): rows never show them.
  const parse = (view: Buffer, sheetRows: number) => {
    try {
      return read(view, {
        type: "buffer",
        cellDates: false,
        cellFormula: false,
        cellHTML: false,
        cellStyles: false,
        cellText: false,
        cellNF: true,
        sheetStubs: false,
        sheetRows,
        dense: true,
        ...(codepage ? { codepage } : {}),
      });
    } catch {
      throw badRequest(MESSAGES.damaged, "damaged_file");
    }
  };
  const globals = parse(xlsView(stream, into, 0), 1);
  const offsets = xlsSheetOffsets(stream);
  // The package's names, by offset as `offsets`; a repeated one is found in a window's read, which ends with its sheet.
  const packageNames = globals.SheetNames;
  if (packageNames.length !== offsets.length) throw badRequest(MESSAGES.damaged, "damaged_file");
  const names = uniqueNames(packageNames);
  const date1904 = Boolean(globals.Workbook?.WBProps?.date1904);

  async function* readSheet(index: number): AsyncGenerator<RawRow> {
    const offset = offsets[index];
    if (offset === undefined) return;
    const cells = xlsRowCells(stream, offset, maxRows + 1);
    let last = cells.length - 1;
    while (last >= 0 && !cells[last]) last--;
    if (last >= SHEET_LIMITS.maxRows) throw badRequest(MESSAGES.tooManyRows, "too_many_rows");
    for (let from = 0; from <= last;) {
      let to = from + 1;
      for (let sum = cells[from]; to <= last && sum + cells[to] <= SHEET_LIMITS.xlsWindowCells; to++) sum += cells[to];
      const window = parse(xlsView(stream, into, offset, from, to), to).Sheets[packageNames[index]];
      yield* readXls(window, from, to, date1904, computed[index]);
      from = to;
    }
  }

  return {
    names: async () => names,
    rows: (index, orFirstWithData, onIndex) => firstWithData(index, orFirstWithData, () => names.length, readSheet, onIndex),
  };
}

/** Rows [from, to) of a window of a sheet the `xlsx` package read. */
async function* readXls(sheet: unknown, from: number, to: number, date1904: boolean, computed = new Map<number, number[]>()): AsyncGenerator<RawRow> {
  // Dense mode: the sheet's "!data" is an array of rows, each an array of cells.
  const rows = ((sheet as { "!data"?: unknown } | undefined)?.["!data"] ?? []) as unknown[][];
  if (!Array.isArray(rows)) throw badRequest(MESSAGES.damaged, "damaged_file");
  for (let r = from; r < to; r++) {
    const row = rows[r] ?? [];
    const formulas = computed.get(r)?.filter((c) => c < SHEET_LIMITS.maxColumns);
    if (!rows[r] && !formulas?.length) continue;
    const cells: string[] = [];
    const width = Math.min(row.length, SHEET_LIMITS.maxColumns);
    for (let c = 0; c < width; c++) cells.push(xlsCellText(row[c], date1904));
    while (cells.length && cells[cells.length - 1] === "") cells.pop();
    // Handed out, the parsed row can go.
    rows[r] = [];
    yield { number: r + 1, cells, width: row.length, ...(formulas?.length ? { computed: formulas } : {}) };
  }
}

/**
 * An `xlsx` cell object ({ t, v, z }) as text; a number in a date format is a date; errors and empty cells are "".
 * A boolean is 1 or 0, as LibreOffice shows an .xls's booleans: it reads a boolean cell as the formula TRUE() or
 * FALSE() and a formula's result (a comparison's too) as a number in the cell's format, and no .xls format is a
 * boolean one (decision 040).
 */
function xlsCellText(cell: unknown, date1904: boolean): string {
  if (!cell || typeof cell !== "object") return "";
  const { t, v, z } = cell as { t?: string; v?: unknown; z?: unknown };
  if (t === "e" || t === "z") return "";
  if (t === "b") return v ? "1" : "0";
  if (t === "n" && typeof v === "number" && typeof z === "string" && isDateFormat(z)) return cellText(serialToDate(v, date1904));
  return cellText(v);
}
