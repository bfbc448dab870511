import fs from "node:fs";
import path from "node:path/posix";
import { StringDecoder } from "node:string_decoder";
import zlib from "node:zlib";
import { type XmlHandlers, XmlStream, XmlSyntaxError } from "./xml-stream";

/**
 * Reads the first sheet of an .xlsx straight from the zip by its directory: the workbook and its relationships
 * say which part is the first sheet, the shared strings and styles are read first, then the sheet streams row by
 * row. Reading by the directory does not depend on the order of the parts in the zip, so nothing has to be parked
 * in a temporary file, and no part can be missed: exceljs' streaming reader walks the zip as a stream and, when
 * the small parts after the sheet were parsed before it looked at them, silently lost them (the workbook or the
 * shared strings; see docs/decisions/013-own-xlsx-reader.md).
 *
 * The caller has checked the directory and the local headers (sizes, layout) and passes the entries; every part
 * is inflated under inflateGuard, so a lying directory or a gigabyte "cell" is refused as it is met.
 */
export interface XlsxEntry {
  name: string;
  method: number;
  compressed: number;
  uncompressed: number;
  /** Where the entry's compressed data starts. */
  dataOffset?: number;
}

/** A cell value as the file holds it, before it becomes text. */
export type XlsxValue = string | number | boolean | Date | null;

export interface XlsxRow {
  /** The row's number in the sheet (1 = the first), as Excel shows it. */
  number: number;
  /** Values by column (0 = A), up to `maxColumns`; trailing empty cells dropped. */
  values: XlsxValue[];
  /** How many cells the row wrote, empty ones included. */
  width: number;
}

export class XlsxFormatError extends Error {}

/** Why a part was refused while it was inflated: the caller turns these into its messages. */
export class XlsxLimitError extends Error {
  constructor(readonly kind: "bomb" | "run" | "size") {
    super(kind);
  }
}

/**
 * The size of the pieces a part is read and inflated in. Larger than the streams' 16-64 KB defaults: every piece
 * passes through several async generators on its way to a row, and a sheet of 40 MB in 256 KB pieces reads about
 * a sixth faster than in 16 KB ones. Still far below maxXmlRunBytes.
 */
const CHUNK_BYTES = 256 * 1024;

/**
 * Counts a part's inflated bytes against what the zip directory declared (a zip bomb's directory lies) and
 * watches the longest run of XML between two tags (a cell holds at most 32,767 characters; one "cell" of a
 * gigabyte is an attack). Throws XlsxLimitError as soon as a limit is passed.
 */
function inflateGuard(entry: XlsxEntry, maxXmlRunBytes: number) {
  const isXml = /\.(xml|rels)$/i.test(entry.name);
  let size = 0;
  let run = 0;
  return {
    chunk(chunk: Buffer) {
      size += chunk.length;
      if (size > entry.uncompressed) throw new XlsxLimitError("bomb");
      if (!isXml) return;
      // Runs inside one chunk (at most CHUNK_BYTES) are always short: only the runs that cross chunks can grow.
      const first = chunk.indexOf(0x3c);
      if (first < 0) run += chunk.length;
      else if (run + first > maxXmlRunBytes) run += first;
      else run = chunk.length - chunk.lastIndexOf(0x3c) - 1;
      if (run > maxXmlRunBytes) throw new XlsxLimitError("run");
    },
    end() {
      if (size !== entry.uncompressed) throw new XlsxLimitError("size");
    },
  };
}

/** An entry's inflated bytes, checked by inflateGuard on the way. */
export async function* inflatedPart(file: string, entry: XlsxEntry, maxXmlRunBytes: number): AsyncGenerator<Buffer> {
  if (entry.dataOffset === undefined) throw new XlsxFormatError(`no data offset for ${entry.name}`);
  const guard = inflateGuard(entry, maxXmlRunBytes);
  if (entry.compressed > 0) {
    const source = fs.createReadStream(file, {
      start: entry.dataOffset,
      end: entry.dataOffset + entry.compressed - 1,
      highWaterMark: CHUNK_BYTES,
    });
    const stream = entry.method === 8 ? source.pipe(zlib.createInflateRaw({ chunkSize: CHUNK_BYTES })) : source;
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        guard.chunk(chunk);
        yield chunk;
      }
    } finally {
      source.destroy();
      if (stream !== source) stream.destroy();
    }
  }
  guard.end();
}

/** An entry's XML as text, in chunks; a character split between two chunks stays whole. */
async function* partText(file: string, entry: XlsxEntry, maxXmlRunBytes: number): AsyncGenerator<string> {
  const decoder = new StringDecoder("utf8");
  for await (const chunk of inflatedPart(file, entry, maxXmlRunBytes)) yield decoder.write(chunk);
  const rest = decoder.end();
  if (rest) yield rest;
}

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
 * Streams one part through the XML tokenizer (xml-stream.ts), elements by their local name. `after` runs after
 * each chunk, so a caller can hand out what the chunk produced (rows) without holding the whole part.
 */
