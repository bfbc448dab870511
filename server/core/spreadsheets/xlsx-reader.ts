import path from "node:path/posix";
import { type XmlHandlers, XmlStream, XmlSyntaxError } from "./xml-stream";
import { partText, type ZipEntry } from "./zip";

/**
 * Reads the first sheet of an .xlsx straight from the zip by its directory: the workbook and its relationships
 * say which part is the first sheet, the shared strings and styles are read first, then the sheet streams row by
 * row. Reading by the directory does not depend on the order of the parts in the zip, so nothing has to be parked
 * in a temporary file, and no part can be missed: exceljs' streaming reader walks the zip as a stream and, when
 * the small parts after the sheet were parsed before it looked at them, silently lost them (the workbook or the
 * shared strings; see docs/decisions/013-own-xlsx-reader.md).
 *
 * The caller has checked the directory and the local headers (sizes, layout) and passes the entries; every part
 * is inflated under zip.ts's guard, so a lying directory or a gigabyte "cell" is refused as it is met.
 */
/** A cell value as the file holds it, before it becomes text. */
export type XlsxValue = string | number | boolean | Date | null;

export interface XlsxRow {
  /** The row's number in the sheet (1 = the first), as Excel shows it. */
  number: number;
  /** Values by column (0 = A), up to `maxColumns`; trailing empty cells dropped. */
  values: XlsxValue[];
  /** How many cells the row wrote, empty ones included. */
  width: number;
  /**
   * Columns of the formula cells whose value LibreOffice computes when it opens the file instead of showing what the
   * file holds (decision 043): none held (no `<v>`, or an empty one), or a text result written by a program other
   * than Excel and LibreOffice. What we read there (nothing, or the held text) may not be what Excel shows.
   */
  computed?: number[];
}

export class XlsxFormatError extends Error {}

/** The file being read and the limit every part is inflated under. */
interface Book {
  file: string;
  maxXmlRunBytes: number;
}

/** Parts name elements with or without a namespace prefix (`c` or `x:c`): the local name is what counts. */
const localName = (name: string) => {
  const colon = name.indexOf(":");
  return colon < 0 ? name : name.slice(colon + 1);
};

/**
 * Streams one part through the XML parser (xml-stream.ts, saxes), elements by their local name. `after` runs after
 * each chunk, so a caller can hand out what the chunk produced (rows) without holding the whole part.
 */
async function* parsePart<T>(book: Book, entry: ZipEntry, handlers: XmlHandlers, after: () => T[]): AsyncGenerator<T> {
  const { open, close } = handlers;
  const parser = new XmlStream({
    open: open && ((name, attributes) => open(localName(name), attributes)),
    close: close && ((name) => close(localName(name))),
    text: handlers.text,
  });
  try {
    for await (const chunk of partText(book.file, entry, book.maxXmlRunBytes)) {
      parser.write(chunk);
      for (const item of after()) yield item;
    }
    parser.close();
  } catch (error) {
    throw error instanceof XmlSyntaxError ? new XlsxFormatError(error.message) : error;
  }
  for (const item of after()) yield item;
}

async function readPart(book: Book, entry: ZipEntry, handlers: XmlHandlers): Promise<void> {
  for await (const _ of parsePart(book, entry, handlers, () => [])) {
    /* parsed for the handlers' side effects */
  }
}

/** Excel writes characters XML cannot hold as _xHHHH_ (a line feed is _x000A_). */
const decodeEscapes = (text: string) =>
  text.includes("_x") ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;

/** A package with no workbook part: not a spreadsheet (a .docx, or some other zip). */
export class XlsxNotWorkbookError extends Error {}

