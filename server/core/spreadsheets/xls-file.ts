import { createHash } from "node:crypto";

/**
 * An OLE (compound) file, before the `xlsx` package reads its workbook: what it holds, and when it is encrypted
 * whether anyone could open it. Decision 040.
 * - An .xlsx (or .docx) saved with a password is an OLE file holding EncryptionInfo and EncryptedPackage: refused as
 *   encrypted, never taken for a damaged .xls.
 * - An .xls whose workbook starts with a FILEPASS record is RC4-encrypted. Excel encrypts a workbook whose structure
 *   is protected with its built-in password "VelvetSweatshop", and Excel and LibreOffice open such a file without
 *   asking: so do we, decrypting the stream here. So is Excel 95's XOR obfuscation with that password (decision
 *   043: LibreOffice opens it too). Any other password is refused as encrypted.
 * - A BIFF5 workbook (Excel 5.0/95) without a CODEPAGE record holds its text in the code page of the machine that
 *   wrote it: the fonts' character set says which (1C writes Cyrillic this way), else Windows-1251, what a Russian
 *   Windows would read it as.
 */

export type OleContent =
  | {
      kind: "workbook";
      stream: Buffer;
      biff: number;
      codepage?: number;
      /** By sheet (BOUNDSHEET order), row → columns (from 0) of the cells whose formula LibreOffice computes: decision 043. */
      computed: Array<Map<number, number[]>>;
    }
  | { kind: "encrypted" }
  | { kind: "not-workbook" };

/** The slice of the `cfb` API (inside the `xlsx` package) used here. */
export interface CfbApi {
  read(data: Buffer, options: { type: "buffer" }): CfbContainer;
  find(container: CfbContainer, path: string): { content?: ArrayLike<number> | null } | null;
}
type CfbContainer = { FullPaths: string[] };

/** Excel's default password: a workbook protected against changes to its structure is encrypted with it. */
export const DEFAULT_PASSWORD = "VelvetSweatshop";

const BOF = 0x0809;
const EOF = 0x000a;
const FILEPASS = 0x002f;
const CODEPAGE = 0x0042;
const FONT = 0x0031;
const BOUNDSHEET = 0x0085;
/** Records an encrypted stream keeps plain ([MS-XLS] 2.2.10): BOF, FILEPASS, UsrExcl, FileLock, InterfaceHdr, RRDInfo, RRDHead. */
const PLAIN = new Set([BOF, FILEPASS, 0x0194, 0x0195, 0x00e1, 0x0196, 0x0138]);
/**
 * What FILEPASS becomes once the stream is decrypted, and what xlsView makes of the records it hides: a record the
 * reader knows and skips (ADDIN, which only Excel 4 macro sheets carry; an unknown type would be reported on the
 * console).
 */
const SKIPPED = 0x0087;

/** Windows character sets of a FONT record (bCharSet) and their code pages. */
const CHARSET_CODEPAGE: Record<number, number> = {
  0xcc: 1251,
  0xa1: 1253,
  0xa2: 1254,
  0xb1: 1255,
  0xb2: 1256,
  0xba: 1257,
  0xee: 1250,
  0xa3: 1258,
  0xde: 874,
  0x80: 932,
  0x81: 949,
  0x86: 936,
  0x88: 950,
};

export function openOle(data: Buffer, cfb: CfbApi): OleContent {
  const container = cfb.read(data, { type: "buffer" });
  if (cfb.find(container, "EncryptionInfo") || cfb.find(container, "EncryptedPackage") || cfb.find(container, "\u0006DataSpaces")) {
    return { kind: "encrypted" };
  }
  const entry = cfb.find(container, "Workbook") ?? cfb.find(container, "Book");
  if (!entry?.content) return { kind: "not-workbook" };
  const stream = Buffer.from(entry.content as ArrayLike<number>);
  return readGlobals(stream);
}

