import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { xorObfuscationKeys } from "../../server/core/spreadsheets/xls-file";

/** The OLE container writer inside the `xlsx` package (its CommonJS exports: the ES module view leaves CFB out). */
const { CFB } = createRequire(import.meta.url)("xlsx") as typeof import("xlsx");

/**
 * A small writer of legacy .xls workbooks (BIFF8, Excel 97-2003, and BIFF5, Excel 5.0/95), record by record, for the
 * differential test's hand-built .xls variants (sheet-xls-variants.ts): what other programs than Excel write into an
 * .xls (formulas with their cached results and the STRING record that follows a text result, shared and array
 * formulas, text split over CONTINUE records, inline LABEL cells, RK and MULRK numbers, BIFF5 text in a code page,
 * RC4 encryption). Every file is read by LibreOffice too, which is the judge of whether the writer got it right.
 * Written from [MS-XLS] and [MS-OFFCRYPTO]; nothing here is copied from another program.
 */

export type Biff = 5 | 8;

const u8 = (n: number) => Buffer.from([n & 0xff]);
const u16 = (n: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n & 0xffff);
  return b;
};
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
const f64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeDoubleLE(n);
  return b;
};

/** Single-byte code pages, as a map from character to byte (made by decoding every byte). */
const codePages = new Map<number, Map<string, number>>();
function codePage(codepage: number): Map<string, number> {
  let map = codePages.get(codepage);
  if (!map) {
    const decoder = new TextDecoder(`windows-${codepage}`);
    map = new Map();
    for (let byte = 255; byte >= 0; byte--) map.set(decoder.decode(Uint8Array.of(byte)), byte);
    codePages.set(codepage, map);
  }
  return map;
}

/** Text as BIFF5 writes it: bytes of the workbook's code page. */
export function codePageBytes(text: string, codepage: number): Buffer {
  const map = codePage(codepage);
  return Buffer.from([...text].map((char) => map.get(char) ?? 0x3f));
}

/** BIFF8 characters: one byte each when every one is below 256 (the "compressed" form), else UTF-16LE. */
function chars8(text: string, wide = /[^\u0000-\u00ff]/.test(text)): { flag: number; data: Buffer } {
  return wide ? { flag: 1, data: Buffer.from(text, "utf16le") } : { flag: 0, data: Buffer.from(text, "latin1") };
}

export class BiffWriter {
  constructor(
    readonly biff: Biff,
    /** The code page of BIFF5 text (CODEPAGE record); BIFF8 text is Unicode. */
    readonly codepage = 1251,
  ) {}

  /** A string with a 16-bit (LABEL, STRING, FORMAT) or 8-bit (sheet and font names, formula constants) length. */
  string(text: string, lengthBytes: 1 | 2): Buffer {
    const length = lengthBytes === 1 ? u8 : u16;
    if (this.biff === 5) {
      const data = codePageBytes(text, this.codepage);
      return Buffer.concat([length(data.length), data]);
    }
    const { flag, data } = chars8(text);
    return Buffer.concat([length(text.length), u8(flag), data]);
  }

