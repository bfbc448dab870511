import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { AppError, badRequest } from "../errors";
import type { SheetChoice } from "./sheet-parse";
import { MAX_UPLOAD_BYTES, NOT_SPREADSHEET, TOO_LARGE, workbookSignatureOf } from "./upload-kind";

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

/**
 * What the worker posts: a batch of rows, the end, or the error that stopped it. A batch is packed as one string
 * of all its cells and their layout (per row: its number, its cell count, each cell's length): cloning one string
 * and moving one buffer across threads costs the server's thread a tenth of what cloning thousands of small
 * strings does.
 */
export type WorkerMessage =
  | { type: "rows"; text: string; layout: Uint32Array }
  | { type: "sheet"; choice: SheetChoice }
  | { type: "end" }
  | { type: "error"; status?: number; code?: string; message: string };

/** A batch is posted at this many rows or characters, whichever comes first. */
export const BATCH_ROWS = 2000;
export const BATCH_CHARS = 1 << 20;
/** Batches the worker may post ahead of the reader. */
export const BATCHES_AHEAD = 3;

/** The slice of esbuild's API used here. */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ text: string }> }>;
}

let workerCode: Promise<string> | undefined;

/**
 * The worker's code: sheet-worker.ts and what it imports, bundled once per process by the esbuild that tsx (the
 * dependency that runs the server) brings. A worker then starts in tens of milliseconds; one that loaded a
 * TypeScript loader of its own took half a second, a fifth of a 100,000-row import. This module may itself run
 * bundled by `remix build` (build/index.js, or BUILD_DIR): the source is then looked for from there upwards.
 */
function buildWorkerCode(): Promise<string> {
  workerCode ??= (async () => {
    const here = fileURLToPath(import.meta.url);
    let entry = path.join(path.dirname(here), "sheet-worker.ts");
    for (let dir = path.dirname(here), i = 0; !fs.existsSync(entry) && i < 6; dir = path.dirname(dir), i++) {
      entry = path.join(dir, "server", "core", "bases", "sheet-worker.ts");
    }
    const tsx = createRequire(entry).resolve("tsx/package.json");
    const esbuild = (await import(pathToFileURL(createRequire(tsx).resolve("esbuild")).href)) as Esbuild;
    const output = await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      write: false,
      external: ["xlsx"],
      logLevel: "silent",
    });
    return output.outputFiles[0].text;
  })();
  workerCode.catch(() => (workerCode = undefined));
  return workerCode;
}

/**
 * Files read at once: more wait their turn, so uploads (however many, however hostile) take at most this many of
 * the machine's cores from the requests the server's thread answers.
 */
const MAX_READERS = 2;
let readers = 0;
const waiting: Array<() => void> = [];

