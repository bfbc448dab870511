import { once } from "node:events";
import fs from "node:fs";
import zlib from "node:zlib";
import ExcelJS from "exceljs";
import * as XLSX from "xlsx";

export type Cell = string | number | boolean | Date | null | undefined;

/** A real .xlsx (exceljs), first sheet holding these rows; numbers stay numeric cells, strings text cells. */
export async function buildXlsx(rows: Cell[][], sheetName = "Лист1"): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet(sheetName);
  for (const row of rows) sheet.addRow(row.map((cell) => (cell === undefined ? null : cell)));
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** A real legacy .xls (BIFF8, through the xlsx package). */
export function buildXls(rows: Cell[][], sheetName = "Лист1"): Buffer {
  const workbook = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(workbook, XLSX.utils.aoa_to_sheet(rows.map((row) => row.map((c) => c ?? null))), sheetName);
  return XLSX.write(workbook, { bookType: "biff8", type: "buffer" }) as Buffer;
}

/** Reads an .xlsx back: the first sheet's rows as arrays of cell values, empty cells as "", all as wide as the sheet. */
export async function readXlsx(data: Buffer): Promise<unknown[][]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(data as unknown as ArrayBuffer);
  const rows: unknown[][] = [];
  const sheet = workbook.worksheets[0];
  const width = sheet.columnCount;
  sheet.eachRow((row) => {
    rows.push(Array.from({ length: width }, (_, i) => row.getCell(i + 1).value ?? ""));
  });
  return rows;
}

/**
 * A stored (uncompressed) zip built by hand. `declaredSize` lets an entry lie about its unpacked size, as a zip
 * bomb's directory does.
 */