  /** The formula tokens ([MS-XLS] 2.5.198), in reverse Polish order as a formula stores them. */
  get ptg() {
    const biff = this.biff;
    const ref = (r: number, c: number) => (biff === 8 ? Buffer.concat([u16(r), u16(c | 0xc000)]) : Buffer.concat([u16(r | 0xc000), u8(c)]));
    return {
      int: (n: number) => Buffer.concat([u8(0x1e), u16(n)]),
      num: (n: number) => Buffer.concat([u8(0x1f), f64(n)]),
      str: (text: string) => Buffer.concat([u8(0x17), this.string(text, 1)]),
      bool: (value: boolean) => Buffer.from([0x1d, value ? 1 : 0]),
      /** A cell of the same sheet, relative (value class). */
      ref: (r: number, c: number) => Buffer.concat([u8(0x44), ref(r, c)]),
      /** A relative cell in a shared formula: offsets from the cell the formula is in. */
      refN: (dr: number, dc: number) =>
        biff === 8 ? Buffer.concat([u8(0x4c), u16(dr), u16((dc & 0xff) | 0xc000)]) : Buffer.concat([u8(0x4c), u16((dr & 0x3fff) | 0xc000), u8(dc)]),
      area: (r1: number, c1: number, r2: number, c2: number) =>
        biff === 8
          ? Buffer.concat([u8(0x25), u16(r1), u16(r2), u16(c1 | 0xc000), u16(c2 | 0xc000)])
          : Buffer.concat([u8(0x25), u16(r1 | 0xc000), u16(r2 | 0xc000), u8(c1), u8(c2)]),
      add: Buffer.from([0x03]),
      mul: Buffer.from([0x05]),
      div: Buffer.from([0x06]),
      concat: Buffer.from([0x08]),
      gt: Buffer.from([0x0d]),
      eq: Buffer.from([0x0b]),
      /** A function of a fixed number of arguments, by its number in Excel's table (Ftab). */
      func: (id: number) => Buffer.concat([u8(0x41), u16(id)]),
      /** A function of a variable number of arguments. */
      funcVar: (args: number, id: number) => Buffer.concat([u8(0x42), u8(args), u16(id)]),
      /** The first cell of a shared or array formula (in the FORMULA record of every cell it covers). */
      exp: (r: number, c: number) => Buffer.concat([u8(0x01), u16(r), u16(c)]),
    };
  }
}

/** Excel's function numbers ([MS-XLS] 2.5.198.17) of the functions the variants use. */
export const FN = { IF: 1, SUM: 4, NA: 10, ROUND: 27, REPT: 30, VALUE: 33, TRUE: 34, TEXT: 48, DATE: 65, UPPER: 113, LEFT: 115, CONCATENATE: 336 };

/** A cached formula result as the FORMULA record holds it. */
export type FormulaResult = number | string | boolean | { error: number } | { emptyString: true };

/** One record: its type and data; `plain` bytes at the start of its data stay unencrypted (the whole record when true). */
interface BiffRecord {
  type: number;
  data: Buffer;
  plain?: number | true;
}

const MAX_RECORD = 8224;

export interface BiffSheet {
  name: string;
  /** Records between the sheet's DIMENSIONS and its EOF (cells, and whatever else a writer puts there). */
  records: BiffRecord[];
  hidden?: boolean;
  /** The DIMENSIONS record (first row, last row + 1, first column, last column + 1); none when null. */
  dimensions?: [number, number, number, number] | null;
}

export interface BiffBook {
  biff: Biff;
  sheets: BiffSheet[];
  /** BIFF5: the CODEPAGE record's value (none written when null); BIFF8 writes 1200. */
  codepage?: number | null;
  /** The fonts' character set (FONT.bCharSet): 204 is Cyrillic, which is what a Russian Excel writes. */
  fontCharset?: number;
  date1904?: boolean;
  /** Custom number formats (FORMAT records), by index (164 and up). */
  formats?: Array<[number, string]>;
  /** Shared strings (BIFF8 SST), each with an optional list of formatting runs [first char, font]. */
  sst?: Array<string | { text: string; runs: Array<[number, number]> }>;
  /** RC4 encryption with this password (Excel's default "VelvetSweatshop" is what a structure-protected workbook uses). */
  encryption?: {
    /** RC4 or RC4 CryptoAPI (BIFF8), or the XOR obfuscation of Excel 95 (BIFF5; BIFF8 too). */
    kind: "rc4" | "rc4-cryptoapi" | "xor";
    password: string;
    /**
     * RC4 CryptoAPI's key size: 128 bits (what Excel 2003 and later, and LibreOffice, write), or 40 (Excel 2002's
     * default, its "export" strength; the key's 5 bytes padded with 11 zero bytes, [MS-OFFCRYPTO] 2.3.5.2).
     */
    keyBits?: 40 | 128;
  };
}

/**
 * Cell XFs the records may name: 15 General, 16 dd.mm.yyyy (built-in 14), 17 date and time (built-in 22), 18 the
 * first custom format (164), 19 "0.00" (built-in 2).
 */
export const XF = { general: 15, date: 16, dateTime: 17, custom: 18, fixed2: 19 };

