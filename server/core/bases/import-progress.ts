/**
 * How far the imports under way in this process have got, by upload: the import page asks while its save is in
 * flight, to show a count instead of a bar that only pulses. One process's memory: an import that another app
 * instance runs is not seen here, and the page then shows no count (the import itself is unaffected).
 */
const underWay = new Map<string, { ownerId: number; rows: number }>();

/** Starts following the import of `uploadId` by `ownerId`; `end()` when the import is over, however it ends. */
export function followImport(uploadId: string, ownerId: number) {
  const entry = { ownerId, rows: 0 };
  underWay.set(uploadId, entry);
  return {
    /** The data rows of the file read and written so far. */
    onProgress: (rows: number) => {
      entry.rows = rows;
    },
    end: () => {
      if (underWay.get(uploadId) === entry) underWay.delete(uploadId);
    },
  };
}

/** The rows the import of `uploadId` has written, for the admin who started it; null when none is under way here. */
export function importProgress(uploadId: string, ownerId: number): number | null {
  const entry = underWay.get(uploadId);
  return entry && entry.ownerId === ownerId ? entry.rows : null;
}