/** The workbook globals (up to their EOF): the BIFF version, a FILEPASS to decrypt, the code page of BIFF5 text. */
function readGlobals(stream: Buffer): OleContent {
  if (stream.length < 8 || stream.readUInt16LE(0) !== BOF) return { kind: "workbook", stream, biff: 8, computed: [] };
  const version = stream.readUInt16LE(4);
  const biff = version === 0x0600 ? 8 : version === 0x0500 ? 5 : 8;
  let codepage: number | undefined;
  let fontCharset: number | undefined;
  for (let at = 0; at + 4 <= stream.length;) {
    const type = stream.readUInt16LE(at);
    const length = stream.readUInt16LE(at + 2);
    const data = stream.subarray(at + 4, at + 4 + length);
    if (type === FILEPASS) {
      const xor = biff === 5 ? length === 4 : length === 6 && data.readUInt16LE(0) === 0;
      if (!(xor ? deobfuscate(stream, at, data.subarray(length - 4)) : biff === 8 && decrypt(stream, at, data))) return { kind: "encrypted" };
      stream.writeUInt16LE(SKIPPED, at);
    } else if (type === CODEPAGE && length >= 2) codepage = data.readUInt16LE(0);
    else if (type === FONT && fontCharset === undefined && length >= 13) fontCharset = data[12];
    else if (type === EOF) break;
    at += 4 + length;
  }
  const computed = computedFormulas(stream, biff);
  if (biff === 5 && codepage === undefined)
    return { kind: "workbook", stream, biff, codepage: CHARSET_CODEPAGE[fontCharset ?? -1] ?? 1251, computed };
  return { kind: "workbook", stream, biff, computed };
}

const FORMULA = 0x0006;
const STRING = 0x0207;
/** Records that may stand between a FORMULA record and its STRING record: SHRFMLA, ARRAY, TABLE. */
const FORMULA_PARTS = new Set([0x04bc, 0x0221, 0x0236]);
/** Functions whose result is always text ([MS-XLS] 2.5.198.17): a number held for one is a stale result. */
const TEXT_FUNCTIONS = new Set([13, 14, 30, 31, 48, 111, 112, 113, 114, 115, 116, 118, 119, 120, 130, 162, 336]);

/**
 * The formula cells of each sheet whose held result is surely not what LibreOffice shows: it computes every formula
 * of an .xls when it opens one (soffice 7.4, decision 043), and we cannot. We show the held result, so we say where
 * it is missing or stale, as far as the file tells: a text result without the STRING record that holds its text; a
 * number held for a formula whose result is text (an ampersand or a text function at its top: LibreOffice's own
 * headless saves hold 0 there); and, when every formula of the workbook holds an empty text (what Python's xlwt
 * writes, never computing anything), each of them. A stale number of a number formula cannot be told.
 */
function computedFormulas(stream: Buffer, biff: number): Array<Map<number, number[]>> {
  const sheets: Array<Map<number, number[]>> = [];
  const offsets: number[] = [];
  const emptyTexts: Array<() => void> = [];
  let formulas = 0;
  for (let at = 0; at + 4 <= stream.length;) {
    const type = stream.readUInt16LE(at);
    const length = stream.readUInt16LE(at + 2);
    if (type === BOUNDSHEET && length >= 4) offsets.push(stream.readUInt32LE(at + 4));
    if (type === EOF) break;
    at += 4 + length;
  }
  for (const offset of offsets) {
    const cells = new Map<number, number[]>();
    sheets.push(cells);
    if (offset + 4 > stream.length || stream.readUInt16LE(offset) !== BOF) continue;
    let at = offset + 4 + stream.readUInt16LE(offset + 2);
    while (at + 4 <= stream.length) {
      const type = stream.readUInt16LE(at);
      const length = stream.readUInt16LE(at + 2);
      const data = stream.subarray(at + 4, at + 4 + length);
      at += 4 + length;
      if (type === EOF || type === BOF) break;
      if (type !== FORMULA || data.length < 22) continue;
      formulas++;
      const [row, column] = [data.readUInt16LE(0), data.readUInt16LE(2)];
      const mark = () => {
        const columns = cells.get(row);
        if (!columns) cells.set(row, [column]);
        else if (!columns.includes(column)) columns.push(column);
      };
      const special = data.readUInt16LE(12) === 0xffff;
      const kind = special ? data[6] : -1;
      if (kind === 0) {
        let next = at;
        while (next + 4 <= stream.length && FORMULA_PARTS.has(stream.readUInt16LE(next))) next += 4 + stream.readUInt16LE(next + 2);
        if (next + 4 > stream.length || stream.readUInt16LE(next) !== STRING) mark();
      } else if (kind === 3) emptyTexts.push(mark);
      else if (!special && textFormula(data.subarray(22, 22 + data.readUInt16LE(20)), biff)) mark();
    }
  }
  if (formulas > 0 && emptyTexts.length === formulas) for (const mark of emptyTexts) mark();
  return sheets;
}