async function* parsePart<T>(book: Book, entry: XlsxEntry, handlers: XmlHandlers, after: () => T[]): AsyncGenerator<T> {
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

async function readPart(book: Book, entry: XlsxEntry, handlers: XmlHandlers): Promise<void> {
  for await (const _ of parsePart(book, entry, handlers, () => [])) {
    /* parsed for the handlers' side effects */
  }
}

/** Excel writes characters XML cannot hold as _xHHHH_ (a line feed is _x000A_). */
const decodeEscapes = (text: string) =>
  text.includes("_x") ? text.replace(/_x([0-9A-Fa-f]{4})_/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))) : text;

/** The first sheet's part name and whether dates count from 1904, from the workbook and its relationships. */
async function findFirstSheet(book: Book, parts: Map<string, XlsxEntry>): Promise<{ sheet?: XlsxEntry; date1904: boolean }> {
  const workbookName = "xl/workbook.xml";
  const workbook = parts.get(workbookName);
  const sheetIds: string[] = [];
  let date1904 = false;
  if (workbook) {
    await readPart(book, workbook, {
      open(name, attributes) {
        if (name === "workbookPr") date1904 = attributes.date1904 === "1" || attributes.date1904 === "true";
        if (name === "sheet") {
          const id = Object.entries(attributes).find(([key]) => key.endsWith(":id"))?.[1];
          if (id) sheetIds.push(id);
        }
      },
    });
  }
  const targets = new Map<string, string>();
  const rels = parts.get("xl/_rels/workbook.xml.rels");
  if (rels) {
    await readPart(book, rels, {
      open(name, attributes) {
        if (name === "Relationship" && attributes.Id && attributes.Target && /\/worksheet$/.test(attributes.Type ?? "")) {
          const target = attributes.Target.replace(/\\/g, "/");
          targets.set(attributes.Id, target.startsWith("/") ? target.slice(1) : path.normalize(path.join("xl", target)));
        }
      },
    });
  }
  for (const id of sheetIds) {
    const target = targets.get(id);
    const sheet = target ? parts.get(target.toLowerCase()) : undefined;
    if (sheet) return { sheet, date1904 };
  }
  // No usable workbook listing: the first worksheet part in the zip, as a lenient reader would take it.
  const fallback = [...parts.entries()].find(([name]) => /^xl\/worksheets\/[^/]+\.xml$/.test(name));
  return { sheet: fallback?.[1], date1904 };
}

/** The shared-string table: each item's text, rich-text runs joined, phonetic hints left out. */
async function readSharedStrings(book: Book, entry: XlsxEntry | undefined): Promise<string[]> {
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
const BUILTIN_DATE_FORMATS = new Set([14, 15, 16, 17, 18, 19, 20, 21, 22, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 45, 46, 47, 50, 51, 52, 53, 54, 55, 56, 57, 58]);

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
async function readDateStyles(book: Book, entry: XlsxEntry | undefined): Promise<Set<number>> {
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
function serialToDate(serial: number, date1904: boolean): Date {
  return new Date(Math.round((serial - 25569 + (date1904 ? 1462 : 0)) * DAY_MS));
}

/**
 * The rows of the first sheet, in file order. Cells keep their type: text, a number, a boolean, a date (a number
 * styled as one), or null (empty, or an error such as #N/A). A formula gives its cached result and is never run.
 */
export async function* readFirstSheet(
  file: string,
  entries: XlsxEntry[],
  limits: { maxColumns: number; maxXmlRunBytes: number },
): AsyncGenerator<XlsxRow> {
  const book: Book = { file, maxXmlRunBytes: limits.maxXmlRunBytes };
  const { maxColumns } = limits;
  const parts = new Map(entries.map((entry) => [entry.name.replace(/^\//, "").toLowerCase(), entry]));
  const { sheet, date1904 } = await findFirstSheet(book, parts);
  if (!sheet) return;
  const shared = await readSharedStrings(book, parts.get("xl/sharedstrings.xml"));
  const dateStyles = await readDateStyles(book, parts.get("xl/styles.xml"));

  let rows: XlsxRow[] = [];
  let row: XlsxRow | null = null;
  let number = 0;
  let nextColumn = 0;
  // The cell being read.
  let column = -1;
  let type = "";
  let style = 0;
  let text = "";
  let collecting = false;
  let phonetic = 0;

  function cellValue(): XlsxValue {
    const raw = text;
    switch (type) {
      case "s":
        return shared[Number(raw)] ?? null;
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
          row.width++;
          break;
        case "v":
          collecting = column >= 0 && type !== "inlineStr";
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
            if (value !== null && value !== "") {
              while (row.values.length < column) row.values.push(null);
              row.values[column] = value;
            }
          }
          column = -1;
          break;
        case "row":
          if (row) rows.push(row);
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
}
