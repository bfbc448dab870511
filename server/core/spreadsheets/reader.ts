import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { AppError, badRequest } from "../errors";
import { MESSAGES, type ReadOptions, SHEET_LIMITS, type SheetChoice, type SheetRow } from "./limits";
import { unpack, type WorkerMessage } from "./protocol";

/**
 * Reading uploaded spreadsheets (DESIGN §8), always in a worker thread (worker.ts, which runs
 * parse.ts): no file, however hostile, can hold the server's event loop, so lead turns and every other
 * request go on while one is read. The worker has a heap limit and a limit on the time it spends working; past
 * either it is terminated, wherever it is in the file. Rows cross the thread boundary in batches, and the worker
 * stays a few batches ahead of the reader, so reading overlaps whatever the reader does with them (the import's
 * database writes) while memory stays bounded.
 */

/** The slice of esbuild's API used here. */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ outputFiles: Array<{ text: string }> }>;
}

let workerCode: Promise<string> | undefined;

/**
 * The worker's code: worker.ts and what it imports, bundled once per process by the esbuild that tsx (the
 * dependency that runs the server) brings. A worker then starts in tens of milliseconds; one that loaded a
 * TypeScript loader of its own took half a second, a fifth of a 100,000-row import. This module may itself run
 * bundled by `remix build` (build/index.js, or BUILD_DIR): the source is then looked for from there upwards.
 */
function buildWorkerCode(): Promise<string> {
  workerCode ??= (async () => {
    const here = fileURLToPath(import.meta.url);
    let entry = path.join(path.dirname(here), "worker.ts");
    for (let dir = path.dirname(here), i = 0; !fs.existsSync(entry) && i < 6; dir = path.dirname(dir), i++) {
      entry = path.join(dir, "server", "core", "spreadsheets", "worker.ts");
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
export async function* readRows(
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
    else
      settle(
        message.status ? new AppError(message.status, message.code ?? "bad_request", message.message) : badRequest(MESSAGES.damaged, "damaged_file"),
      );
    settle();
  };
  const onError = (error: Error & { code?: string }) =>
    settle(
      error.code === "ERR_WORKER_OUT_OF_MEMORY" ? badRequest(MESSAGES.outOfMemory, "too_complex") : badRequest(MESSAGES.damaged, "damaged_file"),
    );
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