/** A relationship's target as a part name: relative to the folder of the part that names it, or from the root. */
function resolveTarget(from: string, target: string): string {
  const clean = target.replace(/\\/g, "/");
  if (clean.startsWith("/")) return path.normalize(clean.slice(1)).toLowerCase();
  return path
    .normalize(path.join(path.dirname(from), clean))
    .replace(/^\.\//, "")
    .toLowerCase();
}

/** Where the relationships of a part are: `xl/workbook.xml` → `xl/_rels/workbook.xml.rels`. */
const relsOf = (part: string) => path.join(path.dirname(part), "_rels", `${path.basename(part)}.rels`).replace(/^\.\//, "");

interface Relationship {
  /** The type's last word: "worksheet", "sharedStrings", "officeDocument"... */
  type: string;
  id: string;
  /** The target's part name, lower case (as the parts are keyed). */
  target: string;
}

/** A part's relationships, in document order ("" for the package's own). */
async function readRelationships(book: Book, parts: Map<string, ZipEntry>, part: string): Promise<Relationship[]> {
  const rels = parts.get(relsOf(part));
  const found: Relationship[] = [];
  if (!rels) return found;
  await readPart(book, rels, {
    open(name, attributes) {
      if (name !== "Relationship" || !attributes.Target || attributes.TargetMode === "External") return;
      // Transitional (schemas.openxmlformats.org) and strict (purl.oclc.org) types end with the same word.
      const type = (attributes.Type ?? "").split("/").pop() ?? "";
      found.push({ type, id: attributes.Id ?? "", target: resolveTarget(part, attributes.Target) });
    },
  });
  return found;
}

/**
 * The workbook's parts: the worksheets with their names (in tab order, not zip order), the shared strings and the
 * styles, and whether dates count from 1904. The package's root relationships name the workbook part (`xl/workbook.xml` when Excel
 * writes it, anywhere when another program does), and the workbook's relationships name the rest.
 */
async function findParts(
  book: Book,
  parts: Map<string, ZipEntry>,
): Promise<{
  sheets: Array<{ name: string; entry: ZipEntry | null }>;
  sharedStrings?: ZipEntry;
  styles?: ZipEntry;
  date1904: boolean;
  appProperties?: ZipEntry;
}> {
  const root = await readRelationships(book, parts, "");
  const appTarget = root.find((rel) => rel.type === "extended-properties" && parts.has(rel.target))?.target;
  const appProperties = parts.get(appTarget ?? "docprops/app.xml");
  const named = root.find((rel) => rel.type === "officeDocument" && parts.has(rel.target))?.target;
  const workbookName = named ?? "xl/workbook.xml";
  const workbook = parts.get(workbookName);
  if (!workbook) throw new XlsxNotWorkbookError("no workbook part");
  const sheetIds: Array<{ id: string; name: string }> = [];
  let date1904 = false;
  let isWorkbook = false;
  await readPart(book, workbook, {
    open(name, attributes) {
      if (name === "workbook") isWorkbook = true;
      else if (name === "workbookPr") date1904 = attributes.date1904 === "1" || attributes.date1904 === "true";
      else if (name === "sheet") {
        const id = Object.entries(attributes).find(([key]) => key.endsWith(":id"))?.[1];
        if (id) sheetIds.push({ id, name: attributes.name ?? "" });
      }
    },
  });
  if (!isWorkbook) throw new XlsxNotWorkbookError("the main part is not a workbook");
  const rels = await readRelationships(book, parts, workbookName);
  const byType = (type: string) => {
    const target = rels.find((rel) => rel.type === type && parts.has(rel.target))?.target;
    return target ? parts.get(target) : undefined;
  };
  const folder = path.dirname(workbookName) === "." ? "" : `${path.dirname(workbookName)}/`;
  const found = {
    sharedStrings: byType("sharedStrings") ?? parts.get(`${folder}sharedstrings.xml`),
    styles: byType("styles") ?? parts.get(`${folder}styles.xml`),
    date1904,
    appProperties,
  };
  // A chart sheet (a chart on a tab of its own) is a tab like any other, without cells: Excel and LibreOffice count
  // it, and the sheet picker lists it, so that "the first sheet" means the same tab everywhere.
  const sheets: Array<{ name: string; entry: ZipEntry | null }> = [];
  for (const { id, name } of sheetIds) {
    const rel = rels.find((r) => r.id === id && (r.type === "worksheet" || r.type === "chartsheet"));
    const entry = rel ? parts.get(rel.target) : undefined;
    if (entry) sheets.push({ name, entry: rel!.type === "worksheet" ? entry : null });
  }
  if (sheets.some((sheet) => sheet.entry)) return { ...found, sheets };
  // No usable workbook listing: the first worksheet part in the zip, as a lenient reader would take it.
  const fallback = [...parts.entries()].find(
    ([name]) => name.startsWith(`${folder}worksheets/`) && name.endsWith(".xml") && !name.slice(folder.length + 11).includes("/"),
  );
  return { ...found, sheets: fallback ? [{ name: "", entry: fallback[1] }] : [] };
}

/**
 * Whether the package was written by Excel or LibreOffice (docProps/app.xml's Application starts with "Microsoft" or
 * "LibreOffice"): LibreOffice keeps the held text results of such a file's formulas, and computes those of any other
 * program's (found with soffice 7.4, decision 043).
 */
async function writtenByOffice(book: Book, entry: ZipEntry | undefined): Promise<boolean> {
  if (!entry || entry.uncompressed > 1024 * 1024) return false;
  let application = "";
  let inside = false;
  await readPart(book, entry, {
    open(name) {
      inside = name === "Application" || name.endsWith(":Application");
    },
    close() {
      inside = false;
    },
    text(chunk) {
      if (inside) application += chunk;
    },
  });
  return /^\s*(microsoft|libreoffice)/i.test(application);
}

/** The worksheets' names in tab order. */
export async function xlsxSheetNames(file: string, entries: ZipEntry[], limits: { maxXmlRunBytes: number }): Promise<string[]> {
  const parts = new Map(entries.map((entry) => [entry.name.replace(/^\//, "").toLowerCase(), entry]));
  const { sheets } = await findParts({ file, maxXmlRunBytes: limits.maxXmlRunBytes }, parts);
  return sheets.map((sheet) => sheet.name);
}

/** The shared-string table: each item's text, rich-text runs joined, phonetic hints left out. */
async function readSharedStrings(book: Book, entry: ZipEntry | undefined): Promise<string[]> {
  const strings: string[] = [];
  if (!entry) return strings;
  let current: string[] | null = null;
  let inText = false;
  let phonetic = 0;
  await readPart(book, entry, {
    open(name) {
      if (name === "si") current = [];
      else if (name === "t") inText = phonetic === 0;
      else if (name === "rPh") phonetic++;
    },
    close(name) {
      if (name === "si" && current) {
        strings.push(decodeEscapes(current.join("")));
        current = null;
      } else if (name === "t") inText = false;
      else if (name === "rPh") phonetic--;
    },
    text(text) {
      if (inText && current) current.push(text);
    },
  });
  return strings;
}

/** Number formats Excel builds in that show a date or a time (ids 14-22, 27-36, 45-47, 50-58). */
const BUILTIN_DATE_FORMATS = new Set([
  14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58,
]);

/**
 * A custom format shows a date when, outside quoted text, [brackets] and \-escaped characters, it has a date or
 * time letter. One pass from left to right that never looks back: the regular expressions this replaced searched
 * for the closing "]" again from every "[", and a 14 KB file with 200,000 of them took 18 s (issue 14).
 */
export function isDateFormat(code: string): boolean {
  // An unclosed "[" or quote is a plain character, and once one is found unclosed no later one is searched for.
  let bracketCloses = true;
  let quoteCloses = true;
  for (let i = 0; i < code.length; i++) {
    const char = code[i];
    if (char === "\\") i++;
    else if ((char === "[" && bracketCloses) || (char === '"' && quoteCloses)) {
      const end = code.indexOf(char === "[" ? "]" : '"', i + 1);
      if (end >= 0) i = end;
      else if (char === "[") bracketCloses = false;
      else quoteCloses = false;
    } else if (DATE_LETTERS.has(char)) return true;
  }
  return false;
}

const DATE_LETTERS = new Set("ymdhsbYMDHSB");

/** Which cell styles (indexes of cellXfs) show their number as a date. */
async function readDateStyles(book: Book, entry: ZipEntry | undefined): Promise<Set<number>> {
  const dateStyles = new Set<number>();
  if (!entry) return dateStyles;
  const customDates = new Set<number>();
  let inCellXfs = false;
  let index = 0;
  await readPart(book, entry, {
    open(name, attributes) {
      if (name === "numFmt" && isDateFormat(attributes.formatCode ?? "")) customDates.add(Number(attributes.numFmtId));
      else if (name === "cellXfs") inCellXfs = true;
      else if (name === "xf" && inCellXfs) {
        const format = Number(attributes.numFmtId ?? 0);
        if (BUILTIN_DATE_FORMATS.has(format) || customDates.has(format)) dateStyles.add(index);
        index++;
      }
    },
    close(name) {
      if (name === "cellXfs") inCellXfs = false;
    },
  });
  return dateStyles;
}

/** "AB12" → 27 (0-based column), or -1 when the reference is not a cell address. */
function columnOf(ref: string): number {
  let column = 0;
  let i = 0;
  for (; i < ref.length && i < 3; i++) {
    const code = ref.charCodeAt(i);
    if (code < 65 || code > 90) break;
    column = column * 26 + (code - 64);
  }
  return i === 0 ? -1 : column - 1;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** An Excel serial day number as a date (UTC), counting from 1900 (with Excel's leap-year quirk) or 1904. */
export function serialToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * DAY_MS));
}

/**
 * The rows of the first sheet (or of sheet `index` in tab order), in file order. Cells keep their type: text, a number, a boolean, a date (a number
 * styled as one), or null (empty, or an error such as #N/A). A formula gives its cached result and is never run.
 */
export async function* readFirstSheet(
  file: string,
  entries: ZipEntry[],
  limits: { maxColumns: number; maxXmlRunBytes: number },
  index = 0,
): AsyncGenerator<XlsxRow> {
  const book: Book = { file, maxXmlRunBytes: limits.maxXmlRunBytes };
  const { maxColumns } = limits;
  const parts = new Map(entries.map((entry) => [entry.name.replace(/^\//, "").toLowerCase(), entry]));
  const found = await findParts(book, parts);
  const { date1904 } = found;
  const sheet = found.sheets[index]?.entry;
  if (!sheet) return;
  const shared = await readSharedStrings(book, found.sharedStrings);
  const dateStyles = await readDateStyles(book, found.styles);
  const officeWritten = await writtenByOffice(book, found.appProperties);

  let rows: XlsxRow[] = [];
  let row: XlsxRow | null = null;
  let pending: XlsxRow | null = null;
  let number = 0;
  let nextColumn = 0;
  // The cell being read.
  let column = -1;
  let type = "";
  let style = 0;
  let text = "";
  let collecting = false;
  let phonetic = 0;
  let formula = false;
  let held = false;

  function cellValue(): XlsxValue {
    const raw = text;
    switch (type) {
      case "s": {
        // An empty <v/> is no string at all (Number("") would be the first one: a header word in a data row).
        const index = raw.trim() === "" ? NaN : Number(raw);
        return Number.isInteger(index) ? (shared[index] ?? null) : null;
      }
      case "inlineStr":
        return decodeEscapes(raw);
      case "str":
        return raw;
      case "b":
        return raw === "" ? null : raw.trim() !== "0" && raw.trim() !== "false";
      case "e":
        return null;
      case "d": {
        const date = new Date(raw.trim().replace(/(T[\d:.]+)$/, "$1Z"));
        return Number.isNaN(date.getTime()) ? raw : date;
      }
      default: {
        if (raw.trim() === "") return null;
        const number = Number(raw);
        if (!Number.isFinite(number)) return null;
        return dateStyles.has(style) ? serialToDate(number, date1904) : number;
      }
    }
  }

  const handlers: XmlHandlers = {
    open(name, attributes) {
      switch (name) {
        case "row":
          number = Number(attributes.r) > 0 ? Math.floor(Number(attributes.r)) : number + 1;
          row = { number, values: [], width: 0 };
          nextColumn = 0;
          break;
        case "c":
          if (!row) break;
          column = attributes.r ? columnOf(attributes.r) : nextColumn;
          if (column < 0) throw new XlsxFormatError(`bad cell reference ${attributes.r}`);
          nextColumn = column + 1;
          type = attributes.t ?? "";
          style = Number(attributes.s ?? 0);
          text = "";
          formula = false;
          held = false;
          row.width++;
          break;
        case "f":
          formula = column >= 0;
          break;
        case "v":
          collecting = column >= 0 && type !== "inlineStr";
          held = true;
          break;
        case "t":
          collecting = column >= 0 && type === "inlineStr" && phonetic === 0;
          break;
        case "rPh":
          phonetic++;
          break;
      }
    },
    close(name) {
      switch (name) {
        case "v":
        case "t":
          collecting = false;
          break;
        case "rPh":
          phonetic--;
          break;
        case "c":
          if (row && column >= 0 && column < maxColumns) {
            const value = cellValue();
            // A formula without a held value (or an empty one) LibreOffice computes; so is a text result of a
            // formula written by another program than Excel or LibreOffice. (An empty text result Excel wrote, as
            // for IF(A2="";"";A2), LibreOffice computes too, and gets the same empty text.)
            const empty = !held || text.trim() === "";
            if (formula && (type === "str" ? !officeWritten || (empty && held === false) : empty)) (row.computed ??= []).push(column);
            if (value !== null && value !== "") {
              while (row.values.length < column) row.values.push(null);
              row.values[column] = value;
            }
          }
          column = -1;
          break;
        case "row":
          // A row written twice in a row (two <row r="2">, as a broken generator does) is one row, as LibreOffice
          // reads it: the last row waits until the next one shows another number.
          if (row && pending?.number === row.number) {
            const merged = pending;
            row.values.forEach((value, c) => {
              if (value === null || value === undefined) return;
              while (merged.values.length < c) merged.values.push(null);
              merged.values[c] = value;
            });
            merged.width += row.width;
            if (row.computed) (merged.computed ??= []).push(...row.computed);
          } else if (row) {
            if (pending) rows.push(pending);
            pending = row;
          }
          row = null;
          break;
      }
    },
    text(chunk) {
      if (collecting) text += chunk;
    },
  };
  yield* parsePart(book, sheet, handlers, () => {
    const done = rows;
    rows = [];
    return done;
  });
  if (pending) yield pending;
}
