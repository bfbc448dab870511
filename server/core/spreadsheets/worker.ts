import { parentPort, workerData } from "node:worker_threads";
import { isAppError } from "../errors";
import { type ReadOptions, SHEET_LIMITS, type SheetRow } from "./limits";
import { parseSheetRows, useXlsxFrom } from "./parse";
import { BATCH_CHARS, BATCH_ROWS, BATCHES_AHEAD, pack, type WorkerMessage } from "./protocol";

/**
 * A sheet worker (started and kept by readRows in reader.ts): reads the files it is given one at a time
 * and posts each one's rows in batches, at most BATCHES_AHEAD ahead of the reader, which answers "more" for every
 * batch it takes.
 */
type Command = { type: "read"; file: string; options: ReadOptions; limits: typeof SHEET_LIMITS } | { type: "more" };

useXlsxFrom((workerData as { xlsx: string }).xlsx);
const port = parentPort!;
const post = (message: WorkerMessage) => port.postMessage(message, message.type === "rows" ? [message.layout.buffer as ArrayBuffer] : []);

let credit = 0;
let wake: (() => void) | null = null;
port.on("message", (command: Command) => {
  if (command.type === "read") {
    credit = BATCHES_AHEAD;
    read(command.file, command.options, command.limits).catch((error: unknown) => {
      if (isAppError(error)) post({ type: "error", status: error.status, code: error.code, message: error.message });
      else post({ type: "error", message: String((error as Error)?.message ?? error) });
    });
  } else {
    credit++;
    wake?.();
    wake = null;
  }
});

async function read(file: string, options: ReadOptions, limits: typeof SHEET_LIMITS) {
  // The server's limits, as tests may set them.
  Object.assign(SHEET_LIMITS, limits);
  let batch: SheetRow[] = [];
  let chars = 0;
  const send = async () => {
    while (credit <= 0) await new Promise<void>((resolve) => (wake = resolve));
    credit--;
    post({ type: "rows", ...pack(batch) });
    batch = [];
    chars = 0;
  };
  for await (const row of parseSheetRows(file, options, (choice) => post({ type: "sheet", choice }))) {
    batch.push(row);
    for (const cell of row.cells) chars += cell.length;
    if (batch.length >= BATCH_ROWS || chars >= BATCH_CHARS) await send();
  }
  if (batch.length) await send();
  post({ type: "end" });
}
