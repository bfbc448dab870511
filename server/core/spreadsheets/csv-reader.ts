import { isUtf8 } from "node:buffer";
import fs from "node:fs";
import { pipeline, Readable } from "node:stream";
import { parse, type CsvError } from "csv-parse";
import { badRequest } from "../errors";

/**
 * A CSV base (issue 16), read inside the sheet worker like every upload (parse.ts dispatches here). Call
 * centres get these from 1C and CRMs, often in Windows-1251 with `;` between fields, or from Google Sheets and
 * Excel in UTF-8 with or without a BOM. The encoding is decided from the bytes (a BOM, else valid UTF-8, else
 * Windows-1251); the delimiter from the first lines (`,` `;` or tab, or Excel's `sep=` line). Parsing is
 * csv-parse's: quoted fields with line breaks and doubled quotes. Every value stays text, as written: phones keep
 * their leading zeros and `+`.
 */

export const CSV_MESSAGES = {
  binary: "Файл не похож на текстовую таблицу .csv: в нём двоичные данные. Загрузите файл .csv, .xlsx или .xls",
  mixedEncoding: "Не удалось прочитать текст файла: часть его не в кодировке UTF-8. Сохраните файл заново в UTF-8 или Windows-1251",
  quoteNotClosed: (row: number) => `Строка ${row}: кавычка в ячейке не закрыта до конца файла. Исправьте файл и загрузите его снова`,
  recordTooLong: (row: number) =>
    `Строка ${row} длиннее 4 000 000 символов: вероятно, в ней не закрыта кавычка. Исправьте файл и загрузите его снова`,
};

/** Characters one record (a row with all its cells) may hold: 100 columns of Excel's longest cells fit. */
const MAX_RECORD_CHARS = 4_000_000;
/** Bytes looked at to decide the encoding's kind, binary content and the delimiter. */
const HEAD_BYTES = 64 * 1024;
const CHUNK_BYTES = 1024 * 1024;

type Encoding = "utf-8" | "windows-1251" | "utf-16le" | "utf-16be";

/** A row as parse.ts takes it: its number (the record's, as a spreadsheet program shows it), cells, width. */
export interface CsvRow {
  number: number;
  cells: string[];
  width: number;
}

async function* chunks(path: string): AsyncGenerator<Buffer> {
  for await (const chunk of fs.createReadStream(path, { highWaterMark: CHUNK_BYTES })) yield chunk as Buffer;
}

/** How many bytes at the end of `buffer` start a UTF-8 sequence that the next chunk completes. */
function openSequence(buffer: Buffer): number {
  for (let back = 1; back <= Math.min(3, buffer.length); back++) {
    const byte = buffer[buffer.length - back];
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const needs = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needs > back ? back : 0;
  }
  return 0;
}

/** The whole file is valid UTF-8 (checked a chunk at a time: a 50 MB file takes a few milliseconds). */
async function wholeFileIsUtf8(path: string): Promise<boolean> {
  let carry = Buffer.alloc(0);
  for await (const chunk of chunks(path)) {
    const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
    const open = openSequence(data);
    if (!isUtf8(data.subarray(0, data.length - open))) return false;
    carry = Buffer.from(data.subarray(data.length - open));
  }
  return carry.length === 0;
}

function readHead(path: string): Buffer {
  const fd = fs.openSync(path, "r");
  try {
    const head = Buffer.alloc(HEAD_BYTES);
    return head.subarray(0, fs.readSync(fd, head, 0, HEAD_BYTES, 0));
  } finally {
    fs.closeSync(fd);
  }
}

async function detectEncoding(path: string, head: Buffer): Promise<Encoding> {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return "utf-8";
  if (head[0] === 0xff && head[1] === 0xfe) return "utf-16le";
  if (head[0] === 0xfe && head[1] === 0xff) return "utf-16be";
  if (head.includes(0)) throw badRequest(CSV_MESSAGES.binary, "not_spreadsheet");
  if (await wholeFileIsUtf8(path)) return "utf-8";
  // Mostly UTF-8 with a few bad bytes (a file glued from two, a cut character) would read as Windows-1251 garbage:
  // refused rather than imported wrong. Windows-1251 Cyrillic hardly ever forms UTF-8 sequences.
  if (utf8Share(head) > 0.8) throw badRequest(CSV_MESSAGES.mixedEncoding, "mixed_encoding");
  return "windows-1251";
}

/** The share of the bytes above 0x7f that are parts of valid UTF-8 sequences. */
function utf8Share(bytes: Buffer): number {
  let high = 0;
  let inSequences = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i];
    if (byte < 0x80) continue;
    const length = byte >= 0xc2 && byte <= 0xdf ? 2 : byte >= 0xe0 && byte <= 0xef ? 3 : byte >= 0xf0 && byte <= 0xf4 ? 4 : 0;
    let valid = length > 0 && i + length <= bytes.length;
    for (let k = 1; valid && k < length; k++) valid = (bytes[i + k] & 0xc0) === 0x80;
    if (valid) {
      high += length;
      inSequences += length;
      i += length - 1;
    } else high++;
  }
  return high ? inSequences / high : 0;
}