/** Whether a formula's tokens ([MS-XLS] 2.5.198) end in an ampersand or a text function; false when unsure. */
function textFormula(rgce: Buffer, biff: number): boolean {
  const b8 = biff === 8;
  let last = -1;
  let lastFunction = -1;
  for (let at = 0; at < rgce.length;) {
    const ptg = rgce[at];
    last = ptg;
    lastFunction = -1;
    const base = ptg < 0x20 ? ptg : (ptg & 0x1f) | 0x20;
    let size: number;
    if (ptg >= 0x03 && ptg <= 0x16) size = 1;
    else if (ptg === 0x01 || ptg === 0x02) size = 5;
    else if (ptg === 0x17) {
      const chars = rgce[at + 1] ?? 0;
      size = b8 ? 3 + chars * ((rgce[at + 2] ?? 0) & 1 ? 2 : 1) : 2 + chars;
    } else if (ptg === 0x19) {
      const options = rgce[at + 1] ?? 0;
      size = options & 0x04 ? 4 + 2 * ((rgce.readUInt16LE(Math.min(at + 2, rgce.length - 2)) || 0) + 1) : 4;
    } else if (ptg === 0x1c || ptg === 0x1d) size = 2;
    else if (ptg === 0x1e) size = 3;
    else if (ptg === 0x1f) size = 9;
    else if (base === 0x20) size = b8 ? 8 : 7;
    else if (base === 0x21) {
      lastFunction = rgce.readUInt16LE(Math.min(at + 1, rgce.length - 2)) & 0x7fff;
      size = 3;
    } else if (base === 0x22) {
      lastFunction = rgce.readUInt16LE(Math.min(at + 2, rgce.length - 2)) & 0x7fff;
      size = 4;
    } else if (base === 0x23) size = b8 ? 5 : 15;
    else if (base === 0x24 || base === 0x2a || base === 0x2c) size = b8 ? 5 : 4;
    else if (base === 0x25 || base === 0x2b || base === 0x2d) size = b8 ? 9 : 7;
    else if (base === 0x39) size = b8 ? 7 : 25;
    else if (base === 0x3a || base === 0x3c) size = b8 ? 7 : 18;
    else if (base === 0x3b || base === 0x3d) size = b8 ? 11 : 21;
    else return false;
    at += size;
    if (at > rgce.length) return false;
  }
  return last === 0x08 || (lastFunction >= 0 && TEXT_FUNCTIONS.has(lastFunction));
}

/** BOF records of BIFF8/BIFF5 and of BIFF2-4: each starts a substream (the globals, a sheet, a chart in a sheet). */
const BOFS = new Set([BOF, 0x0009, 0x0209, 0x0409]);
/**
 * Records the `xlsx` package makes a cell object of (sheetStubs off): NUMBER, RK, MULRK, LABELSST, LABEL, RSTRING,
 * BOOLERR, FORMULA (BIFF2-8) and BIFF2's INTEGER, NUMBER, LABEL, BOOLERR. Each starts with its row.
 */
const CELL_RECORDS = new Set([0x0203, 0x027e, 0x00bd, 0x00fd, 0x0204, 0x00d6, 0x0205, 0x0006, 0x0206, 0x0406, 0x0002, 0x0003, 0x0004, 0x0005]);
const FORMULAS = new Set([0x0006, 0x0206, 0x0406]);
const MULRK = 0x00bd;
const CONTINUE = 0x003c;
const SST = 0x00fc;
/** NAME (defined names): the package would read their formulas, and set a sheet's filter from them (see xlsView). */
const NAMES = new Set([0x0018, 0x0218]);