/** The records of a cell, of every kind an .xls holds. */
export class Cells {
  readonly w: BiffWriter;
  constructor(
    readonly biff: Biff,
    codepage = 1251,
  ) {
    this.w = new BiffWriter(biff, codepage);
  }
  private head(r: number, c: number, xf: number) {
    return Buffer.concat([u16(r), u16(c), u16(xf)]);
  }
  number(r: number, c: number, value: number, xf = XF.general): BiffRecord {
    return { type: 0x0203, data: Buffer.concat([this.head(r, c, xf), f64(value)]) };
  }
  /** An RK number: an integer, or a number of cents, in 30 bits (or a float whose low 34 bits are zero). */
  rk(r: number, c: number, value: number, xf = XF.general): BiffRecord {
    return { type: 0x027e, data: Buffer.concat([this.head(r, c, xf), u32(rkValue(value))]) };
  }
  /** Several RK numbers of a row, side by side. */
  mulrk(r: number, c: number, values: number[], xf = XF.general): BiffRecord {
    return {
      type: 0x00bd,
      data: Buffer.concat([u16(r), u16(c), ...values.flatMap((value) => [u16(xf), u32(rkValue(value))]), u16(c + values.length - 1)]),
    };
  }
  /** Text in the cell record itself (BIFF5's way; a BIFF8 writer may still use it). */
  label(r: number, c: number, text: string, xf = XF.general): BiffRecord {
    return { type: 0x0204, data: Buffer.concat([this.head(r, c, xf), this.w.string(text, 2)]) };
  }
  /** BIFF5 rich text: the text and its formatting runs (character, font). */
  rstring(r: number, c: number, text: string, runs: Array<[number, number]>, xf = XF.general): BiffRecord {
    return {
      type: 0x00d6,
      data: Buffer.concat([this.head(r, c, xf), this.w.string(text, 2), u8(runs.length), ...runs.flatMap(([at, font]) => [u8(at), u8(font)])]),
    };
  }
  labelSst(r: number, c: number, index: number, xf = XF.general): BiffRecord {
    return { type: 0x00fd, data: Buffer.concat([this.head(r, c, xf), u32(index)]) };
  }
  bool(r: number, c: number, value: boolean, xf = XF.general): BiffRecord {
    return { type: 0x0205, data: Buffer.concat([this.head(r, c, xf), u8(value ? 1 : 0), u8(0)]) };
  }
  error(r: number, c: number, code: number, xf = XF.general): BiffRecord {
    return { type: 0x0205, data: Buffer.concat([this.head(r, c, xf), u8(code), u8(1)]) };
  }
  blank(r: number, c: number, xf = XF.general): BiffRecord {
    return { type: 0x0201, data: this.head(r, c, xf) };
  }
  /**
   * A formula: its FORMULA record with the cached result, then (for a shared or array formula's first cell) the
   * SHRFMLA or ARRAY record, then for a text result the STRING record with the text, continued over CONTINUE
   * records past 8,224 bytes as Excel does (each continuation starts with its own one-byte/two-byte flag).
   */
  formula(
    r: number,
    c: number,
    tokens: Buffer[],
    result: FormulaResult,
    options: { xf?: number; flags?: number; after?: BiffRecord[]; stringRecord?: boolean } = {},
  ): BiffRecord[] {
    const rgce = Buffer.concat(tokens);
    const value =
      typeof result === "number"
        ? f64(result)
        : typeof result === "string"
          ? Buffer.from([0x00, 0, 0, 0, 0, 0, 0xff, 0xff])
          : typeof result === "boolean"
            ? Buffer.from([0x01, 0, result ? 1 : 0, 0, 0, 0, 0xff, 0xff])
            : "error" in result
              ? Buffer.from([0x02, 0, result.error, 0, 0, 0, 0xff, 0xff])
              : Buffer.from([0x03, 0, 0, 0, 0, 0, 0xff, 0xff]);
    const records: BiffRecord[] = [
      {
        type: 0x0006,
        data: Buffer.concat([this.head(r, c, options.xf ?? XF.general), value, u16(options.flags ?? 0), u32(0), u16(rgce.length), rgce]),
      },
      ...(options.after ?? []),
    ];
    if (typeof result === "string" && options.stringRecord !== false) records.push(...this.stringRecord(result));
    return records;
  }
  /** A shared formula's SHRFMLA record: the range it covers and its tokens (relative ones as refN). */
  shared(r1: number, r2: number, c1: number, c2: number, tokens: Buffer[]): BiffRecord {
    const rgce = Buffer.concat(tokens);
    return { type: 0x04bc, data: Buffer.concat([u16(r1), u16(r2), u8(c1), u8(c2), u8(0), u8(r2 - r1 + 1), u16(rgce.length), rgce]) };
  }
  /** An array formula's ARRAY record. */
  array(r1: number, r2: number, c1: number, c2: number, tokens: Buffer[]): BiffRecord {
    const rgce = Buffer.concat(tokens);
    return { type: 0x0221, data: Buffer.concat([u16(r1), u16(r2), u8(c1), u8(c2), u16(0), u32(0), u16(rgce.length), rgce]) };
  }
  stringRecord(text: string): BiffRecord[] {
    if (this.biff === 5) return [{ type: 0x0207, data: this.w.string(text, 2) }];
    const wide = /[^\u0000-\u00ff]/.test(text);
    const records: BiffRecord[] = [];
    let rest = text;
    let head = Buffer.concat([u16(text.length)]);
    let type = 0x0207;
    while (rest.length || !records.length) {
      const room = Math.floor((MAX_RECORD - head.length - 1) / (wide ? 2 : 1));
      const part = rest.slice(0, room);
      rest = rest.slice(part.length);
      const { flag, data } = chars8(part, wide);
      records.push({ type, data: Buffer.concat([head, u8(flag), data]) });
      head = Buffer.alloc(0);
      type = 0x003c;
    }
    return records;
  }
}

