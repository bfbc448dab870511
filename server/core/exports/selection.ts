import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";

/** The pseudo-status of contacts never called, offered beside the real statuses. */
export const NO_STATUS_ID = 0;

/** The contacts an export holds: in one of its bases, with one of its statuses (alias `c`). */
export function exportSelection(job: { databaseIds: number[]; statusIds: number[] }) {
  const real = job.statusIds.filter((id) => id !== NO_STATUS_ID);
  const parts = [];
  if (real.length) parts.push(sql`c.status_id in ${real}`);
  if (job.statusIds.includes(NO_STATUS_ID)) parts.push(sql`c.status_id is null`);
  const statusCond = parts.length === 2 ? sql`(${parts[0]} or ${parts[1]})` : (parts[0] ?? sql`false`);
  const bases = job.databaseIds.length ? sql`c.database_id in ${job.databaseIds}` : sql`false`;
  return sql`${bases} and ${statusCond}`;
}

/** How many rows the export's file will hold (the progress shows rows written of these). */
export async function countExportRows(db: Db, job: { databaseIds: number[]; statusIds: number[] }): Promise<number> {
  const [{ n }] = await selectRows(
    db,
    { n: sql<string | number>`count(*)` },
    (list) => sql`select ${list} from contacts c where ${exportSelection(job)}`,
  );
  return Number(n);
}