/**
 * Walks the workbook stream's records one after the other, as the `xlsx` package does, up to the end of the
 * substream whose BOF is at `sheet` (0: the globals; else a sheet's BOUNDSHEET offset). `record` hears each one, and
 * whether it is that substream's own (not a chart's embedded in it). Returns where the walk stopped: after that
 * substream's EOF, or at the end of the stream (or of its last whole record).
 */
function walkRecords(stream: Buffer, sheet: number, record: (type: number, at: number, length: number, own: boolean) => void): number {
  let depth = 0;
  let inside = false;
  let at = 0;
  while (at + 4 <= stream.length) {
    const type = stream.readUInt16LE(at);
    const length = stream.readUInt16LE(at + 2);
    const end = at + 4 + length;
    if (end > stream.length) break;
    if (BOFS.has(type)) {
      if (depth === 0) inside = at === sheet;
      depth++;
    }
    record(type, at, length, inside && depth === 1);
    if (type === EOF && depth > 0 && --depth === 0 && inside) return end;
    at = end;
  }
  return at;
}

/** Whether the stream starts as a BIFF5 or BIFF8 workbook (its globals' BOF), the only kind read in windows. */
export function isBiffWorkbook(stream: Buffer): boolean {
  return stream.length >= 8 && stream.readUInt16LE(0) === BOF;
}

/**
 * The sheets' BOF offsets (their BOUNDSHEET records in the globals), in the order the `xlsx` package lists the sheets'
 * names: by offset, one name an offset.
 */
export function xlsSheetOffsets(stream: Buffer): number[] {
  const offsets = new Set<number>();
  walkRecords(stream, 0, (type, at, length, own) => {
    if (own && type === BOUNDSHEET && length >= 4) offsets.add(stream.readUInt32LE(at + 4));
  });
  return [...offsets].sort((a, b) => a - b);
}

/**
 * How many cell objects the `xlsx` package would make of each row (index) of the sheet whose BOF is at `sheet`, rows
 * from 0 below `rows`, as its records say (a MULRK one a column).
 */
export function xlsRowCells(stream: Buffer, sheet: number, rows: number): Uint32Array {
  const cells = new Uint32Array(Math.max(0, Math.min(rows, 0x10000)));
  walkRecords(stream, sheet, (type, at, length, own) => {
    if (!own || !CELL_RECORDS.has(type) || length < 2) return;
    const row = stream.readUInt16LE(at + 4);
    if (row < cells.length) cells[row] += type === MULRK ? Math.max(1, Math.floor((length - 6) / 6)) : 1;
  });
  return cells;
}

/**
 * The workbook stream as the `xlsx` package is given it to read one window of a sheet: rows [from, to) of the sheet
 * whose BOF is at `sheet` (0: the globals alone, for the sheets' names). Written into `into` (as long as the stream);
 * returns the part to read, which ends with that sheet: the sheets after it are not read, so one of the same name
 * cannot take its place. Every other record the package makes a cell object of (with the STRING that holds a hidden
 * formula's text and any CONTINUE of a hidden record) becomes one it skips, runs of them merged into as few records as
 * their lengths allow; so do NAME records, which only formulas and filters use and whose filters the package would
 * set on sheets it has not read, and, for the names alone, the shared strings.
 *
 * Why: the package deletes two properties of every cell object it keeps, which turns each into a slow dictionary of
 * ~500 bytes, and it keeps a whole workbook; a 19 MB .xls of a million cells needed more than the worker's 512 MB. A
 * window of SHEET_LIMITS.xlsWindowCells cells is read at a time (decision 048).
 */
