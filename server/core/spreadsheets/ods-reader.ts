import { serialToDate, XlsxFormatError, type XlsxValue } from "./xlsx-reader";
import { inflatedPart, partText, type ZipEntry } from "./zip";
import { XmlStream, XmlSyntaxError } from "./xml-stream";

/**
 * Reads an OpenDocument spreadsheet (.ods, written by LibreOffice and Google Sheets): every sheet is a
 * `table:table` of one part, content.xml, which streams through the XML parser (xml-stream.ts) from the zip,
 * inflated and counted by zip.ts (a lying directory or a gigabyte "cell" is refused as it is
 * met). Cells keep their type as LibreOffice reads them: numbers (float, percentage, currency) as numbers, dates as
 * dates, booleans (TRUE/FALSE or 1/0 by their style, as LibreOffice: OdsStyles), text; a time as the
 * text the file shows. A float whose style's data style is a date or a time (SheetJS 0.20 writes dates so) is the
 * date or the time LibreOffice shows, as a date cell or a time cell would be (OdsStyles.numberFormat). Paragraphs
 * of a cell are joined by line breaks, a tab inside one is dropped (as LibreOffice does); annotations (comments)
 * and cells covered by a merge are left out.
 *
 * ODS compresses runs of equal cells and rows into one element with a repeat count. LibreOffice ends every sheet
 * with a million empty rows of 1,024 empty cells written that way: empty repeats are never expanded. A repeated
 * cell with a value is expanded up to the columns read, a repeated row with values row by row; what the repeats
 * add is counted against `maxRepeatedChars`, so a few bytes cannot grow into gigabytes of text.
 */

export interface OdsLimits {
  maxColumns: number;
  maxXmlRunBytes: number;
  /** Characters one cell may hold (Excel's 32,767): a cell that grows past it is refused as it is read. */
  maxCellChars: number;
  /** Characters that repeated cells and rows may add to a sheet, beyond what the file spells out. */
  maxRepeatedChars: number;
  /** Rows a sheet may have (a value past this row is refused). */
  maxRows: number;
  /** Characters of style names held to tell which cells are booleans (a file of millions of styles is refused). */
  maxStyleChars: number;
}

export interface OdsRow {
  number: number;
  values: XlsxValue[];
  /** Cell elements the row wrote (repeats not expanded). */
  width: number;
  /** Columns of formulas without a value (no office:value-type), which LibreOffice computes on loading: decision 043. */
  computed?: number[];
}

/**
 * Why an .ods was refused: "repeat" (repeats grow too far), "cell" (a cell too long), "rows" (too many rows),
 * "styles" (too many styles to hold).
 */
export class OdsLimitError extends Error {
  constructor(readonly kind: "repeat" | "cell" | "rows" | "styles") {
    super(kind);
  }
}

export const ODS_MIME = "application/vnd.oasis.opendocument.spreadsheet";

/** A repeat count as written: a positive integer, at most 2^31 (more is nonsense; the limits refuse it anyway). */
function repeatOf(value: string | undefined): number {
  if (!value || !/^\d{1,10}$/.test(value)) return 1;
  return Math.max(1, Math.min(Number(value), 2 ** 31));
}

const localName = (name: string) => {
  const colon = name.indexOf(":");
  return colon < 0 ? name : name.slice(colon + 1);
};

/** The attribute with this local name, whatever its prefix (LibreOffice writes `office:value`). */
function attribute(attributes: Record<string, string>, name: string): string | undefined {
  for (const key in attributes) if (localName(key) === name) return attributes[key];
  return undefined;
}

/** "2024-03-15" or "2024-03-15T10:30:00.5" as a UTC date; null when it is not one. */
function parseDate(text: string): Date | null {
  const m = /^(-?\d{4,})-(\d\d)-(\d\d)(?:T(\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?)?/.exec(text.trim());
  if (!m) return null;
  const ms = m[7] ? Math.round(Number(m[7]) * 1000) : 0;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4] ?? 0), Number(m[5] ?? 0), Number(m[6] ?? 0), ms));
  // Date.UTC reads years 0-99 as 1900-1999.
  if (Number(m[1]) >= 0 && Number(m[1]) < 100) date.setUTCFullYear(Number(m[1]));
  return Number.isNaN(date.getTime()) ? null : date;
}

