import { parentPort, workerData } from "node:worker_threads";
import { isAppError } from "../errors";
import { parseSheetRows } from "./sheet-parse";
import { BATCH_CHARS, BATCH_ROWS, BATCHES_AHEAD, type ReadOptions, SHEET_LIMITS, type SheetRow, type WorkerMessage } from "./spreadsheet";

/**
 * The sheet worker (started by readSheetRows in spreadsheet.ts): parses one file and posts its rows in batches,
 * at most BATCHES_AHEAD ahead of the reader, which answers "more" for every batch it takes.
 */
const { file, options, limits } = workerData as { file: string; options: ReadOptions; limits: typeof SHEET_LIMITS };
Object.assign(SHEET_LIMITS, limits);
const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message);

let credit = BATCHES_AHEAD;
let wake: (() => void) | null = null;
port.on("message", () => {
  credit++;
  wake?.();
  wake = null;
});

async function main() {
  let batch: SheetRow[] = [];
  let chars = 0;
  const send = async () => {
    while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
    credit--;
    post({ type: "rows", rows: batch });
    batch = [];
    chars = 0;
  };
  for await (const row of parseSheetRows(file, options)) {
    batch.push(row);
    for (const cell of row.cells) chars += cell.length;
    if (batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) await send();
  }
  if (batch.length) await send();
  post({ type: "end" });
}

main().catch((error: unknown) => {
  if (isAppError(error)) post({ type: "error", status: error.status, code: error.code, message: error.message });
  else post({ type: "error", message: String((error as Error)?.message ?? error) });
});