export function xlsView(stream: Buffer, into: Buffer, sheet: number, from = 0, to = 0): Buffer {
  stream.copy(into);
  let formulaKept = false;
  let lastHidden = false;
  let runStart = -1;
  let runEnd = -1;
  const flush = () => {
    for (let at = runStart; at < runEnd;) {
      let size = Math.min(runEnd - at, 4 + 0xffff);
      const rest = runEnd - at - size;
      if (rest > 0 && rest < 4) size -= 4;
      into.writeUInt16LE(SKIPPED, at);
      into.writeUInt16LE(size - 4, at + 2);
      at += size;
    }
    runStart = runEnd = -1;
  };
  const end = walkRecords(stream, sheet, (type, at, length, own) => {
    let hide: boolean;
    if (CELL_RECORDS.has(type)) {
      const row = length >= 2 ? stream.readUInt16LE(at + 4) : -1;
      hide = !(own && row >= from && row < to);
      if (FORMULAS.has(type)) formulaKept = !hide;
    } else if (type === STRING || type === 0x0007) hide = !formulaKept;
    else if (type === CONTINUE) hide = lastHidden;
    else hide = NAMES.has(type) || (type === SST && sheet === 0);
    lastHidden = hide;
    if (!hide) return;
    if (at !== runEnd) {
      flush();
      runStart = at;
    }
    runEnd = at + 4 + length;
  });
  flush();
  return into.subarray(0, end);
}

const hash = (algorithm: "md5" | "sha1", ...parts: Buffer[]) => {
  const h = createHash(algorithm);
  for (const part of parts) h.update(part);
  return h.digest();
};

const counter = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
};

/** RC4 (Node's OpenSSL 3 keeps it out of its default provider): `length` bytes of key stream. */
function rc4(key: Buffer, length: number): Buffer {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 0xff;
    const t = s[i];
    s[i] = s[j];
    s[j] = t;
  }
  const out = Buffer.alloc(length);
  for (let n = 0, i = 0, j = 0; n < length; n++) {
    i = (i + 1) & 0xff;
    j = (j + s[i]) & 0xff;
    const t = s[i];
    s[i] = s[j];
    s[j] = t;
    out[n] = s[(s[i] + s[j]) & 0xff];
  }
  return out;
}

/**
 * The key of each 1,024-byte block of the stream for Excel's default password, when FILEPASS holds RC4 ([MS-OFFCRYPTO]
 * 2.3.6: MD5 keys) or RC4 CryptoAPI (2.3.5: SHA-1 keys) encryption whose verifier that password matches; else null.
 */
function blockKeys(filePass: Buffer): ((block: number) => Buffer) | null {
  if (filePass.length < 6 || filePass.readUInt16LE(0) !== 1) return null;
  const major = filePass.readUInt16LE(2);
  const minor = filePass.readUInt16LE(4);
  const password = Buffer.from(DEFAULT_PASSWORD, "utf16le");
  if (major === 1 && minor === 1 && filePass.length >= 54) {
    const salt = filePass.subarray(6, 22);
    const h0 = hash("md5", password).subarray(0, 5);
    const truncated = hash("md5", Buffer.concat(Array.from({ length: 16 }, () => Buffer.concat([h0, salt])))).subarray(0, 5);
    const key = (block: number) => hash("md5", truncated, counter(block));
    const plain = xor(filePass.subarray(22, 54), rc4(key(0), 32));
    return hash("md5", plain.subarray(0, 16)).equals(plain.subarray(16, 32)) ? key : null;
  }
  if (major >= 2 && major <= 4 && minor === 2 && filePass.length >= 14) {
    const headerSize = filePass.readUInt32LE(10);
    const header = filePass.subarray(14, 14 + headerSize);
    if (header.length < 32) return null;
    const algorithm = header.readUInt32LE(8);
    const hashAlgorithm = header.readUInt32LE(12);
    const keyBits = header.readUInt32LE(16) || 40;
    if (algorithm !== 0x6801 || (hashAlgorithm !== 0 && hashAlgorithm !== 0x8004) || keyBits % 8 || keyBits < 40 || keyBits > 128) return null;
    const verifier = filePass.subarray(14 + headerSize);
    if (verifier.length < 4 + 16 + 16 + 4 + 20 || verifier.readUInt32LE(0) !== 16 || verifier.readUInt32LE(36) !== 20) return null;
    const salt = verifier.subarray(4, 20);
    const h0 = hash("sha1", salt, password);
    // A 40-bit key is padded with zeros to 128 bits.
    const key = (block: number) => {
      const bytes = hash("sha1", h0, counter(block)).subarray(0, keyBits / 8);
      return keyBits === 40 ? Buffer.concat([bytes, Buffer.alloc(11)]) : bytes;
    };
    const plain = xor(Buffer.concat([verifier.subarray(20, 36), verifier.subarray(40, 60)]), rc4(key(0), 36));
    return hash("sha1", plain.subarray(0, 16)).equals(plain.subarray(16, 36)) ? key : null;
  }
  return null;
}