async function readerSlot(): Promise<void> {
  if (readers < MAX_READERS) {
    readers++;
    return;
  }
  // The slot is handed over by freeReaderSlot, the count unchanged.
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function freeReaderSlot() {
  const next = waiting.shift();
  if (next) next();
  else readers--;
}

/** Workers kept for the next file: their code is loaded and compiled, and hot after a first big file. */
const idle: Worker[] = [];
const MAX_IDLE = 2;
/** An idle worker ends after this long (its memory goes back). */
const IDLE_MS = 60_000;
const idleTimers = new WeakMap<Worker, NodeJS.Timeout>();

async function takeWorker(): Promise<Worker> {
  const worker = idle.pop();
  if (worker) {
    clearTimeout(idleTimers.get(worker));
    worker.ref();
    return worker;
  }
  const started = new Worker(await buildWorkerCode(), {
    eval: true,
    // The bundle needs no loader: the server's (`--import tsx`) is not started again in the worker.
    execArgv: [],
    workerData: { xlsx: createRequire(import.meta.url).resolve("xlsx") },
    // Any resource limit shrinks the young generation to a size where a sheet's millions of short-lived strings
    // cost a sixth more time in collections: it is set back to what the reading needs. 96 MB was no faster than
    // 16 on a 100,000-row .xlsx (1.30 against 1.33 CPU s) and held 50 MB more of the process' memory (decision 045).
    resourceLimits: { maxOldGenerationSizeMb: SHEET_LIMITS.workerHeapMb, maxYoungGenerationSizeMb: 16 },
  });
  // A worker that ends while it waits is not handed out again.
  started.on("exit", () => {
    const at = idle.indexOf(started);
    if (at >= 0) idle.splice(at, 1);
  });
  return started;
}

/** A worker that finished its file cleanly waits for the next one; it does not keep the process alive. */
function releaseWorker(worker: Worker) {
  if (idle.length >= MAX_IDLE) {
    void worker.terminate();
    return;
  }
  worker.unref();
  idle.push(worker);
  idleTimers.set(
    worker,
    setTimeout(() => {
      const at = idle.indexOf(worker);
      if (at >= 0) idle.splice(at, 1);
      void worker.terminate();
    }, IDLE_MS).unref(),
  );
}

/**
 * The rows of a sheet (empty rows left out; which sheet: ReadOptions.sheet), read in a worker thread. `onSheet`
 * hears which sheet they come from before the first row. Throws AppError (400) for a file
 * that is not a spreadsheet, is too big, too long, too slow, too complex or damaged. Stopping early (an error in
 * the reader) ends the worker.
 */
export async function* readSheetRows(
  file: string,
  options: ReadOptions = {},
  onSheet: (choice: SheetChoice) => void = () => {},
): AsyncGenerator<SheetRow> {
  await readerSlot();
  let worker: Worker;
  try {
    worker = await takeWorker();
  } catch (error) {
    freeReaderSlot();
    throw error;
  }
  const batches: Array<{ text: string; layout: Uint32Array }> = [];
  let ended = false;
  let failure: unknown = null;
  /** The worker is done with this file (its end or its refusal came), and free for another. */
  let finished = false;
  let wake: (() => void) | null = null;
  const settle = (error?: unknown) => {
    if (error && !ended && !failure) failure = error;
    wake?.();
    wake = null;
  };
  const onMessage = (message: WorkerMessage) => {
    if (message.type === "sheet") return onSheet(message.choice);
    if (message.type !== "rows") finished = true;
    if (message.type === "rows") batches.push(message);
    else if (message.type === "end") ended = true;
    else settle(message.status ? new AppError(message.status, message.code ?? "bad_request", message.message) : badRequest(MESSAGES.damaged, "damaged_file"));
    settle();
  };
  const onError = (error: Error & { code?: string }) =>
    settle(error.code === "ERR_WORKER_OUT_OF_MEMORY" ? badRequest(MESSAGES.outOfMemory, "too_complex") : badRequest(MESSAGES.damaged, "damaged_file"));
  const onExit = () => settle(badRequest(MESSAGES.damaged, "damaged_file"));
  worker.on("message", onMessage);
  worker.on("error", onError);
  worker.on("exit", onExit);
  const tooSlow = () => {
    settle(badRequest(MESSAGES.tooSlow, "too_slow"));
    finished = false;
    void worker.terminate();
  };
  const deadline = setTimeout(tooSlow, SHEET_LIMITS.maxSeconds * 1000);
  // The worker's busy time: it grows while the worker computes (stuck in one statement too), not while it waits.
  const busyBefore = worker.performance.eventLoopUtilization().active;
  const watch = setInterval(() => {
    if (worker.performance.eventLoopUtilization().active - busyBefore > SHEET_LIMITS.maxWorkSeconds * 1000) tooSlow();
  }, 100);
  worker.postMessage({ type: "read", file, options, limits: { ...SHEET_LIMITS } });
  try {
    for (;;) {
      const batch = batches.shift();
      if (batch) {
        // Taken: the worker may read one more batch ahead while these rows are used.
        worker.postMessage({ type: "more" });
        yield* unpack(batch.text, batch.layout);
      } else if (failure) throw failure;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    clearTimeout(deadline);
    clearInterval(watch);
    worker.off("message", onMessage);
    worker.off("error", onError);
    worker.off("exit", onExit);
    // A worker stopped half-way (the reader gave up, or a limit) is ended rather than kept.
    if (finished) releaseWorker(worker);
    else void worker.terminate();
    freeReaderSlot();
  }
}

/** A batch as the worker packs it (see WorkerMessage): per row its number, cell count, computed columns, cell lengths. */
export function pack(rows: SheetRow[]): { text: string; layout: Uint32Array } {
  let size = 0;
  for (const row of rows) size += 3 + row.cells.length + (row.computed?.length ?? 0);
  const layout = new Uint32Array(size);
  const cells: string[] = [];
  let i = 0;
  for (const row of rows) {
    layout[i++] = row.number;
    layout[i++] = row.cells.length;
    layout[i++] = row.computed?.length ?? 0;
    for (const column of row.computed ?? []) layout[i++] = column;
    for (const cell of row.cells) {
      layout[i++] = cell.length;
      cells.push(cell);
    }
  }
  return { text: cells.join(""), layout };
}

function* unpack(text: string, layout: Uint32Array): Generator<SheetRow> {
  let at = 0;
  for (let i = 0; i < layout.length; ) {
    const number = layout[i++];
    const cells = new Array<string>(layout[i++]);
    const computed = new Array<number>(layout[i++]);
    for (let c = 0; c < computed.length; c++) computed[c] = layout[i++];
    for (let c = 0; c < cells.length; c++) {
      const length = layout[i++];
      cells[c] = text.slice(at, at + length);
      at += length;
    }
    yield computed.length ? { number, cells, computed } : { number, cells };
  }
}