/** A time as the reader writes one: 07:05, 31:00 or 10:30:15 (seconds only when given). */
function clockText(negative: boolean, hours: number, minutes: number, seconds?: number): string {
  const two = (n: number) => String(n).padStart(2, "0");
  return `${negative ? "-" : ""}${two(hours)}:${two(minutes)}${seconds === undefined ? "" : `:${two(seconds)}`}`;
}

/** "PT10H30M00S" (a time or a duration) as 10:30 or 10:30:15, when the file shows no text for it. */
function timeText(value: string): string {
  const m = /^(-)?P(?:(\d+)D)?T?(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?$/.exec(value.trim());
  if (!m) return "";
  const hours = Number(m[2] ?? 0) * 24 + Number(m[3] ?? 0);
  const seconds = Math.round(Number(m[5] ?? 0));
  return clockText(m[1] === "-", hours, Number(m[4] ?? 0), seconds || undefined);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * A number of days in a time style as LibreOffice shows it: the time of day (hours wrap at 24, as its HH:MM), or,
 * for a style that does not truncate on overflow (its [HH]:MM), the hours elapsed; minutes and seconds cut, not
 * rounded (0.999999 shows 23:59); seconds when the style shows them.
 */
function numberTimeText(days: number, format: TimeFormat): string {
  let ms = Math.round(days * DAY_MS);
  if (!format.elapsed) ms = ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  const negative = ms < 0;
  ms = Math.abs(ms);
  return clockText(negative, Math.floor(ms / 3_600_000), Math.floor(ms / 60_000) % 60, format.seconds ? Math.floor(ms / 1000) % 60 : undefined);
}

/** A time data style: whether it shows seconds, and whether its hours run past 24 (truncate-on-overflow="false"). */
interface TimeFormat {
  seconds: boolean;
  elapsed: boolean;
}

/**
 * Which cells of value type boolean LibreOffice holds as TRUE/FALSE, and which as the number 1 or 0. It gives a
 * boolean cell the boolean format when the cell has a style (its own, its row's default, or its column's: a
 * table:table-column that names none counts as General, and so does a cell past the columns a sheet defines) whose
 * data style (its own or a parent's) is a number:boolean-style, or is General (none, one the file does not
 * define, or a number style of a bare number:number, as LibreOffice writes General); a cell with no style at all (what SheetJS writes: no columns, no style names) or with another format
 * (0.00, a date) keeps the number.
 * Checked against LibreOffice in test/core/spreadsheets/ods-reader.test.ts. Styles come from styles.xml (common ones, such as
 * "Default") and from content.xml's automatic styles, which precede the sheets; only their names are held,
 * counted against `maxStyleChars`.
 */
const DATA_STYLES = new Set(["boolean-style", "number-style", "currency-style", "percentage-style", "date-style", "time-style", "text-style"]);

export class OdsStyles {
  private cellStyles = new Map<string, { parent?: string; data?: string }>();
  private booleanData = new Set<string>();
  /** The other data styles (numbers, dates, percentages, currencies, times, text). */
  private otherData = new Set<string>();
  /** Of those, the dates (number:date-style) and the times (number:time-style). */
  private dateData = new Set<string>();
  private timeData = new Map<string, TimeFormat>();
  /** The number:time-style being read (whether it shows seconds is in its children). */
  private timeStyle: TimeFormat | null = null;
  private held = 0;
  /** Depth inside office:styles or office:automatic-styles. */
  private depth = 0;
  /** The number:number-style being read, while it may still be General (a bare number:number, as LibreOffice writes General). */
  private numberStyle: { name: string; general: boolean; number: boolean } | null = null;

  constructor(private readonly maxChars: number) {}

  private hold(...names: Array<string | undefined>) {
    for (const name of names) this.held += name?.length ?? 0;
    if (this.held > this.maxChars) throw new OdsLimitError("styles");
  }

  open(name: string, attributes: Record<string, string>) {
    if (name === "styles" || name === "automatic-styles") this.depth++;
    else if (this.depth === 0) return;
    else if (name === "style" && attribute(attributes, "family") === "table-cell") {
      const style = attribute(attributes, "name");
      if (style === undefined) return;
      const parent = attribute(attributes, "parent-style-name");
      const data = attribute(attributes, "data-style-name");
      this.hold(style, parent, data);
      this.cellStyles.set(style, { parent, data });
    } else if (DATA_STYLES.has(name)) {
      const style = attribute(attributes, "name");
      if (style === undefined) return;
      this.hold(style);
      if (name === "number-style") this.numberStyle = { name: style, general: true, number: false };
      else (name === "boolean-style" ? this.booleanData : this.otherData).add(style);
      if (name === "date-style") this.dateData.add(style);
      else if (name === "time-style") {
        this.timeStyle = { seconds: false, elapsed: attribute(attributes, "truncate-on-overflow") === "false" };
        this.timeData.set(style, this.timeStyle);
      }
    } else if (this.timeStyle) {
      if (name === "seconds") this.timeStyle.seconds = true;
    } else if (this.numberStyle) {
      // General is a number:number with no decimals set and nothing else; "0", "0.00", "# ##0" are not.
      const bare =
        name === "number" &&
        !this.numberStyle.number &&
        attribute(attributes, "decimal-places") === undefined &&
        attribute(attributes, "grouping") !== "true";
      if (bare) this.numberStyle.number = true;
      else this.numberStyle.general = false;
    }
  }

  close(name: string) {
    if ((name === "styles" || name === "automatic-styles") && this.depth > 0) this.depth--;
    if (name === "number-style" && this.numberStyle) {
      // A General number style is left out of otherData: a boolean cell of it is TRUE/FALSE.
      if (!(this.numberStyle.general && this.numberStyle.number)) this.otherData.add(this.numberStyle.name);
      this.numberStyle = null;
    }
    if (name === "time-style") this.timeStyle = null;
  }

  /** The data style of a cell style, its own or a parent's (undefined: none, which is General). */
  private dataStyle(name: string): string | undefined {
    // A few steps: real files nest two or three deep, and a loop of parents must end.
    for (let step = 0, style = this.cellStyles.get(name); style && step < 16; step++) {
      if (style.data !== undefined) return style.data;
      style = style.parent === undefined ? undefined : this.cellStyles.get(style.parent);
    }
    return undefined;
  }

  /** A boolean cell of this style (null: none at all) is TRUE/FALSE. */
  isBoolean(name: string | null): boolean {
    if (name === null) return false;
    const data = this.dataStyle(name);
    return data === undefined || this.booleanData.has(data) || !this.otherData.has(data);
  }

  /**
   * What a number of this cell style shows, by the same styles as isBoolean: "date" for a date data style, a time
   * data style's format, or null (a number).
   */
  numberFormat(name: string | null): "date" | TimeFormat | null {
    if (name === null) return null;
    const data = this.dataStyle(name);
    if (data === undefined) return null;
    if (this.dateData.has(data)) return "date";
    return this.timeData.get(data) ?? null;
  }
}

/** styles.xml (when the package has one) read into `styles`. */
async function readStylesPart(file: string, entries: ZipEntry[], limits: OdsLimits, styles: OdsStyles): Promise<void> {
  const part = entries.find((entry) => entry.name === "styles.xml");
  if (!part) return;
  const xml = new XmlStream({
    open: (name, attributes) => styles.open(localName(name), attributes),
    close: (name) => styles.close(localName(name)),
    text: () => {},
  });
  try {
    for await (const text of partText(file, part, limits.maxXmlRunBytes)) xml.write(text);
    xml.close();
  } catch (error) {
    throw error instanceof XmlSyntaxError ? new XlsxFormatError(error.message) : error;
  }
}

/**
 * Whether LibreOffice (or OpenOffice) wrote the file (meta.xml's meta:generator): it writes a formula whose result is
 * an empty text without a value type, as `IF(A2>0;"";"нет")`, which is no formula left uncomputed (decision 043).
 */
async function writtenByLibreOffice(file: string, entries: ZipEntry[], limits: OdsLimits): Promise<boolean> {
  const part = entries.find((entry) => entry.name === "meta.xml");
  if (!part || part.uncompressed > 1024 * 1024) return false;
  let generator = "";
  let inside = false;
  const xml = new XmlStream({
    open: (name) => (inside = localName(name) === "generator"),
    close: () => (inside = false),
    text: (text) => {
      if (inside) generator += text;
    },
  });
  try {
    for await (const text of partText(file, part, limits.maxXmlRunBytes)) xml.write(text);
    xml.close();
  } catch {
    return false;
  }
  return /^\s*(libreoffice|openoffice)/i.test(generator);
}

/**
 * The streaming parse of content.xml: sheets (tables) in order, each row handed to `onRow` with its sheet's index
 * and its repeat count, repeats not expanded. `wanted(table)` says whether a sheet's cells are read at all (the
 * others are only walked through).
 */
class ContentParser {
  /** Depth of table:table elements: a table inside a table (in a shape) is not a sheet. */
  private tableDepth = 0;
  table = -1;
  names: string[] = [];
  hasData: boolean[] = [];
  private reading = false;
  private rowNumber = 0;
  private row: { number: number; values: XlsxValue[]; width: number; repeat: number; style?: string; computed?: number[] } | null = null;
  private column = 0;
  /** The default cell styles of the sheet's first columns (up to maxColumns; "" when a column names none). */
  private columnStyles: string[] = [];
  // The cell being read.
  private inCell = false;
  private covered = false;
  private cellType = "";
  private cellAttributes: Record<string, string> = {};
  private cellRepeat = 1;
  private cellStyle: string | null = null;
  private paragraphs: string[] = [];
  private paragraph: string[] | null = null;
  private paragraphLength = 0;
  private cellLength = 0;
  /** Inside an annotation, a shape or another element whose text is not the cell's. */
  private skipDepth = 0;
  /** Characters the repeats of the current sheet add (rows and cells), and of the current row's cells. */
  private repeated = 0;
  private rowChars = 0;
  private spreadsheet = false;
  /**
   * Days from Excel's day 0 (30.12.1899, serialToDate's) to the document's null date (table:null-date, before the
   * sheets; LibreOffice counts a float shown as a date from it): 0 by default, 1,462 for 1904.
   */
  private nullDateDays = 0;

  constructor(
    private readonly limits: OdsLimits,
    private readonly wanted: (table: number) => boolean,
    private readonly onRow: (table: number, row: OdsRow, repeat: number) => void,
    private readonly onTableEnd: (table: number) => void,
    /** The styles, for the sheets that are read (null: only whether sheets hold data matters). */
    private readonly styles: OdsStyles | null,
  ) {}

  /** Characters that repeats added, checked against the limit. */
  addRepeated(chars: number) {
    this.repeated += chars;
    if (this.repeated > this.limits.maxRepeatedChars) throw new OdsLimitError("repeat");
  }

  get isSpreadsheet() {
    return this.spreadsheet;
  }

  open(name: string, attributes: Record<string, string>) {
    if (this.skipDepth) {
      this.skipDepth++;
      return;
    }
    if (this.tableDepth === 0) this.styles?.open(name, attributes);
    switch (name) {
      case "spreadsheet":
        this.spreadsheet = true;
        return;
      case "null-date": {
        const date = this.tableDepth === 0 ? parseDate(attribute(attributes, "date-value") ?? "") : null;
        if (date) this.nullDateDays = Math.round((date.getTime() - Date.UTC(1899, 11, 30)) / DAY_MS);
        return;
      }
      case "table":
        if (this.tableDepth++ === 0) {
          this.table++;
          this.names.push(attribute(attributes, "name") ?? "");
          this.hasData.push(false);
          this.reading = this.wanted(this.table);
          this.rowNumber = 0;
          this.repeated = 0;
          this.columnStyles = [];
        }
        return;
    }
    if (this.tableDepth !== 1) return;
    switch (name) {
      case "table-column": {
        const style = attribute(attributes, "default-cell-style-name");
        const repeat = Math.min(repeatOf(attribute(attributes, "number-columns-repeated")), this.limits.maxColumns);
        for (let i = 0; i < repeat && this.columnStyles.length < this.limits.maxColumns; i++) this.columnStyles.push(style ?? "");
        return;
      }
      case "table-row":
        this.row = {
          number: this.rowNumber + 1,
          values: [],
          width: 0,
          repeat: repeatOf(attribute(attributes, "number-rows-repeated")),
          style: attribute(attributes, "default-cell-style-name"),
        };
        this.column = 0;
        this.rowChars = 0;
        return;
      case "table-cell":
      case "covered-table-cell":
        if (!this.row) return;
        this.inCell = true;
        this.covered = name === "covered-table-cell";
        this.cellType = attribute(attributes, "value-type") ?? "";
        this.cellAttributes = attributes;
        this.cellRepeat = repeatOf(attribute(attributes, "number-columns-repeated"));
        // A cell that names no style has its row's default, or its column's; in a sheet without columns, none.
        this.cellStyle =
          attribute(attributes, "style-name") ?? this.row.style ?? this.columnStyles[this.column] ?? (this.columnStyles.length ? "" : null);
        this.paragraphs = [];
        this.cellLength = 0;
        this.row.width++;
        return;
      case "p":
      case "h":
        if (this.inCell) {
          this.paragraph = [];
          this.paragraphLength = 0;
        }
        return;
      case "s":
        if (this.paragraph) this.append(" ".repeat(Math.min(repeatOf(attribute(attributes, "c")), this.limits.maxCellChars + 1)));
        return;
      case "tab":
        // LibreOffice drops a tab inside a cell: it holds «тесттаб» for тест<text:tab/>таб (seen in its own export).
        return;
      case "line-break":
        if (this.paragraph) this.append("\n");
        return;
      case "annotation":
      case "annotation-end":
      case "note":
      case "frame":
      case "custom-shape":
      case "rect":
      case "line":
      case "g":
      case "ellipse":
      case "control":
      case "image":
      case "ruby-text":
        if (this.inCell) this.skipDepth = 1;
        return;
    }
  }

  close(name: string) {
    if (this.skipDepth) {
      this.skipDepth--;
      return;
    }
    if (this.tableDepth === 0) this.styles?.close(name);
    if (name === "table") {
      if (--this.tableDepth === 0) {
        this.onTableEnd(this.table);
        this.reading = false;
      }
      return;
    }
    if (this.tableDepth !== 1) return;
    switch (name) {
      case "p":
      case "h":
        if (this.paragraph) {
          this.paragraphs.push(this.paragraph.join(""));
          this.cellLength += this.paragraphs.length > 1 ? 1 : 0;
          this.paragraph = null;
        }
        return;
      case "table-cell":
      case "covered-table-cell":
        if (this.inCell && this.row) this.endCell(this.row);
        this.inCell = false;
        return;
      case "table-row":
        if (this.row) {
          const { repeat, ...row } = this.row;
          this.rowNumber += repeat;
          if (row.values.length) {
            this.hasData[this.table] = true;
            if (row.number + repeat - 1 > this.limits.maxRows) throw new OdsLimitError("rows");
            // Counted whether or not the sheet is read: the preview's pass over every sheet refuses a bomb too.
            if (repeat > 1) this.addRepeated((repeat - 1) * this.rowChars);
          }
          if (this.reading) this.onRow(this.table, row, repeat);
        }
        this.row = null;
        return;
    }
  }

  text(text: string) {
    if (this.paragraph && !this.skipDepth) this.append(text);
  }

  private append(text: string) {
    this.paragraph!.push(text);
    this.cellLength += text.length;
    if (this.cellLength > this.limits.maxCellChars) throw new OdsLimitError("cell");
  }

  private endCell(row: { values: XlsxValue[]; computed?: number[] }) {
    const start = this.column;
    this.column += this.cellRepeat;
    if (this.covered) return;
    // A formula the file holds no value for (no value type): LibreOffice computes it, we cannot (decision 043).
    if (this.reading && !this.cellType && attribute(this.cellAttributes, "formula") !== undefined) {
      for (let c = start; c < Math.min(this.column, this.limits.maxColumns); c++) (row.computed ??= []).push(c);
    }
    const value = this.cellValue();
    if (value === null || value === "") return;
    const end = Math.min(this.column, this.limits.maxColumns);
    const length = typeof value === "string" ? value.length : 12;
    this.rowChars += Math.max(0, end - start) * length;
    if (end - start > 1) this.addRepeated((end - start - 1) * length);
    if (!this.reading) {
      // Only whether the sheet has data matters here.
      row.values.length = 1;
      return;
    }
    if (start >= end) return;
    while (row.values.length < start) row.values.push(null);
    for (let c = start; c < end; c++) row.values[c] = value;
  }

  /** The cell's value as LibreOffice reads it. */
  private cellValue(): XlsxValue {
    const text = this.paragraphs.join("\n");
    const a = this.cellAttributes;
    // An error of a formula (#DIV/0!, Err:502), marked in LibreOffice's own namespace: empty, as in an .xlsx.
    if (a["calcext:value-type"] === "error") return null;
    switch (this.cellType) {
      case "float":
      case "percentage":
      case "currency": {
        const raw = attribute(a, "value");
        const number = raw === undefined ? NaN : Number(raw);
        if (!Number.isFinite(number) || raw!.trim() === "") return text;
        // A float in a date or time format (SheetJS 0.20 writes its dates so, where LibreOffice writes a date or a
        // time cell): LibreOffice shows the date or the time. A date as a date cell (the .xlsx rule: serialToDate,
        // counted from the document's null date), a time as the text LibreOffice shows (and writes in a time cell).
        const format = this.cellType === "float" ? (this.styles?.numberFormat(this.cellStyle) ?? null) : null;
        if (format === "date") {
          const date = serialToDate(number + this.nullDateDays, false);
          return Number.isNaN(date.getTime()) ? number : date;
        }
        return format ? numberTimeText(number, format) : number;
      }
      case "date": {
        const raw = attribute(a, "date-value");
        return (raw && parseDate(raw)) || text;
      }
      case "time":
        return text || timeText(attribute(a, "time-value") ?? "");
      case "boolean": {
        const raw = attribute(a, "boolean-value");
        if (raw === undefined) return text;
        const value = raw.trim() === "true" || raw.trim() === "1";
        // TRUE/FALSE only with a boolean or General style (OdsStyles); otherwise LibreOffice holds the number 1 or 0.
        // A formula's boolean result without any style is TRUE/FALSE: LibreOffice gives the cell the format of its
        // result's type (decision 040).
        if (this.cellStyle === null && attribute(a, "formula") !== undefined) return value;
        return this.styles?.isBoolean(this.cellStyle) ? value : Number(value);
      }
      case "string":
        return attribute(a, "string-value") ?? text;
      default:
        return text;
    }
  }
}

/** content.xml streamed through the parser; the parser's rows are handed out after each chunk. */
async function* streamContent(
  file: string,
  content: ZipEntry,
  limits: OdsLimits,
  wanted: (table: number) => boolean,
  stopAfter: (table: number) => boolean,
  styles: OdsStyles | null,
): AsyncGenerator<{ table: number; row: OdsRow; repeat: number }, ContentParser> {
  let out: Array<{ table: number; row: OdsRow; repeat: number }> = [];
  // Asked once the chunk's rows are taken: the answer may depend on them.
  const ended: number[] = [];
  const parser = new ContentParser(
    limits,
    wanted,
    (table, row, repeat) => out.push({ table, row, repeat }),
    (table) => ended.push(table),
    styles,
  );
  const xml = new XmlStream({
    open: (name, attributes) => parser.open(localName(name), attributes),
    close: (name) => parser.close(localName(name)),
    text: (text) => parser.text(text),
  });
  try {
    for await (const text of partText(file, content, limits.maxXmlRunBytes)) {
      xml.write(text);
      const done = out;
      out = [];
      yield* done;
      if (ended.some(stopAfter)) return parser;
    }
    xml.close();
  } catch (error) {
    throw error instanceof XmlSyntaxError ? new XlsxFormatError(error.message) : error;
  }
  yield* out;
  if (!parser.isSpreadsheet) throw new XlsxFormatError("not a spreadsheet");
  return parser;
}

/** The mimetype entry, when the package has one, must say spreadsheet (not a text document or a drawing). */
export async function checkOdsMime(file: string, entries: ZipEntry[]): Promise<boolean> {
  const mime = entries.find((entry) => entry.name === "mimetype");
  if (!mime) return true;
  if (mime.uncompressed > 200) return false;
  const chunks: Buffer[] = [];
  for await (const chunk of inflatedPart(file, mime, 200)) chunks.push(chunk);
  const type = Buffer.concat(chunks).toString("utf8").trim();
  return type === ODS_MIME || type === `${ODS_MIME}-template`;
}

/**
 * Whether the package is saved with a password: its manifest then gives the parts' encryption (an
 * `encryption-data` element), and content.xml is ciphertext that no XML parser could read. The manifest lists a
 * few dozen parts: one larger than a megabyte is no manifest LibreOffice wrote, and is read no further than that.
 */
export async function isEncryptedOds(file: string, entries: ZipEntry[]): Promise<boolean> {
  const manifest = entries.find((entry) => entry.name === "META-INF/manifest.xml");
  if (!manifest) return false;
  let text = "";
  for await (const chunk of inflatedPart(file, manifest, 1024 * 1024)) {
    text += chunk.toString("utf8");
    if (/<(?:[\w.-]+:)?encryption-data[\s/>]/.test(text)) return true;
    if (text.length > 1024 * 1024) return false;
  }
  return false;
}

/** The sheets' names in tab order and whether each holds a value: one pass over content.xml. */
export async function odsSheets(file: string, entries: ZipEntry[], limits: OdsLimits): Promise<{ names: string[]; hasData: boolean[] }> {
  const content = entries.find((entry) => entry.name === "content.xml");
  if (!content) throw new XlsxFormatError("no content.xml");
  const stream = streamContent(
    file,
    content,
    limits,
    () => false,
    () => false,
    null,
  );
  let next = await stream.next();
  while (!next.done) next = await stream.next();
  return { names: next.value.names, hasData: next.value.hasData };
}

/**
 * The rows of sheet `sheet` (0 = the first), repeats expanded; with `orFirstWithData`, when that sheet holds no
 * value the next sheet that does (read in the same pass). `onSheet` is told which sheet the rows are from before
 * the first row with a value, or at the end when none has one.
 */
export async function* readOdsSheet(
  file: string,
  entries: ZipEntry[],
  limits: OdsLimits,
  sheet: number,
  orFirstWithData: boolean,
  onSheet: (index: number) => void,
): AsyncGenerator<OdsRow> {
  const content = entries.find((entry) => entry.name === "content.xml");
  if (!content) throw new XlsxFormatError("no content.xml");
  let chosen = -1;
  const styles = new OdsStyles(limits.maxStyleChars);
  await readStylesPart(file, entries, limits, styles);
  const emptyTextsHeld = await writtenByLibreOffice(file, entries, limits);
  const stream = streamContent(
    file,
    content,
    limits,
    (table) => table === sheet || (orFirstWithData && chosen < 0 && table > sheet),
    // Done at the end of the chosen sheet, or of the asked one when it has data or another may not be taken.
    (table) => table === chosen || (table === sheet && !orFirstWithData),
    styles,
  );
  for (let next = await stream.next(); !next.done; next = await stream.next()) {
    const { table, row, repeat } = next.value;
    if (chosen >= 0 && table !== chosen) break;
    if (emptyTextsHeld) delete row.computed;
    if (!row.values.length) {
      // Empty rows, repeated or not, come once: the reader counts them, and a million of them cost nothing.
      yield row;
      continue;
    }
    if (chosen < 0) {
      chosen = table;
      onSheet(table);
    }
    yield row;
    // The parser has counted what the copies add against the limits.
    for (let i = 1; i < repeat; i++)
      yield { number: row.number + i, values: row.values, width: row.width, ...(row.computed ? { computed: row.computed } : {}) };
  }
  if (chosen < 0) onSheet(sheet);
}