function xor(data: Buffer, key: Buffer): Buffer {
  const out = Buffer.alloc(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] ^ key[i];
  return out;
}

/** [MS-OFFCRYPTO] 2.3.7.2's constants: the pad bytes, the key's start by password length, and the 15 × 7 matrix. */
const XOR_PAD = [0xbb, 0xff, 0xff, 0xba, 0xff, 0xff, 0xb9, 0x80, 0x00, 0xbe, 0x0f, 0x00, 0xbf, 0x0f, 0x00];
const XOR_INITIAL_CODE = [0xe1f0, 0x1d0f, 0xcc9c, 0x84c0, 0x110c, 0x0e10, 0xf1ce, 0x313e, 0x1872, 0xe139, 0xd40f, 0x84f9, 0x280c, 0xa96a, 0x4ec3];
const XOR_MATRIX = [
  0xaefc, 0x4dd9, 0x9bb2, 0x2745, 0x4e8a, 0x9d14, 0x2a09, 0x7b61, 0xf6c2, 0xfda5, 0xeb6b, 0xc6f7, 0x9dcf, 0x2bbf, 0x4563, 0x8ac6, 0x05ad, 0x0b5a,
  0x16b4, 0x2d68, 0x5ad0, 0x0375, 0x06ea, 0x0dd4, 0x1ba8, 0x3750, 0x6ea0, 0xdd40, 0xd849, 0xa0b3, 0x5147, 0xa28e, 0x553d, 0xaa7a, 0x44d5, 0x6f45,
  0xde8a, 0xad35, 0x4a4b, 0x9496, 0x390d, 0x721a, 0xeb23, 0xc667, 0x9cef, 0x29ff, 0x53fe, 0xa7fc, 0x5fd9, 0x47d3, 0x8fa6, 0x0f6d, 0x1eda, 0x3db4,
  0x7b68, 0xf6d0, 0xb861, 0x60e3, 0xc1c6, 0x93ad, 0x377b, 0x6ef6, 0xddec, 0x45a0, 0x8b40, 0x06a1, 0x0d42, 0x1a84, 0x3508, 0x6a10, 0xaa51, 0x4483,
  0x8906, 0x022d, 0x045a, 0x08b4, 0x1168, 0x76b4, 0xed68, 0xcaf1, 0x85c3, 0x1ba7, 0x374e, 0x6e9c, 0x3730, 0x6e60, 0xdcc0, 0xa9a1, 0x4363, 0x86c6,
  0x1dad, 0x3331, 0x6662, 0xccc4, 0x89a9, 0x0373, 0x06e6, 0x0dcc, 0x1021, 0x2042, 0x4084, 0x8108, 0x1231, 0x2462, 0x48c4,
];

/**
 * The key, the verifier and the 16-byte array that XOR obfuscation makes from a password of single-byte characters
 * ([MS-OFFCRYPTO] 2.3.7.2-2.3.7.4). The test helper that writes such files uses it too; LibreOffice opening those
 * files is what checks it.
 */
