import { eq, sql } from "drizzle-orm";
import type { DbHandle } from "../../db/client";
import { contacts, databases, filterDatabases, filterManagers, filterStatuses, filters, statuses, type Status } from "../../db/schema";

type Db = DbHandle["db"];

let baseCounter = 0;

/** A base with `count` contacts straight in the database (the import feature is built elsewhere). */
export async function createBase(db: Db, options: { name?: string; count?: number; prefix?: string } = {}) {
  baseCounter += 1;
  // A base's phones are +38050 and 7 digits: its number (1-99) and the contact's. The counter outlives a file where
  // files share their worker (vitest.config.ts), and past 99 lpad cut every phone of a base to one number.
  const series = ((baseCounter - 1) % 99) + 1;
  const count = options.count ?? 3;
  const prefix = options.prefix ?? `Клиент ${baseCounter}`;
  const [base] = await db
    .insert(databases)
    .values({ name: options.name ?? `База ${baseCounter}`, contactsCount: count })
    .returning();
  if (count > 0) {
    // generate_series keeps big bases quick to build; names and phones follow import order.
    await db.execute(sql`
      insert into contacts (database_id, name, phone, phone_key, city, address, additional_info1)
      select ${base.id}, ${prefix} || '-' || g, '+38050' || lpad((${series} * 100000 + g)::text, 7, '0'),
             '38050' || lpad((${series} * 100000 + g)::text, 7, '0'), 'Киев', 'ул. Шевченко, ' || g, 'инфо ' || g
      from generate_series(1, ${count}) as g`);
  }
  const rows = await db.select().from(contacts).where(eq(contacts.databaseId, base.id)).orderBy(contacts.id);
  return { base, contacts: rows };
}

/** A filter straight in the database (the API test of filters goes through the API instead). */
export async function createFilterRow(
  db: Db,
  fields: { name?: string; managerIds: number[]; databaseIds: number[]; statusIds: number[]; isActive?: boolean; templateId?: number | null },
) {
  const [filter] = await db
    .insert(filters)
    .values({ name: fields.name ?? "Тематика", isActive: fields.isActive ?? true, templateId: fields.templateId ?? null })
    .returning();
  if (fields.managerIds.length) await db.insert(filterManagers).values(fields.managerIds.map((userId) => ({ filterId: filter.id, userId })));
  if (fields.databaseIds.length)
    await db.insert(filterDatabases).values(fields.databaseIds.map((databaseId) => ({ filterId: filter.id, databaseId })));
  if (fields.statusIds.length) await db.insert(filterStatuses).values(fields.statusIds.map((statusId) => ({ filterId: filter.id, statusId })));
  return filter;
}

/** The seeded statuses by their text (Недозвон, Занято, Перезвонить, Отказ, Заявка). */
export async function statusesByText(db: Db): Promise<Record<string, Status>> {
  const rows = await db.select().from(statuses);
  return Object.fromEntries(rows.map((s) => [s.text, s]));
}