export function buildZip(entries: Array<{ name: string; data: Buffer | string; declaredSize?: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data);
    const name = Buffer.from(entry.name);
    const crc = zlib.crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, data);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(entry.declaredSize ?? data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** An .xlsx as exceljs' streaming writer makes it (inline strings, the sheet first in the zip), as big exports are. */
export async function buildXlsxStreamed(rows: Cell[][]): Promise<Buffer> {
  const { PassThrough } = await import("node:stream");
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise((resolve) => stream.on("end", resolve));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet("Лист1");
  for (const row of rows) sheet.addRow(row).commit();
  sheet.commit();
  await workbook.commit();
  await done;
  return Buffer.concat(chunks);
}

/** One entry of a zip written by `writeZipFile`: its content comes in chunks, so a gigabyte never sits in memory. */
export interface StreamedEntry {
  name: string;
  chunks: () => Iterable<Buffer | string>;
  /** The uncompressed size the central directory claims (a lying zip bomb); the real one by default. */
  declaredSize?: number;
  /** The compression method written in the headers (the data is deflated whatever it says); 8 by default. */
  method?: number;
  /** zlib level; 1 (fast) by default. */
  level?: number;
}

/**
 * Writes a deflated zip to a file entry by entry, chunk by chunk (local headers with a data descriptor, as
 * streaming writers do). Returns the file's size.
 */
export async function writeZipFile(path: string, entries: StreamedEntry[]): Promise<number> {
  const fd = fs.openSync(path, "w");
  let offset = 0;
  const write = (buffer: Buffer) => {
    fs.writeSync(fd, buffer);
    offset += buffer.length;
  };
  const centrals: Buffer[] = [];
  try {
    for (const entry of entries) {
      const name = Buffer.from(entry.name);
      const method = entry.method ?? 8;
      const localOffset = offset;
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(0x0808, 6); // data descriptor follows; UTF-8 names
      local.writeUInt16LE(method, 8);
      local.writeUInt16LE(name.length, 26);
      write(local);
      write(name);
      let crc = 0;
      let size = 0;
      let compressed = 0;
      const deflate = zlib.createDeflateRaw({ level: entry.level ?? 1 });
      deflate.on("data", (chunk: Buffer) => {
        compressed += chunk.length;
        write(chunk);
      });
      const ended = once(deflate, "end");
      for (const piece of entry.chunks()) {
        const buffer = Buffer.isBuffer(piece) ? piece : Buffer.from(piece);
        crc = zlib.crc32(buffer, crc);
        size += buffer.length;
        if (!deflate.write(buffer)) await once(deflate, "drain");
      }
      deflate.end();
      await ended;
      const descriptor = Buffer.alloc(16);
      descriptor.writeUInt32LE(0x08074b50, 0);
      descriptor.writeUInt32LE(crc, 4);
      descriptor.writeUInt32LE(compressed, 8);
      descriptor.writeUInt32LE(size % 2 ** 32, 12);
      write(descriptor);
      const central = Buffer.alloc(46);
      central.writeUInt32LE(0x02014b50, 0);
      central.writeUInt16LE(20, 4);
      central.writeUInt16LE(20, 6);
      central.writeUInt16LE(0x0808, 8);
      central.writeUInt16LE(method, 10);
      central.writeUInt32LE(crc, 16);
      central.writeUInt32LE(compressed, 20);
      central.writeUInt32LE(entry.declaredSize ?? size % 2 ** 32, 24);
      central.writeUInt16LE(name.length, 28);
      central.writeUInt32LE(localOffset, 42);
      centrals.push(central, name);
    }
    const dir = Buffer.concat(centrals);
    const dirOffset = offset;
    write(dir);
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(entries.length, 8);
    end.writeUInt16LE(entries.length, 10);
    end.writeUInt32LE(dir.length, 12);
    end.writeUInt32LE(dirOffset, 16);
    write(end);
    return offset;
  } finally {
    fs.closeSync(fd);
  }
}

const MAIN_NS = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships";

/** Inline-string cell XML (text escaped). */
export function inlineCell(ref: string, text: string): string {
  const escaped = text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return `<c r="${ref}" t="inlineStr"><is><t>${escaped}</t></is></c>`;
}

/**
 * The parts of a minimal .xlsx around a hand-written first sheet (and, optionally, a shared-string table), each
 * as a StreamedEntry for `writeZipFile`. `sheet` yields the XML inside <sheetData>; `dimension` is what the sheet
 * claims its used range is.
 */
export function workbookEntries(options: {
  sheet: () => Iterable<Buffer | string>;
  dimension?: string;
  sharedStrings?: () => Iterable<Buffer | string>;
  sheetDeclaredSize?: number;
  sharedStringsDeclaredSize?: number;
  /** The whole of xl/styles.xml. */
  styles?: string;
}): StreamedEntry[] {
  const fixed = (text: string) => () => [text];
  const entries: StreamedEntry[] = [
    {
      name: "[Content_Types].xml",
      chunks: fixed(
        `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
      ),
    },
    {
      name: "_rels/.rels",
      chunks: fixed(
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/workbook.xml",
      chunks: fixed(
        `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN_NS}" xmlns:r="${REL_NS}"><sheets><sheet name="Лист1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      chunks: fixed(
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL_NS}"><Relationship Id="rId1" Type="${REL_NS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL_NS}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ),
    },
  ];
  if (options.sharedStrings) {
    const strings = options.sharedStrings;
    entries.push({
      name: "xl/sharedStrings.xml",
      declaredSize: options.sharedStringsDeclaredSize,
      *chunks() {
        yield `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${MAIN_NS}">`;
        yield* strings();
        yield "</sst>";
      },
    });
  }
  if (options.styles) entries.push({ name: "xl/styles.xml", chunks: fixed(options.styles) });
  const sheet = options.sheet;
  entries.push({
    name: "xl/worksheets/sheet1.xml",
    declaredSize: options.sheetDeclaredSize,
    *chunks() {
      yield `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN_NS}"><dimension ref="${options.dimension ?? "A1"}"/><sheetData>`;
      yield* sheet();
      yield "</sheetData></worksheet>";
    },
  });
  return entries;
}
