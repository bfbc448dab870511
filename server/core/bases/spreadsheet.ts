import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { AppError, badRequest } from "../errors";

/**
 * Reading uploaded spreadsheets (DESIGN §8), always in a worker thread (sheet-worker.ts, which runs
 * sheet-parse.ts): no file, however hostile, can hold the server's event loop, so lead turns and every other
 * request go on while one is read. The worker has a heap limit and a limit on the time it spends working; past
 * either it is terminated, wherever it is in the file. Rows cross the thread boundary in batches, and the worker
 * stays a few batches ahead of the reader, so reading overlaps whatever the reader does with them (the import's
 * database writes) while memory stays bounded.
 */

export const SHEET_LIMITS = {
  /** Largest upload accepted at all. */
  maxFileBytes: 50 * 1024 * 1024,
  /** `.xls` is parsed whole in memory (in a worker): a smaller cap. */
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
  /** The worker's heap (the shared strings of an .xlsx, or a whole .xls, are held in it). */
  workerHeapMb: 512,
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
};

export const MESSAGES = {
  notSpreadsheet: "Файл не является таблицей Excel: загрузите файл .xlsx или .xls",
  tooLarge: `Файл слишком большой: не более ${SHEET_LIMITS.maxFileBytes / 1024 / 1024} МБ`,
  xlsTooLarge: `Файл .xls слишком большой: не более ${SHEET_LIMITS.maxXlsBytes / 1024 / 1024} МБ. Сохраните его как .xlsx`,
  bomb: "Файл повреждён или подозрительно сильно сжат: импорт отменён",
  tooManyRows: `В файле слишком много строк: не более ${SHEET_LIMITS.maxRows.toLocaleString("ru-RU")}`,
  tooSlow: "Файл читается слишком долго: импорт отменён",
  damaged: "Не удалось прочитать файл: он повреждён или сохранён в неподдерживаемом формате",
  empty: "Файл пустой: в первом листе нет строк",
  tooManyStrings: `В файле слишком много текста: таблица строк больше ${SHEET_LIMITS.maxSharedStringsBytes / 1024 / 1024} МБ. Разбейте файл на части`,
  cellTooLong: "В ячейке больше 32 767 символов (предел Excel): файл повреждён или это не таблица",
  tooManyEmpty: "В файле слишком много пустых строк и ячеек: удалите их в Excel и загрузите файл снова",
  outOfMemory: "Файл слишком сложный, чтобы прочитать его целиком: сохраните его как .xlsx или разбейте на части",
};

export interface ReadOptions {
  /** Stop after this many rows (the preview reads a few). */
  limit?: number;
  /**
   * Inflate-check the whole .xlsx before the first row; by default when `limit` is set, since a read that stops
   * early would not reach a bomb further on. False for a first look that a full read follows.
   */
  checkFirst?: boolean;
}

/** A row of the first sheet: its number in the file (as Excel shows it) and its cells as text. */
export interface SheetRow {
  number: number;
  cells: string[];
}

/** What the worker posts: a batch of rows, the end, or the error that stopped it. */
export type WorkerMessage =
  | { type: "rows"; rows: SheetRow[] }
  | { type: "end" }
  | { type: "error"; status?: number; code?: string; message: string };

/** A batch is posted at this many rows or characters, whichever comes first. */
export const BATCH_ROWS = 2000;
export const BATCH_CHARS = 1 << 20;
/** Batches the worker may post ahead of the reader. */
export const BATCHES_AHEAD = 3;

/** The worker's code: loads sheet-worker.ts through tsx, which works in any thread (tsx is a dependency). */
const BOOT = `
const { workerData } = require("node:worker_threads");
import(workerData.tsx).then(({ tsImport }) => tsImport(workerData.entry, workerData.entry));
`;

let located: { entry: string; tsx: string } | undefined;

/**
 * Where sheet-worker.ts and tsx's loader are. This module also runs bundled by `remix build` (into
 * build/index.js or BUILD_DIR): then the worker's source is looked for from the bundle's folder upwards.
 */
function locate(): { entry: string; tsx: string } {
  if (located) return located;
  const here = fileURLToPath(import.meta.url);
  let entry = path.join(path.dirname(here), "sheet-worker.ts");
  for (let dir = path.dirname(here), i = 0; !fs.existsSync(entry) && i < 6; dir = path.dirname(dir), i++) {
    entry = path.join(dir, "server", "core", "bases", "sheet-worker.ts");
  }
  if (!fs.existsSync(entry)) throw new Error("server/core/bases/sheet-worker.ts not found");
  const tsxRoot = path.dirname(createRequire(entry).resolve("tsx/package.json"));
  located = { entry: pathToFileURL(entry).href, tsx: pathToFileURL(path.join(tsxRoot, "dist", "esm", "api", "index.mjs")).href };
  return located;
}

/**
 * The rows of the first sheet (empty rows left out), read in a worker thread. Throws AppError (400) for a file
 * that is not a spreadsheet, is too big, too long, too slow, too complex or damaged. Stopping early (a preview, an
 * error in the reader) ends the worker.
 */
export async function* readSheetRows(file: string, options: ReadOptions = {}): AsyncGenerator<SheetRow> {
  const { entry, tsx } = locate();
  const worker = new Worker(BOOT, {
    eval: true,
    workerData: { entry, tsx, file, options, limits: { ...SHEET_LIMITS } },
    resourceLimits: { maxOldGenerationSizeMb: SHEET_LIMITS.workerHeapMb },
  });
  const batches: SheetRow[][] = [];
  let ended = false;
  let failure: unknown = null;
  let wake: (() => void) | null = null;
  const settle = (error?: unknown) => {
    if (error && !ended && !failure) failure = error;
    wake?.();
    wake = null;
  };
  worker.on("message", (message: WorkerMessage) => {
    if (message.type === "rows") batches.push(message.rows);
    else if (message.type === "end") ended = true;
    else settle(message.status ? new AppError(message.status, message.code ?? "bad_request", message.message) : badRequest(MESSAGES.damaged, "damaged_file"));
    settle();
  });
  worker.on("error", (error: Error & { code?: string }) =>
    settle(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? badRequest(MESSAGES.outOfMemory, "too_complex") : badRequest(MESSAGES.damaged, "damaged_file")),
  );
  worker.on("exit", () => settle(badRequest(MESSAGES.damaged, "damaged_file")));
  const tooSlow = () => {
    settle(badRequest(MESSAGES.tooSlow, "too_slow"));
    void worker.terminate();
  };
  const deadline = setTimeout(tooSlow, SHEET_LIMITS.maxSeconds * 1000);
  // The worker's busy time: it grows while the worker computes (stuck in one statement too), not while it waits.
  const watch = setInterval(() => {
    if (worker.performance.eventLoopUtilization().active > SHEET_LIMITS.maxWorkSeconds * 1000) tooSlow();
  }, 100);
  try {
    for (;;) {
      const batch = batches.shift();
      if (batch) {
        // Taken: the worker may read one more batch ahead while these rows are used.
        worker.postMessage("more");
        yield* batch;
      } else if (failure) throw failure;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    clearTimeout(deadline);
    clearInterval(watch);
    void worker.terminate();
  }
}