/** An integer as an RK value (30 bits, shifted, with the integer flag), or a float's high 30 bits when exact. */
function rkValue(value: number): number {
  if (Number.isInteger(value) && value >= -(2 ** 29) && value < 2 ** 29) return ((value << 2) | 2) >>> 0;
  if (Number.isInteger(value * 100) && Math.abs(value * 100) < 2 ** 29) return (((value * 100) << 2) | 3) >>> 0;
  const bytes = f64(value);
  if (bytes.readUInt32LE(0) !== 0 || (bytes.readUInt32LE(4) & 3) !== 0) throw new Error(`${value} is not an RK number`);
  return bytes.readUInt32LE(4);
}

/** The SST record and its CONTINUE records: a string's characters go on in the next record behind a fresh flag byte. */
function sstRecords(strings: NonNullable<BiffBook["sst"]>): BiffRecord[] {
  const total = strings.length;
  const records: Buffer[][] = [[u32(total), u32(total)]];
  let size = 8;
  const room = () => MAX_RECORD - size;
  const next = () => {
    records.push([]);
    size = 0;
  };
  const put = (data: Buffer) => {
    records[records.length - 1].push(data);
    size += data.length;
  };
  for (const item of strings) {
    const { text, runs } = typeof item === "string" ? { text: item, runs: [] as Array<[number, number]> } : item;
    const wide = /[^\u0000-\u00ff]/.test(text);
    const header = Buffer.concat([u16(text.length), u8((wide ? 1 : 0) | (runs.length ? 8 : 0)), ...(runs.length ? [u16(runs.length)] : [])]);
    // The header never splits; at least one character follows it in the same record.
    if (room() < header.length + (wide ? 2 : 1)) next();
    put(header);
    let rest = text;
    let first = true;
    while (rest.length) {
      // Each continuation of the characters says again whether they are one byte or two: Excel writes each part in
      // the narrowest form it fits.
      if (!first) next();
      const flagBytes = first ? 0 : 1;
      const narrow = rest.slice(0, room() - flagBytes);
      const partWide = first ? wide : /[^\u0000-\u00ff]/.test(narrow);
      const part = partWide ? rest.slice(0, Math.floor((room() - flagBytes) / 2)) : narrow;
      if (!first) put(u8(partWide ? 1 : 0));
      put(chars8(part, partWide).data);
      rest = rest.slice(part.length);
      first = false;
    }
    for (const [at, font] of runs) {
      if (room() < 4) next();
      put(Buffer.concat([u16(at), u16(font)]));
    }
  }
  return records.map((parts, i) => ({ type: i === 0 ? 0x00fc : 0x003c, data: Buffer.concat(parts) }));
}

