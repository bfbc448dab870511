import type { SheetChoice, SheetRow } from "./limits";

/** How the sheet worker and the server's thread talk (reader.ts, worker.ts). */

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

export function* unpack(text: string, layout: Uint32Array): Generator<SheetRow> {
  let at = 0;
  for (let i = 0; i < layout.length;) {
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
