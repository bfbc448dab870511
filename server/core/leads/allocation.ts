import { eq, sql, type SQL } from "drizzle-orm";
import { z } from "zod";
import { type Db, queryRows } from "../../../db/client";
import { filterDatabases, filterStatuses, users } from "../../../db/schema";
import { type Actor, requireSelfOrAdmin } from "../actor";
import { notFound } from "../errors";
import { requireOpenFilter } from "../filters/filters";
import { idSchema, parseInput } from "../validation";

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** SPEC §3 Lead: one contact while a manager holds it. */
export interface Lead {
  id: number;
  name: string;
  phone: string;
  city: string;
  address: string;
  additionalInfo1: string;
  additionalInfo2: string;
  additionalInfo3: string;
  additionalInfo4: string;
}

/** A contacts row as raw SQL returns it (postgres.js answers int8 as text, so ids are normalised). */
interface ContactRow {
  id: number | string;
  database_id: number;
  name: string;
  phone: string;
  city: string;
  address: string;
  additional_info1: string;
  additional_info2: string;
  additional_info3: string;
  additional_info4: string;
}

export const CONTACT_COLUMNS = sql.raw(
  "id, database_id, name, phone, city, address, additional_info1, additional_info2, additional_info3, additional_info4",
);

export function presentLead(row: ContactRow): Lead {
  return {
    id: Number(row.id),
    name: row.name,
    phone: row.phone,
    city: row.city,
    address: row.address,
    additionalInfo1: row.additional_info1,
    additionalInfo2: row.additional_info2,
    additionalInfo3: row.additional_info3,
    additionalInfo4: row.additional_info4,
  };
}

/** What a filter makes eligible: its bases, and the statuses whose contacts it works again. */
export interface WorkSet {
  filterId: number;
  databaseIds: number[];
  statusIds: number[];
}

export async function loadWorkSet(db: Db | Tx, filterId: number): Promise<WorkSet> {
  const [bases, statusRows] = await Promise.all([
    db
      .select({ id: filterDatabases.databaseId })
      .from(filterDatabases)
      .where(eq(filterDatabases.filterId, filterId))
      .orderBy(filterDatabases.databaseId),
    db.select({ id: filterStatuses.statusId }).from(filterStatuses).where(eq(filterStatuses.filterId, filterId)),
  ]);
  return { filterId, databaseIds: bases.map((b) => b.id), statusIds: statusRows.map((s) => s.id) };
}

const list = (ids: number[]) =>
  sql.join(
    ids.map((id) => sql`${id}`),
    sql`, `,
  );

/**
 * The claim statements, tried in order; each is one atomic UPDATE over a `FOR UPDATE SKIP LOCKED` pick, so two
 * managers never hold one contact, on one instance or several (DESIGN §4):
 * 1. a contact whose holder abandoned it (hold expired) — few rows, the partial index on held_by;
 * 2. a free contact, bases in turn and rows in import order — the partial index contacts_free_idx, walked in
 *    its own order (database_id, id) so it stays fast however many contacts are already worked (DESIGN §10);
 * 3. a contact whose current status the filter works again, least recently touched first.
 */
export function claimStatements(userId: number, holdMinutes: number, work: WorkSet): SQL[] {
  const bases = list(work.databaseIds);
  const hold = sql`held_by = ${userId}, held_until = now() + make_interval(mins => ${holdMinutes})`;
  const reworkable =
    work.statusIds.length > 0 ? sql`(status_id is null or status_id in (${list(work.statusIds)}))` : sql`status_id is null`;
  const statements = [
    sql`update contacts set ${hold} where id = (
          select id from contacts
          where held_by is not null and held_until < now() and database_id in (${bases}) and ${reworkable}
          order by id limit 1 for update skip locked)
        returning ${CONTACT_COLUMNS}`,
    sql`update contacts set ${hold} where id = (
          select id from contacts
          where database_id in (${bases}) and status_id is null and held_by is null
          order by database_id, id limit 1 for update skip locked)
        returning ${CONTACT_COLUMNS}`,
  ];
  if (work.statusIds.length > 0) {
    statements.push(
      sql`update contacts set ${hold} where id = (
            select id from contacts
            where database_id in (${bases}) and status_id in (${list(work.statusIds)}) and held_by is null
            order by status_at nulls first, id limit 1 for update skip locked)
          returning ${CONTACT_COLUMNS}`,
    );
  }
  return statements;
}

/** Claims the next eligible contact for this manager, or null when the filter has nothing left. */
export async function claimNext(tx: Tx, userId: number, holdMinutes: number, work: WorkSet): Promise<Lead | null> {
  if (work.databaseIds.length === 0) return null;
  for (const statement of claimStatements(userId, holdMinutes, work)) {
    const [row] = await queryRows<ContactRow>(tx, statement);
    if (row) return presentLead(row);
  }
  return null;
}

/** Serialises one manager's lead calls, so he never ends up holding two contacts. */
export async function lockUser(tx: Tx, userId: number) {
  const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
  if (!user) throw notFound("Пользователь не найден", "user_not_found");
}

/**
 * The lead this manager holds, if it still belongs to the filter's bases (its hold is renewed); a hold from
 * another topic is let go.
 */
async function heldLead(tx: Tx, userId: number, holdMinutes: number, work: WorkSet): Promise<Lead | null> {
  const held = await queryRows<ContactRow>(
    tx,
    sql`select ${CONTACT_COLUMNS} from contacts where held_by = ${userId} order by id for update`,
  );
  let keep: ContactRow | null = null;
  for (const row of held) {
    if (!keep && work.databaseIds.includes(Number(row.database_id))) keep = row;
  }
  const release = held.filter((row) => row !== keep).map((row) => Number(row.id));
  if (release.length > 0) {
    await tx.execute(sql`update contacts set held_by = null, held_until = null where id in (${list(release)})`);
  }
  if (!keep) return null;
  await tx.execute(
    sql`update contacts set held_until = now() + make_interval(mins => ${holdMinutes}) where id = ${Number(keep.id)}`,
  );
  return presentLead(keep);
}

export const filteredLeadSchema = z.object({
  filterId: idSchema,
  userId: idSchema,
});

/**
 * GET /database/filtered-lead: the lead the manager holds, or a newly claimed one; null when none is left.
 * A manager asks only for himself, and only from an active filter that lists him.
 */
export async function getFilteredLead(
  db: Db,
  actor: Actor,
  holdMinutes: number,
  rawInput: unknown,
): Promise<Lead | null> {
  const input = parseInput(filteredLeadSchema, rawInput);
  requireSelfOrAdmin(actor, input.userId);
  return db.transaction(async (tx) => {
    const [, , work] = await Promise.all([
      lockUser(tx, input.userId),
      requireOpenFilter(tx, input.filterId, input.userId),
      loadWorkSet(tx, input.filterId),
    ]);
    return (await heldLead(tx, input.userId, holdMinutes, work)) ?? (await claimNext(tx, input.userId, holdMinutes, work));
  });
}