function fontRecord(biff: Biff, charset: number, codepage: number): BiffRecord {
  const head = Buffer.concat([u16(200), u16(0), u16(0x7fff), u16(400), u16(0), u8(0), u8(0), u8(charset), u8(0)]);
  const w = new BiffWriter(biff, codepage);
  return { type: 0x0031, data: Buffer.concat([head, w.string("Arial", 1)]) };
}

function xfRecord(biff: Biff, format: number, style: boolean): BiffRecord {
  const data = Buffer.alloc(biff === 8 ? 20 : 16);
  data.writeUInt16LE(format, 2);
  // A style XF (locked, parent "none"), or a cell XF of the Normal style.
  data.writeUInt16LE(style ? 0xfff5 : 0x0001, 4);
  data[6] = 0x20; // bottom-aligned
  if (biff === 8) {
    // Which attributes the XF sets (bits 2-7 of byte 9): a cell XF says it sets its number format.
    data[9] = style ? 0xf4 : format ? 0x04 : 0;
    data.writeUInt16LE(0x20c0, 18);
  } else {
    data[7] = style ? 0xf4 : format ? 0x04 : 0;
    data.writeUInt16LE(0x20c0, 8);
  }
  return { type: 0x00e0, data };
}

/** Writes the records into the OLE container, as Excel lays out an .xls: globals, then each sheet. */
export function writeBiff(book: BiffBook): Buffer {
  const { biff } = book;
  const codepage = book.codepage ?? 1252;
  const w = new BiffWriter(biff, codepage);
  const bof = (dt: number): BiffRecord => ({
    type: 0x0809,
    data:
      biff === 8
        ? Buffer.concat([u16(0x0600), u16(dt), u16(0x0dbb), u16(0x07cc), u32(0), u32(6)])
        : Buffer.concat([u16(0x0500), u16(dt), u16(0x0dbb), u16(0x07cc)]),
    plain: true,
  });
  const eof: BiffRecord = { type: 0x000a, data: Buffer.alloc(0) };
  const globals: BiffRecord[] = [bof(0x0005)];
  const encryption =
    book.encryption?.kind === "xor"
      ? xorObfuscation(book.encryption.password, biff)
      : book.encryption && biff === 8
        ? encryptionHeader(book.encryption)
        : null;
  if (encryption) globals.push({ type: 0x002f, data: encryption.filePass, plain: true });
  globals.push({ type: 0x00e1, data: u16(0x04b0), plain: true });
  if (biff === 8) globals.push({ type: 0x005c, data: Buffer.concat([w.string("leaddesk", 2), Buffer.alloc(101, 0x20)]) });
  if (biff === 8) globals.push({ type: 0x0042, data: u16(1200) });
  else if (book.codepage !== null) globals.push({ type: 0x0042, data: u16(codepage) });
  globals.push({ type: 0x003d, data: Buffer.concat([u16(0), u16(0), u16(0x4000), u16(0x2000), u16(0x38), u16(0), u16(0), u16(1), u16(0x258)]) });
  globals.push({ type: 0x0022, data: u16(book.date1904 ? 1 : 0) });
  for (let i = 0; i < 5; i++) globals.push(fontRecord(biff, book.fontCharset ?? (biff === 5 ? 204 : 0), codepage));
  for (const [index, code] of [[164, "dd\\.mm\\.yyyy"] as [number, string], ...(book.formats ?? [])]) {
    globals.push({ type: 0x041e, data: Buffer.concat([u16(index), biff === 8 ? w.string(code, 2) : w.string(code, 1)]) });
  }
  for (let i = 0; i < 15; i++) globals.push(xfRecord(biff, 0, true));
  for (const format of [0, 14, 22, 164, 2]) globals.push(xfRecord(biff, format, false));
  const boundSheets = book.sheets.map((sheet): BiffRecord => ({
    type: 0x0085,
    data: Buffer.concat([u32(0), u8(sheet.hidden ? 1 : 0), u8(0), w.string(sheet.name, 1)]),
    plain: 4,
  }));
  globals.push(...boundSheets);
  if (book.sst && biff === 8) globals.push(...sstRecords(book.sst));
  globals.push(eof);

  const streams: BiffRecord[][] = book.sheets.map((sheet) => {
    const dims = sheet.dimensions === undefined ? dimensionsOf(sheet.records) : sheet.dimensions;
    const dimensions: BiffRecord[] = dims
      ? [
          {
            type: 0x0200,
            data:
              biff === 8
                ? Buffer.concat([u32(dims[0]), u32(dims[1]), u16(dims[2]), u16(dims[3]), u16(0)])
                : Buffer.concat([u16(dims[0]), u16(dims[1]), u16(dims[2]), u16(dims[3]), u16(0)]),
          },
        ]
      : [];
    const window2: BiffRecord =
      biff === 8
        ? { type: 0x023e, data: Buffer.concat([u16(0x06b6), u16(0), u16(0), u32(0x40), u16(0), u16(0), u32(0)]) }
        : { type: 0x023e, data: Buffer.concat([u16(0x06b6), u16(0), u16(0), u32(0)]) };
    return [bof(0x0010), ...dimensions, ...sheet.records, window2, eof];
  });

  const length = (records: BiffRecord[]) => records.reduce((sum, record) => sum + 4 + record.data.length, 0);
  let offset = length(globals);
  streams.forEach((records, i) => {
    boundSheets[i].data.writeUInt32LE(offset, 0);
    offset += length(records);
  });
  const all = [...globals, ...streams.flat()];
  const stream = Buffer.concat(all.flatMap((record) => [Buffer.concat([u16(record.type), u16(record.data.length)]), record.data]));
  if (encryption) {
    let at = 0;
    for (const record of all) {
      const start = at + 4;
      at = start + record.data.length;
      if (record.plain === true) continue;
      encryption.crypt(stream, start + (record.plain ?? 0), at, start);
    }
  }
  const cfb = CFB.utils.cfb_new();
  CFB.utils.cfb_add(cfb, biff === 8 ? "/Workbook" : "/Book", stream);
  return Buffer.from(CFB.write(cfb, { type: "buffer", fileType: "cfb" }) as Uint8Array);
}

