import { sql } from "drizzle-orm";
import { queryRows, type Db, type DbHandle } from "../../db/client";
import { type RowOf, selectList, selectRows } from "../../db/typed-sql";
import { migrationJournal, migrationsUpTo } from "./migrations";

/**
 * A logical backup (docs/decisions/028): every table of the `public` schema read in one REPEATABLE READ,
 * READ ONLY transaction through the app's own connection, so it is consistent while the app serves and the same
 * on PGlite and Postgres. The file is JSON lines (gzipped by the tools):
 *   ["lead-desk-backup", { version, migrations, migratedAt, createdAt }]
 *   ["table", name] then ["row", {...}] per row (tables in foreign-key order)
 *   ["sequence", name, lastValue, isCalled]
 *   ["end", { tables: { name: { rows, checksum } } }]   (counted by the database in the same snapshot)
 * A file without its "end" line is incomplete and is refused.
 */
export const BACKUP_FORMAT = "lead-desk-backup";
const FETCH_ROWS = 1000;
const INSERT_ROWS = 500;

export interface BackupHeader {
  version: 1;
  /** How many migrations the source had applied, and the last one's timestamp (drizzle's journal `when`). */
  migrations: number;
  migratedAt: number;
  createdAt: string;
}

export type TableSums = Record<string, { rows: number; checksum: string }>;

const ident = (name: string) => sql.raw(`"${name.replaceAll('"', '""')}"`);

/** Tables of `public`, parents before the tables whose foreign keys point at them. */
/** A table's row in a backup: the row as JSON text (the cursor's one column). */
const BACKUP_ROW = { r: sql<string>`to_jsonb(t)::text` };

async function tablesInForeignKeyOrder(db: Db): Promise<string[]> {
  const tables = (
    await selectRows(db, { name: sql<string>`tablename` }, (list) => sql`select ${list} from pg_tables where schemaname = 'public' order by 1`)
  ).map((r) => r.name);
  const edges = await selectRows(
    db,
    { child: sql<string>`c.relname`, parent: sql<string>`p.relname` },
    (list) => sql`select ${list} from pg_constraint k
        join pg_class c on c.oid = k.conrelid join pg_class p on p.oid = k.confrelid
        join pg_namespace n on n.oid = c.relnamespace
        where k.contype = 'f' and n.nspname = 'public' and c.oid <> p.oid`,
  );
  const ordered: string[] = [];
  const state = new Map<string, "visiting" | "done">();
  const visit = (table: string) => {
    if (state.get(table)) return; // done, or a cycle (none in our schema): its order then does not matter more
    state.set(table, "visiting");
    for (const edge of edges) if (edge.child === table) visit(edge.parent);
    state.set(table, "done");
    ordered.push(table);
  };
  tables.forEach(visit);
  return ordered;
}

/** Row count and an order-independent checksum of every table: md5 over the sorted md5s of the rows as JSON. */
export async function tableSums(db: Db, tables?: string[]): Promise<TableSums> {
  const sums: TableSums = {};
  for (const table of tables ?? (await tablesInForeignKeyOrder(db))) {
    const [row] = await selectRows(
      db,
      { rows: sql<number>`count(*)::int`, checksum: sql<string | null>`md5(string_agg(h, '' order by h))` },
      (list) => sql`select ${list}
          from (select md5(to_jsonb(t)::text) as h from ${ident(table)} t) r`,
    );
    sums[table] = { rows: Number(row.rows), checksum: row.checksum ?? "" };
  }
  return sums;
}

async function appliedMigrations(db: Db): Promise<{ count: number; last: number }> {
  const [row] = await selectRows(
    db,
    { count: sql<number>`count(*)::int`, last: sql<string | null>`max(created_at)::text` },
    (list) => sql`select ${list} from drizzle.__drizzle_migrations`,
  );
  return { count: Number(row.count), last: Number(row.last ?? 0) };
}

/** Writes a whole backup through `write` (one JSON line per call) from one consistent snapshot. */
export async function writeBackup(db: Db, write: (line: string) => Promise<void> | void): Promise<{ header: BackupHeader; sums: TableSums }> {
  return db.transaction(
    async (tx) => {
      const t = tx as unknown as Db;
      const migrations = await appliedMigrations(t);
      const header: BackupHeader = { version: 1, migrations: migrations.count, migratedAt: migrations.last, createdAt: new Date().toISOString() };
      await write(JSON.stringify([BACKUP_FORMAT, header]));
      const tables = await tablesInForeignKeyOrder(t);
      for (const table of tables) {
        await write(JSON.stringify(["table", table]));
        await t.execute(sql`declare backup_rows no scroll cursor for select ${selectList(BACKUP_ROW)} from ${ident(table)} t`);
        for (;;) {
          // eslint-disable-next-line no-restricted-syntax -- a FETCH answers the columns its cursor's DECLARE selected: selectList(BACKUP_ROW) above
          const rows = await queryRows<RowOf<typeof BACKUP_ROW>>(t, sql.raw(`fetch ${FETCH_ROWS} from backup_rows`));
          for (const row of rows) await write(`["row",${row.r}]`);
          if (rows.length < FETCH_ROWS) break;
        }
        await t.execute(sql`close backup_rows`);
      }
      const sequences = await selectRows(
        t,
        { name: sql<string>`sequencename` },
        (list) => sql`select ${list} from pg_sequences where schemaname = 'public' order by 1`,
      );
      for (const { name } of sequences) {
        const [s] = await selectRows(
          t,
          { last_value: sql<string>`last_value::text`, is_called: sql<boolean>`is_called` },
          (list) => sql`select ${list} from ${ident(name)}`,
        );
        await write(JSON.stringify(["sequence", name, s.last_value, s.is_called]));
      }
      const sums = await tableSums(t, tables);
      await write(JSON.stringify(["end", { tables: sums }]));
      return { header, sums };
    },
    { isolationLevel: "repeatable read", accessMode: "read only" },
  );
}

