import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { databases, statuses } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { notFound } from "../errors";
import { idSchema, parseInput, requiredText } from "../validation";
import { baseVisible } from "./visible";
import { sortStatuses } from "../statuses/order";

export interface BaseRow {
  id: number;
  name: string;
  createdAt: string;
  contactsCount: number;
  /** Contacts never called (no status yet). */
  freeCount: number;
  /** Contacts whose current status is this one, keyed by the status' button text. */
  statusCounts: Record<string, number>;
}

export const baseNotFound = () => notFound("База не найдена", "base_not_found");

/** The statuses, in the one order (order.ts) the table's columns and the export dialog show them. */
export async function statusColumns(db: Db) {
  const rows = await db
    .select({
      id: statuses.id,
      text: statuses.text,
      buttonText: statuses.buttonText,
      order: statuses.order,
      isTechnical: statuses.isTechnical,
      isReportStatus: statuses.isReportStatus,
    })
    .from(statuses);
  return sortStatuses(rows);
}

const buttonLabel = (s: { text: string; buttonText: string }) => s.buttonText || s.text;

/**
 * Every base with its counts. Per-status counts walk contacts_rework_idx (database_id, status_id, ...) for the
 * contacts that have a status; free ones are the rest of the count fixed at import.
 */
export async function listBases(db: Db, actor: Actor): Promise<BaseRow[]> {
  requireAdmin(actor);
  const [bases, columns, counts] = await Promise.all([
    db.select().from(databases).where(baseVisible).orderBy(asc(databases.id)),
    statusColumns(db),
    selectRows(
      db,
      { database_id: sql<number>`database_id`, status_id: sql<number>`status_id`, n: sql<string | number>`count(*)` },
      (list) => sql`select ${list} from contacts where status_id is not null group by database_id, status_id`,
    ),
  ]);
  const labelOf = new Map(columns.map((s) => [s.id, buttonLabel(s)]));
  const byBase = new Map<number, Record<string, number>>();
  const worked = new Map<number, number>();
  for (const row of counts) {
    const n = Number(row.n);
    const label = labelOf.get(row.status_id);
    worked.set(row.database_id, (worked.get(row.database_id) ?? 0) + n);
    if (!label) continue;
    const record = byBase.get(row.database_id) ?? {};
    record[label] = (record[label] ?? 0) + n;
    byBase.set(row.database_id, record);
  }
  return bases.map((base) => {
    const statusCounts: Record<string, number> = {};
    for (const s of columns) statusCounts[buttonLabel(s)] = byBase.get(base.id)?.[buttonLabel(s)] ?? 0;
    return {
      id: base.id,
      name: base.name,
      createdAt: base.createdAt.toISOString(),
      contactsCount: base.contactsCount,
      freeCount: Math.max(0, base.contactsCount - (worked.get(base.id) ?? 0)),
      statusCounts,
    };
  });
}

/** Selection lists: the placeholder Выберите базу (id 0) first, then every base by name. */
export async function baseOptions(db: Db, actor: Actor): Promise<Array<{ id: number; name: string }>> {
  requireAdmin(actor);
  const bases = await db.select({ id: databases.id, name: databases.name }).from(databases).where(baseVisible).orderBy(asc(databases.name));
  return [{ id: 0, name: "Выберите базу" }, ...bases];
}

/**
 * Deletes a base with its contacts (cascade). History stays: lead events keep their status text with the base
 * reference cleared; exports forget the base id (their stored files are kept).
 */
export async function deleteBase(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  return db.transaction(async (tx) => {
    const [base] = await tx.delete(databases).where(eq(databases.id, id)).returning({ name: databases.name });
    if (!base) throw baseNotFound();
    await tx.execute(sql`update exports set database_ids = array_remove(database_ids, ${id}) where ${id} = any(database_ids)`);
    return { success: true, message: `База «${base.name}» удалена` };
  });
}

/** Every status press ever made on the bases of this name, per status (from the append-only events). */
export async function countsAllTime(db: Db, actor: Actor, rawName: unknown): Promise<Array<{ status: string; count: number }>> {
  requireAdmin(actor);
  const name = parseInput(requiredText("Укажите название базы", 200), rawName);
  const bases = await db
    .select({ id: databases.id })
    .from(databases)
    .where(and(eq(databases.name, name), baseVisible));
  if (bases.length === 0) throw baseNotFound();
  const ids = bases.map((b) => b.id);
  const rows = await selectRows(
    db,
    { status: sql<string>`status_text`, n: sql<string | number>`count(*)` },
    (list) => sql`select ${list} from lead_events
        where database_id in ${ids} group by status_text order by count(*) desc, status_text`,
  );
  return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
}