/** The used range of a sheet's cell records, as DIMENSIONS says it. */
function dimensionsOf(records: BiffRecord[]): [number, number, number, number] {
  let rows = [Infinity, -1];
  let cols = [Infinity, -1];
  for (const record of records) {
    if (![0x0203, 0x027e, 0x00bd, 0x0204, 0x00d6, 0x00fd, 0x0205, 0x0201, 0x0006].includes(record.type)) continue;
    const r = record.data.readUInt16LE(0);
    const c = record.data.readUInt16LE(2);
    const last = record.type === 0x00bd ? record.data.readUInt16LE(record.data.length - 2) : c;
    rows = [Math.min(rows[0], r), Math.max(rows[1], r)];
    cols = [Math.min(cols[0], c), Math.max(cols[1], last)];
  }
  return rows[1] < 0 ? [0, 0, 0, 0] : [rows[0], rows[1] + 1, cols[0], cols[1] + 1];
}

/** A from-scratch RC4 (Node's OpenSSL 3 leaves it out of its default provider). */
function rc4(key: Buffer, length: number): Buffer {
  const s = Array.from({ length: 256 }, (_, i) => i);
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = Buffer.alloc(length);
  for (let n = 0, i = 0, j = 0; n < length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]) & 0xff;
    [s[i], s[j]] = [s[j], s[i]];
    out[n] = s[(s[i] + s[j]) & 0xff];
  }
  return out;
}

const hash = (algorithm: string, ...parts: Buffer[]) => {
  const h = createHash(algorithm);
  for (const part of parts) h.update(part);
  return h.digest();
};

