/**
 * What an upload must be to be read as a base, decided from its name, its size and its first bytes only: the one
 * rule the browser applies before the upload starts (JavaScript on), the server as the first bytes arrive, and
 * the readers once the file is stored (issue 31: a 10 MB junk file was refused only after the whole upload).
 * No Node imports: the import page's bundle uses it too.
 */

/** Largest upload accepted at all. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

/** The names a CSV upload may have (the content still decides: a workbook named .csv is read as a workbook). */
export const CSV_NAME = /\.(csv|tsv|txt)$/i;

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const OLE_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
/** Bytes of a file's head the rule looks at: the longest signature. */
export const HEAD_BYTES = OLE_MAGIC.length;

export const NOT_SPREADSHEET = "Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv";
export const TOO_LARGE = `Файл слишком большой: не более ${MAX_UPLOAD_BYTES / 1024 / 1024} МБ`;

/**
 * A workbook's signature in a file's first bytes: a zip (.xlsx, .ods) or an OLE compound file (.xls); null for
 * anything else (text such as .csv has none).
 */
export function workbookSignatureOf(head: Uint8Array): "zip" | "ole" | null {
  const startsWith = (magic: number[]) => head.length >= magic.length && magic.every((byte, i) => head[i] === byte);
  return startsWith(ZIP_MAGIC) ? "zip" : startsWith(OLE_MAGIC) ? "ole" : null;
}

/**
 * Why an upload cannot be a base, or null when it may be one: too large, or neither a workbook (by its first
 * bytes) nor a text file named .csv, .tsv or .txt. `head` is at least the file's first HEAD_BYTES bytes (or all
 * of a shorter file); `size` is checked when known.
 */
export function uploadRefusal(head: Uint8Array, name: string, size?: number): string | null {
  if (size !== undefined && size > MAX_UPLOAD_BYTES) return TOO_LARGE;
  if (workbookSignatureOf(head) || CSV_NAME.test(name)) return null;
  return NOT_SPREADSHEET;
}
