/** Test files for CSV bases: text in the encodings call centres' programs write. */

let cp1251: Map<string, number> | undefined;

/** Text in Windows-1251, as 1C and older Excel save CSV (throws on a character the encoding lacks). */
export function windows1251(text: string): Buffer {
  if (!cp1251) {
    cp1251 = new Map();
    const decoder = new TextDecoder("windows-1251");
    for (let byte = 0; byte < 256; byte++) cp1251.set(decoder.decode(Uint8Array.of(byte)), byte);
  }
  return Buffer.from(
    [...text].map((ch) => {
      const byte = cp1251!.get(ch);
      if (byte === undefined) throw new Error(`not in Windows-1251: ${ch}`);
      return byte;
    }),
  );
}

export const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

export const utf8WithBom = (text: string) => Buffer.concat([UTF8_BOM, Buffer.from(text, "utf8")]);

export const utf16WithBom = (text: string) => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);

/** Rows as CSV: every cell quoted when it holds the delimiter, a quote or a line break (quotes doubled). */
export function csvText(rows: string[][], delimiter = ",", newline = "\r\n"): string {
  const cell = (value: string) =>
    value.includes(delimiter) || value.includes('"') || value.includes("\n") || value.includes("\r") ? `"${value.replace(/"/g, '""')}"` : value;
  return rows.map((row) => row.map(cell).join(delimiter)).join(newline) + newline;
}