/**
 * The FILEPASS record and the stream cipher of RC4 encryption ([MS-OFFCRYPTO] 2.3.6, MD5 keys) or RC4 CryptoAPI
 * encryption (2.3.5, SHA-1 keys, 128-bit): the key changes every 1,024 bytes of the stream, counted from its start,
 * record headers included (they stay plain but use up key stream).
 */
function encryptionHeader({ kind, password, keyBits = 128 }: NonNullable<BiffBook["encryption"]>) {
  const salt = hash("md5", Buffer.from(`salt:${password}:${kind}`)).subarray(0, 16);
  const verifier = hash("md5", Buffer.from(`verifier:${password}`)).subarray(0, 16);
  const secret = Buffer.from(password, "utf16le");
  let blockKey: (block: number) => Buffer;
  let filePass: Buffer;
  if (kind === "rc4") {
    const h0 = hash("md5", secret).subarray(0, 5);
    const truncated = hash("md5", Buffer.concat(Array.from({ length: 16 }, () => Buffer.concat([h0, salt])))).subarray(0, 5);
    blockKey = (block) => hash("md5", truncated, u32(block));
    const check = rc4(blockKey(0), 32);
    const encrypted = Buffer.concat([verifier, hash("md5", verifier)]).map((byte, i) => byte ^ check[i]);
    filePass = Buffer.concat([u16(1), u16(1), u16(1), salt, Buffer.from(encrypted)]);
  } else {
    const h0 = hash("sha1", salt, secret);
    // A 128-bit key (LibreOffice reads no other CryptoAPI key size), or a 40-bit one padded to 128 bits with zeros.
    blockKey = (block) => {
      const key = hash("sha1", h0, u32(block)).subarray(0, keyBits / 8);
      return keyBits === 40 ? Buffer.concat([key, Buffer.alloc(11)]) : key;
    };
    const check = rc4(blockKey(0), 36);
    const encrypted = Buffer.from(Buffer.concat([verifier, hash("sha1", verifier)]).map((byte, i) => byte ^ check[i]));
    const csp = Buffer.from("Microsoft Enhanced Cryptographic Provider v1.0\u0000", "utf16le");
    const header = Buffer.concat([u32(0x04), u32(0), u32(0x6801), u32(0x8004), u32(keyBits), u32(1), u32(0), u32(0), csp]);
    // Version 4.2 (Excel 2007 SP2 and later), CryptoAPI, RC4 and SHA-1.
    filePass = Buffer.concat([
      u16(1),
      u16(4),
      u16(2),
      u32(0x04),
      u32(header.length),
      header,
      u32(16),
      salt,
      encrypted.subarray(0, 16),
      u32(20),
      encrypted.subarray(16),
    ]);
  }
  const blocks = new Map<number, Buffer>();
  const stream = (block: number) => {
    let key = blocks.get(block);
    if (!key) blocks.set(block, (key = rc4(blockKey(block), 1024)));
    return key;
  };
  return {
    filePass,
    crypt(data: Buffer, from: number, to: number) {
      for (let at = from; at < to; at++) data[at] ^= stream(Math.floor(at / 1024))[at % 1024];
    },
  };
}

/**
 * XOR obfuscation ([MS-XLS] 2.2.10, [MS-OFFCRYPTO] 2.3.7, "method 1"), Excel 95's only protection and Excel 97's
 * weakest: a 16-bit key and verifier made from the password, a 16-byte array made from both, and each byte of a
 * record's data rotated left by 5 bits and XORed with the array's byte at (where the record's data starts + its size
 * + the byte's place in it) modulo 16. Only passwords of single-byte characters (as the default one) are written.
 */
function xorObfuscation(password: string, biff: Biff) {
  const { key, verifier, array } = xorObfuscationKeys(password);
  return {
    filePass: Buffer.concat([...(biff === 8 ? [u16(0)] : []), u16(key), u16(verifier)]),
    crypt(data: Buffer, from: number, to: number, dataStart: number) {
      const size = to - dataStart;
      for (let at = from; at < to; at++) {
        const byte = data[at];
        data[at] = (((byte << 5) | (byte >> 3)) & 0xff) ^ array[(dataStart + size + (at - dataStart)) % 16];
      }
    },
  };
}
