import fs from "node:fs";
import { MAX_UPLOAD_BYTES, NOT_SPREADSHEET, TOO_LARGE, workbookSignatureOf } from "../../../common/upload-kind";

/**
 * What a spreadsheet may be (limits), the Russian messages of its refusals, and the shapes the readers hand out:
 * shared by the server's side (reader.ts) and the worker's (worker.ts, parse.ts).
 */

export const SHEET_LIMITS = {
  /** Largest upload accepted at all. */
  maxFileBytes: MAX_UPLOAD_BYTES,
  /** An `.xls`'s workbook stream is held whole in memory (in a worker), and read once a window: a smaller cap. */
  maxXlsBytes: 20 * 1024 * 1024,
  /** Sum of the zip's uncompressed sizes; a real 1,000,000-row sheet stays far below. */
  maxUnzippedBytes: 1024 * 1024 * 1024,
  /** Excel's own row limit. */
  maxRows: 1_048_576,
  /** Columns read per row (the rest are dropped). */
  maxColumns: 100,
  /** Wall time for reading one file (the reader's own work, such as the import's writes, included). */
  maxSeconds: 300,
  /**
   * Time the worker may spend working on one file, waits for the reader not counted: a million rows take about
   * 15 s on a busy machine. Checked from outside, so it ends a worker stuck anywhere, not only between rows.
   */
  maxWorkSeconds: 120,
  /** The worker's heap (the shared strings of an .xlsx, or a window of an .xls's cells, are held in it). */
  workerHeapMb: 512,
  /**
   * Cells of an .xls the `xlsx` package reads at a time (a window of a sheet's rows, each a read of its own): it makes
   * each a dictionary of ~500 bytes, so a window takes ~100 MB of the worker's heap (decision 048).
   */
  xlsWindowCells: 200_000,
  /** The shared-string table is held in memory while the sheet is read: its XML may not be larger. */
  maxSharedStringsBytes: 100 * 1024 * 1024,
  /** Any other part but a worksheet (styles, workbook, relationships). */
  maxPartBytes: 100 * 1024 * 1024,
  /** Longest run of XML between two tags: a cell holds at most 32,767 characters, escaped a few bytes each. */
  maxXmlRunBytes: 1024 * 1024,
  /** Excel's limit of characters in one cell. */
  maxCellChars: 32_767,
  /** Rows without a single value (each may hold empty, formatted cells) before the file is refused. */
  maxEmptyRows: 100_000,
  /** Empty cells in such rows before the file is refused (a sheet of millions of empty cells). */
  maxEmptyCells: 1_000_000,
  /**
   * Characters that the repeat counts of an .ods (a cell or a row written once for several) may add to a sheet:
   * a few bytes must not grow into gigabytes of text.
   */
  maxRepeatedChars: 50_000_000,
  /**
   * Characters of the style names an .ods reader holds to tell a boolean cell from a 1/0 one: LibreOffice's files
   * have a few hundred short names; a file of millions of styles is refused.
   */
  maxOdsStyleChars: 10_000_000,
};

/**
 * A workbook's signature in a file's first bytes: a zip (.xlsx, .ods) or an OLE compound file (.xls); null for
 * anything else (text such as .csv has none).
 */
export function workbookSignature(file: string): "zip" | "ole" | null {
  const head = Buffer.alloc(8);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, head, 0, 8, 0);
  } finally {
    fs.closeSync(fd);
  }
  return workbookSignatureOf(head);
}

export const MESSAGES = {
  notSpreadsheet: NOT_SPREADSHEET,
  tooLarge: TOO_LARGE,
  xlsTooLarge: `Файл .xls слишком большой: не более ${SHEET_LIMITS.maxXlsBytes / 1024 / 1024} МБ. Сохраните его как .xlsx`,
  bomb: "Файл повреждён или подозрительно сильно сжат: импорт отменён",
  tooManyRows: `В файле слишком много строк: не более ${SHEET_LIMITS.maxRows.toLocaleString("ru-RU")}`,
  tooSlow: "Файл читается слишком долго: импорт отменён",
  damaged: "Не удалось прочитать файл: он повреждён или сохранён в неподдерживаемом формате",
  empty: "Файл пустой: в первом листе нет строк",
  allEmpty: "Файл пустой: ни в одном листе нет строк",
  tooManyStrings: `В файле слишком много текста: таблица строк больше ${SHEET_LIMITS.maxSharedStringsBytes / 1024 / 1024} МБ. Разбейте файл на части`,
  cellTooLong: "В ячейке больше 32 767 символов (предел Excel): файл повреждён или это не таблица",
  tooManyEmpty: "В файле слишком много пустых строк и ячеек: удалите их в Excel и загрузите файл снова",
  outOfMemory: "Файл слишком сложный, чтобы прочитать его целиком: сохраните его как .xlsx или разбейте на части",
  encrypted: "Файл защищён паролем: снимите пароль в программе, где он создан, и загрузите снова",
};

export interface ReadOptions {
  /** The file's name as uploaded: a text file is read as CSV only when named .csv, .tsv or .txt. */
  name?: string;
  /** Stop after this many rows (the preview reads a few). */
  limit?: number;
  /**
   * Inflate-check the whole .xlsx before the first row; by default when `limit` is set, since a read that stops
   * early would not reach a bomb further on. False for a first look that a full read follows.
   */
  checkFirst?: boolean;
  /**
   * The sheet to read, 1 = the first in tab order. By default the first, or when it holds nothing the first sheet
   * that holds something.
   */
  sheet?: number;
  /** Tell the sheets' names (the preview's sheet picker). */
  listSheets?: boolean;
}

/** A row of the sheet: its number in the file (as Excel shows it) and its cells as text. */
export interface SheetRow {
  number: number;
  cells: string[];
  /**
   * Columns (0 = A) of the formula cells whose value LibreOffice and Excel compute on opening the file while the file
   * holds none, or one that may be stale (decision 043): what `cells` says there is not what they show.
   */
  computed?: number[];
}

/** Which sheet the rows come from (0 = the first in tab order) and, when asked for, every sheet's name. */
export interface SheetChoice {
  index: number;
  names?: string[];
}