export class RestoreRefused extends Error {}

/** Whether the target holds anything: a restore goes only into an empty database (never over live data). */
export async function describeNonEmpty(db: Db): Promise<string | null> {
  const [row] = await selectRows(
    db,
    { n: sql<number>`count(*)::int` },
    (list) => sql`select ${list} from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`,
  );
  return Number(row.n) > 0 ? `в ней уже есть таблицы (${row.n})` : null;
}

/**
 * Loads a backup into an empty database: the schema as of the backup's version, its rows (triggers off, so
 * rollups and counters come back as they were, not counted twice), its sequences; checks every table against
 * the backup's counts and checksums; then applies the migrations that came after it.
 */
export async function restoreBackup(handle: DbHandle, lines: AsyncIterable<string>): Promise<{ sums: TableSums }> {
  // Taken before the first await: readline drops the lines it reads before its iterator exists.
  const iterator = lines[Symbol.asyncIterator]();
  const nonEmpty = await describeNonEmpty(handle.db);
  if (nonEmpty) throw new RestoreRefused(`База данных не пуста: ${nonEmpty}. Восстановление делается только в новую пустую базу.`);
  const next = async () => {
    const { value, done } = await iterator.next();
    return done ? null : (JSON.parse(value) as unknown[]);
  };
  const first = await next();
  if (!first || first[0] !== BACKUP_FORMAT) throw new RestoreRefused("Это не резервная копия Lead desk.");
  const header = first[1] as BackupHeader;
  const journal = migrationJournal();
  if (header.migrations > journal.length || journal[header.migrations - 1]?.when !== header.migratedAt) {
    throw new RestoreRefused("Резервная копия сделана другой (более новой) версией программы: обновите программу и повторите.");
  }
  const schema = migrationsUpTo(header.migrations);
  try {
    await handle.migrate(schema.folder);
  } finally {
    schema.remove();
  }

  let expected: TableSums | null = null;
  const tables: string[] = [];
  await handle.db.transaction(async (tx) => {
    const t = tx as unknown as Db;
    let table = "";
    let batch: string[] = [];
    const flush = async () => {
      if (!batch.length) return;
      const columns = await selectRows(
        t,
        { name: sql<string>`attname` },
        (q) => sql`select ${q} from pg_attribute where attrelid = ${`public."${table.replaceAll('"', '""')}"`}::regclass
            and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
      );
      const list = sql.raw(columns.map((c) => `"${c.name.replaceAll('"', '""')}"`).join(", "));
      await t.execute(
        sql`insert into ${ident(table)} (${list}) select ${list} from jsonb_populate_recordset(null::${ident(table)}, ${`[${batch.join(",")}]`}::jsonb)`,
      );
      batch = [];
    };
    for (let line = await next(); line; line = await next()) {
      if (line[0] === "row") {
        batch.push(JSON.stringify(line[1]));
        if (batch.length >= INSERT_ROWS) await flush();
      } else if (line[0] === "table") {
        await flush();
        table = String(line[1]);
        tables.push(table);
        await t.execute(sql`alter table ${ident(table)} disable trigger user`);
      } else if (line[0] === "sequence") {
        await flush();
        await t.execute(
          sql`select setval(${`public."${String(line[1]).replaceAll('"', '""')}"`}::regclass, ${String(line[2])}::bigint, ${Boolean(line[3])})`,
        );
      } else if (line[0] === "end") {
        await flush();
        expected = (line[1] as { tables: TableSums }).tables;
      }
    }
    if (!expected) throw new RestoreRefused("Резервная копия неполная (нет её последней строки): восстановление отменено.");
    for (const name of tables) await t.execute(sql`alter table ${ident(name)} enable trigger user`);
  });
  const sums = await tableSums(handle.db, tables);
  for (const [name, want] of Object.entries(expected! as TableSums)) {
    const got = sums[name];
    if (!got || got.rows !== want.rows || got.checksum !== want.checksum) {
      throw new Error(`Таблица ${name} восстановлена не так, как в копии (строк ${got?.rows ?? 0} из ${want.rows}).`);
    }
  }
  await handle.migrate();
  return { sums };
}