/**
 * Text has line breaks and tabs, not other control characters: a file with more than a few of them (an image,
 * an archive, a document) is refused rather than shown as garbage in the preview.
 */
function looksBinary(text: string): boolean {
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0) return true;
    if ((code < 0x20 && code !== 9 && code !== 10 && code !== 13 && code !== 12) || (code >= 0x7f && code < 0xa0)) controls++;
  }
  return controls > Math.max(4, text.length / 1000);
}

const DELIMITERS = ["\t", ";", ","] as const;

/**
 * The delimiter: the candidate that splits the first lines (quotes respected) into the same number of fields
 * most often, more fields winning a tie; tab before `;` before `,` when even. A file of one column has none.
 */
export function detectDelimiter(text: string): string {
  const lines: string[] = [];
  let inQuotes = false;
  let start = 0;
  for (let i = 0; i < text.length && lines.length < 30; i++) {
    const ch = text[i];
    if (ch === '"') inQuotes = !inQuotes;
    else if (!inQuotes && (ch === "\n" || ch === "\r")) {
      if (i > start) lines.push(text.slice(start, i));
      start = i + 1;
    }
  }
  // The last line counts only if the head holds the whole file (else it may be cut).
  if (lines.length === 0 && start < text.length) lines.push(text.slice(start));
  let best = { delimiter: ",", score: 0, fields: 0 };
  for (const delimiter of DELIMITERS) {
    const counts = lines.map((line) => {
      let n = 0;
      let quoted = false;
      for (const ch of line) {
        if (ch === '"') quoted = !quoted;
        else if (!quoted && ch === delimiter) n++;
      }
      return n;
    });
    const tally = new Map<number, number>();
    for (const n of counts) if (n > 0) tally.set(n, (tally.get(n) ?? 0) + 1);
    for (const [n, lineCount] of tally) {
      if (lineCount > best.score || (lineCount === best.score && n > best.fields)) best = { delimiter, score: lineCount, fields: n };
    }
  }
  return best.delimiter;
}

/** Excel's own hint on the first line, `sep=;`: the delimiter, and the line is not data. */
const SEP_LINE = /^sep=(.)\r?\n/;

/**
 * The records of a CSV file, each cell as text (trimming and the row limits are parse.ts's, as for every
 * format). Throws a Russian 400 for a binary file, mixed encodings or an unclosed quote.
 */
export async function* readCsv(path: string, maxColumns: number): AsyncGenerator<CsvRow> {
  const head = readHead(path);
  const encoding = await detectEncoding(path, head);
  const headText = new TextDecoder(encoding).decode(head.subarray(0, head.length - (encoding === "utf-8" ? openSequence(head) : 0)));
  if (looksBinary(headText)) throw badRequest(CSV_MESSAGES.binary, "not_spreadsheet");
  const sep = SEP_LINE.exec(headText);
  const delimiter = sep ? sep[1] : detectDelimiter(headText);

  const parser = parse({
    delimiter,
    relax_quotes: true,
    relax_column_count: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_CHARS,
    // Excel's `sep=` line is skipped; the parser counts lines from 1.
    from_line: sep ? 2 : 1,
  });
  // UTF-8 bytes go to the parser as they are (checked valid above); other encodings are decoded first (TextDecoder
  // drops a BOM). A pipeline: a read that stops early (the preview) closes the file with the parser.
  async function* text(): AsyncGenerator<Buffer | string> {
    const decoder = encoding === "utf-8" ? null : new TextDecoder(encoding);
    let first = true;
    for await (const chunk of chunks(path)) {
      if (decoder) yield decoder.decode(chunk, { stream: true });
      else yield first && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf ? chunk.subarray(3) : chunk;
      first = false;
    }
    if (decoder) yield decoder.decode();
  }
  pipeline(Readable.from(text(), { objectMode: false }), parser, () => {
    /* a failure reaches the loop below through the parser */
  });

  let number = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      number++;
      yield { number, cells: record.length > maxColumns ? record.slice(0, maxColumns) : record, width: record.length };
    }
  } catch (error) {
    const code = (error as CsvError).code;
    if (code === "CSV_QUOTE_NOT_CLOSED") throw badRequest(CSV_MESSAGES.quoteNotClosed(number + 1), "csv_quote_not_closed");
    if (code === "CSV_MAX_RECORD_SIZE") throw badRequest(CSV_MESSAGES.recordTooLong(number + 1), "csv_record_too_long");
    throw error;
  } finally {
    parser.destroy();
  }
}
