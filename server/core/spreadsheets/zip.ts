import fs from "node:fs";
import { StringDecoder } from "node:string_decoder";
import zlib from "node:zlib";
import yauzl from "yauzl";
import { badRequest } from "../errors";
import { MESSAGES, SHEET_LIMITS } from "./limits";

/**
 * The zip under an .xlsx or .ods: its directory, read by yauzl, checked before anything is inflated (no zip bombs,
 * no hidden entries), and each part inflated by Node's zlib under a guard that counts its bytes against what the
 * directory declared.
 */

/** The zip's directory as yauzl reads it (the end record found, zip64 understood, each record checked). */
function readDirectory(path: string): Promise<{ entries: yauzl.Entry[]; dirOffset: number }> {
  return new Promise((resolve, reject) => {
    // Names are decoded below, as UTF-8 whatever the flag says (part names are ASCII in practice). yauzl's own size
    // check is off: checkZip refuses a part that declares gigabytes as a bomb, where yauzl would call it damaged, and
    // the guard counts what each part inflates to.
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: false }, (error, zip) => {
      if (error || !zip) return reject(badRequest(MESSAGES.damaged, "damaged_file"));
      // Where the directory starts: yauzl reads the entries from there (its cursor, before the first read).
      const dirOffset = (zip as unknown as { readEntryCursor: number }).readEntryCursor;
      const entries: yauzl.Entry[] = [];
      const done = (failure?: unknown) => {
        zip.close();
        if (failure) reject(badRequest(MESSAGES.damaged, "damaged_file"));
        else resolve({ entries, dirOffset });
      };
      zip.on("entry", (entry: yauzl.Entry) => {
        entries.push(entry);
        zip.readEntry();
      });
      zip.on("end", () => done());
      zip.on("error", done);
      zip.readEntry();
    });
  });
}

/**
 * Reads the zip's central directory before any inflating: it must hold a workbook, and its declared sizes must
 * be sane (a zip bomb declares gigabytes, or compresses a thousandfold). The streaming reader's row and time
 * limits catch a directory that lies.
 */
export async function checkZip(path: string): Promise<{ kind: "xlsx" | "ods"; entries: ZipEntry[] }> {
  const { entries, dirOffset } = await readDirectory(path);
  let total = 0;
  let hasWorkbook = false;
  let hasContent = false;
  const list: ZipEntry[] = [];
  for (const entry of entries) {
    const compressed = entry.compressedSize;
    const uncompressed = entry.uncompressedSize;
    // Some Windows tools zip with a backslash between folders; Excel reads such a package.
    const name = (entry.fileName as unknown as Buffer).toString("utf8").replace(/\\/g, "/");
    // Excel's workbook part, or the package relationships that say where another program put it.
    if (name === "xl/workbook.xml" || name.toLowerCase() === "_rels/.rels") hasWorkbook = true;
    if (name === "content.xml") hasContent = true;
    // A part of 4 GB or more (a zip64 size) is no spreadsheet's.
    if (uncompressed >= 0xffffffff || compressed >= 0xffffffff) throw badRequest(MESSAGES.bomb, "zip_bomb");
    total += uncompressed;
    // Sheet XML compresses about 10-30 times; a thousandfold on anything sizeable is a bomb.
    if (uncompressed > 10 * 1024 * 1024 && uncompressed > compressed * 1000) throw badRequest(MESSAGES.bomb, "zip_bomb");
    // An .ods holds every sheet in content.xml.
    const isSheet = /^xl\/worksheets\/[^/]+\.xml$/.test(name) || name === "content.xml";
    if (name === "xl/sharedStrings.xml" && uncompressed > SHEET_LIMITS.maxSharedStringsBytes) {
      throw badRequest(MESSAGES.tooManyStrings, "too_many_strings");
    }
    if (!isSheet && uncompressed > SHEET_LIMITS.maxPartBytes) throw badRequest(MESSAGES.bomb, "zip_bomb");
    list.push({
      name,
      flags: entry.generalPurposeBitFlag,
      method: entry.compressionMethod,
      compressed,
      uncompressed,
      localOffset: entry.relativeOffsetOfLocalHeader,
    });
  }
  if (total > SHEET_LIMITS.maxUnzippedBytes) throw badRequest(MESSAGES.bomb, "zip_bomb");
  if (!hasWorkbook && !hasContent) throw badRequest(MESSAGES.notSpreadsheet, "not_spreadsheet");
  const fd = fs.openSync(path, "r");
  try {
    checkZipLayout(fd, list, dirOffset);
  } finally {
    fs.closeSync(fd);
  }
  return { kind: hasWorkbook ? "xlsx" : "ods", entries: list };
}