export function xorObfuscationKeys(passwordText: string): { key: number; verifier: number; array: Uint8Array } {
  const password = [...Buffer.from(passwordText, "latin1")];
  // The verifier: the bytes from the last to the first, then the length, each shifted into a 15-bit rotation.
  let verifier = 0;
  for (const byte of [...password].reverse().concat(password.length)) verifier = (((verifier >> 14) & 1) | ((verifier << 1) & 0x7fff)) ^ byte;
  verifier ^= 0xce4b;
  // The key: the initial code for the password's length, XORed with a matrix value for each set bit of each byte.
  let key = XOR_INITIAL_CODE[password.length - 1];
  let element = XOR_MATRIX.length - 1;
  for (let i = password.length - 1; i >= 0; i--) {
    for (let bit = 0, char = password[i]; bit < 7; bit++, element--, char <<= 1) if (char & 0x40) key ^= XOR_MATRIX[element];
  }
  const ror = (byte: number) => ((byte >> 1) | (byte << 7)) & 0xff;
  const [high, low] = [key >> 8, key & 0xff];
  const array = new Uint8Array(16);
  let index = password.length;
  if (index % 2 === 1) {
    array[index] = ror(XOR_PAD[0] ^ high);
    index--;
    array[index] = ror(password[password.length - 1] ^ low);
  }
  while (index > 0) {
    index--;
    array[index] = ror(password[index] ^ high);
    index--;
    array[index] = ror(password[index] ^ low);
  }
  for (let at = 15, pad = 15 - password.length; pad > 0;) {
    array[at--] = ror(XOR_PAD[pad--] ^ high);
    array[at--] = ror(XOR_PAD[pad--] ^ low);
  }
  return { key, verifier, array };
}

/**
 * The XOR obfuscation of Excel 95 (and Excel 97's weakest protection), [MS-XLS] 2.2.10 and [MS-OFFCRYPTO] 2.3.7
 * ("method 1"): when the FILEPASS's verifier (`keyAndVerifier`: the key, then the verifier) is the default
 * password's, the stream after it is deobfuscated in place: each byte of a record's data XORed with the byte of a
 * 16-byte array at (where the data starts + the record's size + the byte's place in it) modulo 16, then rotated right
 * by 5 bits. The same records stay plain as with RC4. LibreOffice opens such a file without asking, as Excel does.
 */
function deobfuscate(stream: Buffer, filePassAt: number, keyAndVerifier: Buffer): boolean {
  const { verifier, array } = xorObfuscationKeys(DEFAULT_PASSWORD);
  if (verifier !== keyAndVerifier.readUInt16LE(2)) return false;
  for (let at = filePassAt + 4 + stream.readUInt16LE(filePassAt + 2); at + 4 <= stream.length;) {
    const type = stream.readUInt16LE(at);
    const length = stream.readUInt16LE(at + 2);
    const start = at + 4;
    const end = Math.min(start + length, stream.length);
    if (!PLAIN.has(type)) {
      for (let i = type === BOUNDSHEET ? start + 4 : start; i < end; i++) {
        const byte = stream[i] ^ array[(start + length + (i - start)) % 16];
        stream[i] = ((byte >> 5) | (byte << 3)) & 0xff;
      }
    }
    at = end;
  }
  return true;
}

/**
 * Decrypts the stream in place after the FILEPASS record at `filePassAt`, when the default password opens it. The key
 * changes every 1,024 bytes of the stream counted from its start; record headers, the PLAIN records and the sheet
 * offset of each BOUNDSHEET are not encrypted, but use up key stream all the same.
 */
function decrypt(stream: Buffer, filePassAt: number, filePass: Buffer): boolean {
  const key = blockKeys(filePass);
  if (!key) return false;
  let block = -1;
  let keyStream: Buffer = Buffer.alloc(0);
  const crypt = (from: number, to: number) => {
    for (let at = from; at < to; at++) {
      const b = Math.floor(at / 1024);
      if (b !== block) {
        block = b;
        keyStream = rc4(key(b), 1024);
      }
      stream[at] ^= keyStream[at % 1024];
    }
  };
  for (let at = filePassAt + 4 + filePass.length; at + 4 <= stream.length;) {
    const type = stream.readUInt16LE(at);
    const length = stream.readUInt16LE(at + 2);
    const start = at + 4;
    const end = Math.min(start + length, stream.length);
    if (!PLAIN.has(type)) crypt(type === BOUNDSHEET ? start + 4 : start, end);
    at = end;
  }
  return true;
}
