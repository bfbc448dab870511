import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { databases, exportParts, exports, statuses } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { baseVisible } from "../bases/visible";
import { kyivDate } from "../../../common/business-time";
import { badRequest, conflict, notFound } from "../errors";
import { createExportSchema, type ExportFormat } from "../../../common/schemas/exports";
import { idSchema, parseInput } from "../validation";
import { countExportRows, NO_STATUS_ID } from "./selection";

/** Postgres channel a new or restarted export is announced on (every instance's worker listens). */
export const EXPORTS_CHANNEL = "leaddesk_exports";
export { NO_STATUS_ID } from "./selection";
export const NO_STATUS_LABEL = "Без статуса";

export const exportNotFound = () => notFound("Экспорт не найден", "export_not_found");

// The input's shape is shared with the page form (common/schemas/exports.ts).
export { createExportSchema, EXPORT_FORMATS, type ExportFormat } from "../../../common/schemas/exports";
export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  csv: "text/csv; charset=utf-8",
};

export interface ExportView {
  id: number;
  name: string;
  createdAt: string;
  isExported: boolean;
  progress: number;
  /** Rows the file will hold (null for a job made before rows were counted) and rows written so far. */
  rowsTotal: number | null;
  rowsWritten: number;
  startTime: string | null;
  endTime: string | null;
  error: string | null;
  databaseIds: number[];
  statusIds: number[];
  format: ExportFormat;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

const columns = {
  id: exports.id,
  name: exports.name,
  createdAt: exports.createdAt,
  isExported: exports.isExported,
  progress: exports.progress,
  rowsTotal: exports.rowsTotal,
  rowsWritten: exports.rowsWritten,
  startTime: exports.startTime,
  endTime: exports.endTime,
  error: exports.error,
  databaseIds: exports.databaseIds,
  statusIds: exports.statusIds,
  format: exports.format,
};

function present(row: { [K in keyof typeof columns]: unknown } & Record<string, unknown>): ExportView {
  const r = row as unknown as {
    id: number;
    name: string;
    createdAt: Date;
    isExported: boolean;
    progress: number;
    rowsTotal: number | null;
    rowsWritten: number;
    startTime: Date | null;
    endTime: Date | null;
    error: string | null;
    databaseIds: number[];
    statusIds: number[];
    format: string;
  };
  return {
    id: r.id,
    name: r.name,
    createdAt: r.createdAt.toISOString(),
    isExported: r.isExported,
    progress: r.progress,
    rowsTotal: r.rowsTotal,
    rowsWritten: r.rowsWritten,
    startTime: iso(r.startTime),
    endTime: iso(r.endTime),
    error: r.error,
    databaseIds: r.databaseIds,
    statusIds: r.statusIds,
    format: r.format === "csv" ? "csv" : "xlsx",
  };
}

/** Every export, newest first (the file itself is not read). */
export async function listExports(db: Db, actor: Actor): Promise<ExportView[]> {
  requireAdmin(actor);
  const rows = await db.select(columns).from(exports).orderBy(desc(exports.id));
  return rows.map(present);
}

async function announce(db: Db, id: number) {
  await db.execute(sql`select pg_notify(${EXPORTS_CHANNEL}, ${String(id)})`);
}

/** Queues an export of the chosen bases' contacts whose current status is one of the chosen ones. */
export async function createExport(db: Db, actor: Actor, input: unknown): Promise<ExportView> {
  requireAdmin(actor);
  const { name, databaseIds, statusIds, format } = parseInput(createExportSchema, input);
  const knownBases = await db
    .select({ id: databases.id })
    .from(databases)
    .where(and(inArray(databases.id, databaseIds), baseVisible));
  if (knownBases.length !== databaseIds.length) throw badRequest("Выбранная база не найдена: обновите страницу", "base_not_found");
  const realStatuses = statusIds.filter((id) => id !== NO_STATUS_ID);
  if (realStatuses.length) {
    const known = await db.select({ id: statuses.id }).from(statuses).where(inArray(statuses.id, realStatuses));
    if (known.length !== realStatuses.length) throw badRequest("Выбранный статус не найден: обновите страницу", "status_not_found");
  }
  // Counted now, so the list says "0 of N rows" from the first second (the worker counts again when it starts).
  const rowsTotal = await countExportRows(db, { databaseIds, statusIds });
  const [row] = await db.insert(exports).values({ name, databaseIds, statusIds, format, rowsTotal, createdBy: actor.id }).returning(columns);
  await announce(db, row.id);
  return present(row);
}

/** Deletes the given exports, or all of them (`"all"`); answers how many went. */
export async function deleteExports(db: Db, actor: Actor, which: unknown[] | "all") {
  requireAdmin(actor);
  if (which === "all") {
    const gone = await db.delete(exports).returning({ id: exports.id });
    return { success: true, message: `Удалено экспортов: ${gone.length}`, deleted: gone.length };
  }
  const list = which.map((id) => parseInput(idSchema, id));
  if (list.length === 0) throw badRequest("Выберите хотя бы один экспорт", "nothing_selected");
  const gone = await db.delete(exports).where(inArray(exports.id, list)).returning({ id: exports.id });
  if (gone.length === 0) throw exportNotFound();
  return { success: true, message: `Удалено экспортов: ${gone.length}`, deleted: gone.length };
}

export async function deleteExport(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const gone = await db.delete(exports).where(eq(exports.id, id)).returning({ id: exports.id });
  if (gone.length === 0) throw exportNotFound();
  return { success: true, message: "Экспорт удалён", deleted: 1 };
}

/** Runs the job again from the start (after a crash, an error, or to get fresh data). */
export async function restartExport(db: Db, actor: Actor, rawId: unknown): Promise<ExportView> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [current] = await db.select({ databaseIds: exports.databaseIds, statusIds: exports.statusIds }).from(exports).where(eq(exports.id, id));
  if (!current) throw exportNotFound();
  const rowsTotal = await countExportRows(db, current);
  const row = await db.transaction(async (tx) => {
    const [job] = await tx
      .update(exports)
      .set({
        isExported: false,
        progress: 0,
        rowsTotal,
        rowsWritten: 0,
        error: null,
        startTime: null,
        endTime: null,
        claimedBy: null,
        claimedUntil: null,
        updatedAt: new Date(),
      })
      .where(eq(exports.id, id))
      .returning(columns);
    // The old file goes now; a worker still writing this job has lost it and stores no more parts.
    if (job) await tx.delete(exportParts).where(eq(exportParts.exportId, id));
    return job;
  });
  if (!row) throw exportNotFound();
  await announce(db, id);
  return present(row);
}

/** The finished file: `export-{date}.xlsx` or `.csv` (the Kyiv date it was finished), with its content type. */
export async function exportFile(db: Db, actor: Actor, rawId: unknown): Promise<{ filename: string; contentType: string; data: Buffer }> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db
    .select({ isExported: exports.isExported, endTime: exports.endTime, format: exports.format })
    .from(exports)
    .where(eq(exports.id, id));
  if (!row) throw exportNotFound();
  const parts = row.isExported
    ? await db.select({ data: exportParts.data }).from(exportParts).where(eq(exportParts.exportId, id)).orderBy(asc(exportParts.seq))
    : [];
  // No parts: not finished, or restarted between the two reads.
  if (parts.length === 0) throw conflict("Экспорт ещё не готов: дождитесь 100%", "export_not_ready");
  const data = Buffer.concat(parts.map((part) => part.data));
  const format: ExportFormat = row.format === "csv" ? "csv" : "xlsx";
  return { filename: `export-${kyivDate(row.endTime ?? new Date())}.${format}`, contentType: EXPORT_CONTENT_TYPES[format], data };
}