export interface ZipEntry {
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
    // A zip whose entries are encrypted (a password set in an archiver): no spreadsheet program writes one.
    if (flags & 0x0001) throw badRequest(MESSAGES.encrypted, "file_encrypted");
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
export async function verifyEntries(path: string, entries: ZipEntry[]): Promise<void> {
  // The preview and the import's first look both stop early: inflate-check a file once.
  const stat = fs.statSync(path);
  const key = `${path}:${stat.size}:${stat.mtimeMs}`;
  if (verifiedZips.has(key)) return;
  for (const entry of entries) {
    for await (const _ of inflatedPart(path, entry, SHEET_LIMITS.maxXmlRunBytes)) {
      /* counted by the guard */
    }
  }
  verifiedZips.add(key);
  if (verifiedZips.size > 32) verifiedZips.delete(verifiedZips.values().next().value as string);
}

/** Why a part was refused while it was inflated: the caller turns these into its messages. */
export class ZipLimitError extends Error {
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
 * gigabyte is an attack). Throws ZipLimitError as soon as a limit is passed.
 */
function inflateGuard(entry: ZipEntry, maxXmlRunBytes: number) {
  const isXml = /\.(xml|rels)$/i.test(entry.name);
  let size = 0;
  let run = 0;
  return {
    chunk(chunk: Buffer) {
      size += chunk.length;
      if (size > entry.uncompressed) throw new ZipLimitError("bomb");
      if (!isXml) return;
      // Runs inside one chunk (at most CHUNK_BYTES) are always short: only the runs that cross chunks can grow.
      const first = chunk.indexOf(0x3c);
      if (first < 0) run += chunk.length;
      else if (run + first > maxXmlRunBytes) run += first;
      else run = chunk.length - chunk.lastIndexOf(0x3c) - 1;
      if (run > maxXmlRunBytes) throw new ZipLimitError("run");
    },
    end() {
      if (size !== entry.uncompressed) throw new ZipLimitError("size");
    },
  };
}

/** An entry's inflated bytes, checked by inflateGuard on the way. */
export async function* inflatedPart(file: string, entry: ZipEntry, maxXmlRunBytes: number): AsyncGenerator<Buffer> {
  if (entry.dataOffset === undefined) throw new Error(`no data offset for ${entry.name}`);
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

/**
 * An entry's XML as text, in chunks; a character split between two chunks stays whole. A part is UTF-8 unless its
 * first bytes say UTF-16 (a byte-order mark, or "<?" in two bytes a character), as some .NET generators write
 * parts; LibreOffice and Excel read those too.
 */
export async function* partText(file: string, entry: ZipEntry, maxXmlRunBytes: number): AsyncGenerator<string> {
  let decoder: StringDecoder | null = null;
  let bigEndian = false;
  let odd: Buffer | null = null;
  for await (let chunk of inflatedPart(file, entry, maxXmlRunBytes)) {
    if (!decoder) {
      const [a, b] = chunk;
      bigEndian = (a === 0xfe && b === 0xff) || (a === 0x00 && b === 0x3c);
      decoder = new StringDecoder(bigEndian || (a === 0xff && b === 0xfe) || (a === 0x3c && b === 0x00) ? "utf16le" : "utf8");
    }
    if (bigEndian) {
      // Node decodes UTF-16 little-endian only: swap each pair (a pair split between chunks waits for its half).
      if (odd) chunk = Buffer.concat([odd, chunk]);
      odd = chunk.length % 2 ? chunk.subarray(chunk.length - 1) : null;
      chunk = Buffer.from(chunk.subarray(0, chunk.length - (odd ? 1 : 0))).swap16();
    }
    yield decoder.write(chunk);
  }
  const rest = decoder?.end();
  if (rest) yield rest;
}
