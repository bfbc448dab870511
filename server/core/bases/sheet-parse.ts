import fs from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import vm from "node:vm";
import { badRequest } from "../errors";
import { MESSAGES, type ReadOptions, SHEET_LIMITS, type SheetRow } from "./spreadsheet";
import { inflatedPart, readFirstSheet, XlsxLimitError } from "./xlsx-reader";

/**
 * Parsing an uploaded spreadsheet: this runs inside the sheet worker (sheet-worker.ts), never on the server's
 * event loop; `readSheetRows` in spreadsheet.ts is the way in. Uploads are untrusted: the format is decided by the
 * file's first bytes, not its name; `.xlsx` is checked from its zip directory (no zip bombs), then its first sheet
 * streams through our reader (xlsx-reader.ts); legacy `.xls` is parsed whole by the `xlsx` package.
 * Every cell comes back as text: Cyrillic, leading zeros and long numbers stay as written.
 */

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

const startsWith = (buffer: Buffer, magic: number[]) => magic.every((byte, i) => buffer[i] === byte);

/**
 * The file's format, from its size and first bytes, with an .xlsx's checked zip directory; a 400 with a Russian
 * message for anything else.
 */
function detectSheet(path: string): { kind: "xlsx"; entries: ZipEntry[] } | { kind: "xls" } {
  const size = fs.statSync(path).size;
  if (size === 0) throw badRequest(MESSAGES.empty, "empty_file");
  if (size > SHEET_LIMITS.maxFileBytes) throw badRequest(MESSAGES.tooLarge, "file_too_large");
  const head = Buffer.alloc(8);
  const fd = fs.openSync(path, "r");
  try {
    fs.readSync(fd, head, 0, 8, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (startsWith(head, ZIP_MAGIC)) return { kind: "xlsx", entries: checkXlsxZip(path, size) };
  if (startsWith(head, OLE_MAGIC)) {
    if (size > SHEET_LIMITS.maxXlsBytes) throw badRequest(MESSAGES.xlsTooLarge, "file_too_large");
    return { kind: "xls" };
  }
  throw badRequest(MESSAGES.notSpreadsheet, "not_spreadsheet");
}

/**
 * Reads the zip's central directory before any inflating: it must hold a workbook, and its declared sizes must
 * be sane (a zip bomb declares gigabytes, or compresses a thousandfold). The streaming reader's row and time
 * limits catch a directory that lies.
 */
function checkXlsxZip(path: string, size: number): ZipEntry[] {
  const fd = fs.openSync(path, "r");
  try {
    const tailLength = Math.min(size, 65_557);
    const tail = Buffer.alloc(tailLength);
    fs.readSync(fd, tail, 0, tailLength, size - tailLength);
    let eocd = -1;
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) throw badRequest(MESSAGES.damaged, "damaged_file");
    const entries = tail.readUInt16LE(eocd + 10);
    const dirSize = tail.readUInt32LE(eocd + 12);
    const dirOffset = tail.readUInt32LE(eocd + 16);
    if (dirOffset === 0xffffffff || dirSize > size || dirOffset + dirSize > size) throw badRequest(MESSAGES.bomb, "zip_bomb");
    const dir = Buffer.alloc(dirSize);
    fs.readSync(fd, dir, 0, dirSize, dirOffset);
    let offset = 0;
    let total = 0;
    let hasWorkbook = false;
    const list: ZipEntry[] = [];
    for (let n = 0; n < entries && offset + 46 <= dir.length; n++) {
      if (dir.readUInt32LE(offset) !== 0x02014b50) throw badRequest(MESSAGES.damaged, "damaged_file");
      const flags = dir.readUInt16LE(offset + 8);
      const method = dir.readUInt16LE(offset + 10);
      const compressed = dir.readUInt32LE(offset + 20);
      const uncompressed = dir.readUInt32LE(offset + 24);
      const nameLength = dir.readUInt16LE(offset + 28);
      const extraLength = dir.readUInt16LE(offset + 30);
      const commentLength = dir.readUInt16LE(offset + 32);
      const localOffset = dir.readUInt32LE(offset + 42);
      const name = dir.toString("utf8", offset + 46, offset + 46 + nameLength);
      if (name === "xl/workbook.xml") hasWorkbook = true;
      if (uncompressed === 0xffffffff || compressed === 0xffffffff) throw badRequest(MESSAGES.bomb, "zip_bomb");
      total += uncompressed;
      // Sheet XML compresses about 10-30 times; a thousandfold on anything sizeable is a bomb.
      if (uncompressed > 10 * 1024 * 1024 && uncompressed > compressed * 1000) throw badRequest(MESSAGES.bomb, "zip_bomb");
      const isSheet = /^xl\/worksheets\/[^/]+\.xml$/.test(name);
      if (name === "xl/sharedStrings.xml" && uncompressed > SHEET_LIMITS.maxSharedStringsBytes) {
        throw badRequest(MESSAGES.tooManyStrings, "too_many_strings");
      }
      if (!isSheet && uncompressed > SHEET_LIMITS.maxPartBytes) throw badRequest(MESSAGES.bomb, "zip_bomb");
      list.push({ name, flags, method, compressed, uncompressed, localOffset });
      offset += 46 + nameLength + extraLength + commentLength;
    }
    if (list.length !== entries) throw badRequest(MESSAGES.damaged, "damaged_file");
    if (total > SHEET_LIMITS.maxUnzippedBytes) throw badRequest(MESSAGES.bomb, "zip_bomb");
    if (!hasWorkbook) throw badRequest(MESSAGES.notSpreadsheet, "not_spreadsheet");
    checkZipLayout(fd, list, dirOffset);
    return list;
  } finally {
    fs.closeSync(fd);
  }
}

interface ZipEntry {
  name: string;
  flags: number;
  method: number;
  compressed: number;
  uncompressed: number;
  localOffset: number;
  /** Where the entry's compressed data starts (after its local header). */
  dataOffset?: number;
}

const verifiedZips = new Set<string>();

/**
 * Every entry must sit exactly where the directory says, back to back, with matching local headers: no entry
 * hides between them (a streaming unzipper would read it) and no local header claims other sizes than the ones
 * checked. Such a file was not written by a spreadsheet program.
 */
function checkZipLayout(fd: number, entries: ZipEntry[], dirOffset: number) {
  const damaged = () => badRequest(MESSAGES.damaged, "damaged_file");
  const sorted = [...entries].sort((a, b) => a.localOffset - b.localOffset);
  let expected = 0;
  const header = Buffer.alloc(30);
  const descriptor = Buffer.alloc(4);
  for (const entry of sorted) {
    if (entry.localOffset !== expected) throw damaged();
    if (fs.readSync(fd, header, 0, 30, entry.localOffset) !== 30 || header.readUInt32LE(0) !== 0x04034b50) throw damaged();
    const flags = header.readUInt16LE(6);
    const method = header.readUInt16LE(8);
    if (method !== entry.method || (method !== 0 && method !== 8)) throw damaged();
    if (flags & 0x0001) throw damaged(); // encrypted
    const hasDescriptor = (flags & 0x0008) !== 0;
    if (!hasDescriptor) {
      const compressed = header.readUInt32LE(18);
      const uncompressed = header.readUInt32LE(22);
      if (compressed !== entry.compressed || uncompressed !== entry.uncompressed) throw badRequest(MESSAGES.bomb, "zip_bomb");
    }
    if (method === 0 && entry.compressed !== entry.uncompressed) throw damaged();
    entry.dataOffset = entry.localOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    expected = entry.dataOffset + entry.compressed;
    if (hasDescriptor) {
      fs.readSync(fd, descriptor, 0, 4, expected);
      expected += descriptor.readUInt32LE(0) === 0x08074b50 ? 16 : 12;
    }
  }
  if (expected !== dirOffset) throw damaged();
}

/**
 * Inflates every entry once, counting, before a read that stops early (a preview would not reach a bomb further
 * on): an entry that inflates to more than its directory says (a zip bomb with a lying directory), or XML with a
 * run of text longer than any cell can hold, is refused having used a few megabytes. Nothing inflated is kept.
 * A read to the end needs no such pass: the reader checks every part it inflates the same way.
 */
async function verifyXlsxEntries(path: string, entries: ZipEntry[]): Promise<void> {
  // The preview and the import's first look both stop early: inflate-check a file once.
  const stat = fs.statSync(path);
  const key = `${path}:${stat.size}:${stat.mtimeMs}`;
  if (verifiedZips.has(key)) return;
  try {
    for (const entry of entries) {
      for await (const _ of inflatedPart(path, entry, SHEET_LIMITS.maxXmlRunBytes)) {
        /* counted by the guard */
      }
    }
  } catch (error) {
    throw readError(error);
  }
  verifiedZips.add(key);
  if (verifiedZips.size > 32) verifiedZips.delete(verifiedZips.values().next().value as string);
}

/** A failure while inflating or parsing, as the Russian 400 the person sees. */
function readError(error: unknown) {
  if ((error as { status?: number }).status) return error;
  if (error instanceof XlsxLimitError) {
    if (error.kind === "bomb") return badRequest(MESSAGES.bomb, "zip_bomb");
    if (error.kind === "run") return badRequest(MESSAGES.cellTooLong, "cell_too_long");
  }
  return badRequest(MESSAGES.damaged, "damaged_file");
}

/** A cell as the text a person sees: numbers without float noise or exponents, dates as dd.mm.yyyy. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  // NUL cannot be stored in a Postgres text column.
  if (typeof value === "string") return (value.includes("\u0000") ? value.replace(/\u0000/g, "") : value).trim();
  if (typeof value === "number") return numberText(value);
  if (typeof value === "boolean") return value ? "ИСТИНА" : "ЛОЖЬ";
  if (value instanceof Date) return dateText(value);
  if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText)) return (v.richText as Array<{ text?: string }>).map((r) => r.text ?? "").join("").trim();
    if ("result" in v) return cellText(v.result);
    if ("text" in v) return cellText(v.text);
    if ("error" in v) return "";
    if ("formula" in v || "sharedFormula" in v) return "";
  }
  return String(value).trim();
}

function numberText(n: number): string {
  if (!Number.isFinite(n)) return "";
  const text = String(n);
  if (!/e/i.test(text)) return text;
  // 1e+21 and beyond: the digits the float holds, never an exponent.
  if (Number.isInteger(n)) return BigInt(n).toString();
  return n.toFixed(20).replace(/0+$/, "").replace(/\.$/, "");
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
 * The rows of the first sheet with their numbers in the file, each an array of cell texts (empty rows left out).
 * Throws AppError (400) for a file that is not a spreadsheet, is too big, too long or damaged.
 */
export async function* parseSheetRows(path: string, options: ReadOptions = {}): AsyncGenerator<SheetRow> {
  const sheet = detectSheet(path);
  const limit = options.limit ?? Infinity;
  const checkFirst = options.checkFirst ?? Number.isFinite(limit);
  const source = sheet.kind === "xlsx" ? readXlsx(path, sheet.entries, checkFirst) : readXls(path, Math.min(limit, SHEET_LIMITS.maxRows));
  let count = 0;
  let emptyRows = 0;
  let emptyCells = 0;
  for await (const { number, cells, width } of source) {
    if (!cells.some((cell) => cell !== "")) {
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
    yield { number, cells };
  }
}

/** A row as read: its number, its cells as text, and how many cells the file wrote for it (empty ones included). */
interface RawRow extends SheetRow {
  width: number;
}

async function* readXlsx(path: string, entries: ZipEntry[], checkFirst: boolean): AsyncGenerator<RawRow> {
  if (checkFirst) await verifyXlsxEntries(path, entries);
  const limits = { maxColumns: SHEET_LIMITS.maxColumns, maxXmlRunBytes: SHEET_LIMITS.maxXmlRunBytes };
  try {
    for await (const row of readFirstSheet(path, entries, limits)) {
      yield { number: row.number, cells: row.values.map(cellText), width: row.width };
    }
  } catch (error) {
    throw readError(error);
  }
}

/** `xlsx` 0.18.5's cell store deletes two properties of every cell it keeps. */
const XLS_CELL_DELETES = "delete line.ixfe; delete line.XF;";

/**
 * The `xlsx` package, loaded so that the cells of an .xls take a fifth of the memory: its BIFF reader deletes two
 * properties of every cell object, which turns each into a slow dictionary of ~500 bytes (a 20 MB .xls of a
 * million cells needed more than 512 MB), so the cell is copied without them instead; empty formatted cells,
 * which the rows never show, are not kept at all. If a later version no longer has that line, it is loaded as it
 * is (and the worker's heap limit still holds).
 */
function loadXlsx(): typeof import("xlsx") {
  const file = xlsxFile ?? createRequire(import.meta.url).resolve("xlsx");
  const require = createRequire(file);
  const source = fs.readFileSync(file, "utf8");
  if (!source.includes(XLS_CELL_DELETES)) return require(file);
  const lean =
    "if (line.t === 'z') return; var lean = {}; for (var key in line) if (key !== 'ixfe' && key !== 'XF') lean[key] = line[key]; line = lean;";
  const load = vm.compileFunction(source.replace(XLS_CELL_DELETES, lean), ["exports", "require", "module", "__filename", "__dirname"], {
    filename: file,
  });
  const module = { exports: {} };
  load(module.exports, require, module, file, dirname(file));
  return module.exports as typeof import("xlsx");
}

/** Where the `xlsx` package is, when this runs bundled into the worker (without a module URL of its own). */
let xlsxFile: string | undefined;
export function useXlsxFrom(file: string) {
  xlsxFile = file;
}

let xlsx: typeof import("xlsx") | undefined;

/** Legacy .xls: parsed whole (the format allows 65,536 rows), then handed out row by row. */
async function* readXls(path: string, maxRows: number): AsyncGenerator<RawRow> {
  let rows: unknown[][];
  try {
    xlsx ??= loadXlsx();
    const workbook = xlsx.read(fs.readFileSync(path), {
      type: "buffer",
      cellDates: true,
      cellFormula: false,
      cellHTML: false,
      cellStyles: false,
      cellText: false,
      cellNF: false,
      sheetRows: maxRows + 1,
      dense: true,
    });
    const name = workbook.SheetNames[0];
    // Dense mode: the sheet is an array of rows, each an array of cells.
    rows = ((name ? workbook.Sheets[name] : undefined) ?? []) as unknown as unknown[][];
  } catch {
    throw badRequest(MESSAGES.damaged, "damaged_file");
  }
  if (!Array.isArray(rows)) throw badRequest(MESSAGES.damaged, "damaged_file");
  if (rows.length > SHEET_LIMITS.maxRows) throw badRequest(MESSAGES.tooManyRows, "too_many_rows");
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r];
    if (!row) continue;
    const cells: string[] = [];
    const width = Math.min(row.length, SHEET_LIMITS.maxColumns);
    for (let c = 0; c < width; c++) cells.push(xlsCellText(row[c]));
    while (cells.length && cells[cells.length - 1] === "") cells.pop();
    // Handed out, the parsed row can go.
    rows[r] = [];
    yield { number: r + 1, cells, width: row.length };
  }
}

/** An `xlsx` cell object ({ t, v }) as text; errors and empty cells are "". */
function xlsCellText(cell: unknown): string {
  if (!cell || typeof cell !== "object") return "";
  const { t, v } = cell as { t?: string; v?: unknown };
  if (t === "e" || t === "z") return "";
  return cellText(v);
}
