import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SQL } from "drizzle-orm";
import type { PgDatabase } from "drizzle-orm/pg-core";
import type { Sql } from "postgres";
import { currentOwner, formatOwner, ownerAlive, parseOwner } from "../common/process-owner";
import * as schema from "./schema";
import { ADVISORY_LOCK } from "./locks";

export type Schema = typeof schema;
/** The one database type core code sees, whichever backend runs underneath. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Db = PgDatabase<any, Schema>;
export type DbKind = "pglite" | "postgres";

export interface DbHandle {
  db: Db;
  kind: DbKind;
  /** Connections this handle may open at once (1 for PGlite, which runs one query at a time). */
  poolSize: number;
  /** Postgres LISTEN: the callback gets each payload; returns a function that stops listening. */
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>>;
  notify(channel: string, payload: string): Promise<void>;
  /** PGlite only: the data directory as a gzipped tarball (tests start from a migrated snapshot). */
  dumpDataDir?(): Promise<Blob>;
  /** Applies the committed migrations in `migrations/` (or in `folder`: a restore stops at a backup's version). */
  migrate(folder?: string): Promise<void>;
  close(): Promise<void>;
}

export const migrationsFolder = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "migrations");

/** The application_name of the app's Postgres connections: /metrics counts them in pg_stat_activity by it. */
export const DB_APPLICATION_NAME = "leaddesk";

export class DataDirLockedError extends Error {}

/** How long a start waits for a lock holder that was just killed to be gone (it may still be exiting). */
const LOCK_HOLDER_GRACE_MS = 2000;

/**
 * One process per PGlite data directory: two would lose data silently (DESIGN §10). The lock file names its
 * holder (pid and start time, common/process-owner.ts); a holder that no longer runs (exited, killed and not
 * yet reaped, or its pid reused by another program) leaves a stale lock that the next start takes over.
 */
async function lockDataDir(dataDir: string): Promise<() => void> {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockPath = path.join(dataDir, "app.lock");
  const me = formatOwner(currentOwner());
  // Written aside, then linked into place: the lock appears whole or not at all (link fails if it exists).
  const tryCreate = () => {
    const aside = `${lockPath}.${process.pid}`;
    fs.writeFileSync(aside, me);
    try {
      fs.linkSync(aside, lockPath);
    } finally {
      fs.rmSync(aside, { force: true });
    }
  };
  const read = () => {
    try {
      return fs.readFileSync(lockPath, "utf8");
    } catch {
      return null; // removed meanwhile
    }
  };
  for (;;) {
    try {
      tryCreate();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const text = read();
    if (text === null) continue;
    // A lock that names no process (empty: an older version killed while writing it) is stale too.
    const holder = parseOwner(text);
    const deadline = Date.now() + LOCK_HOLDER_GRACE_MS;
    // Our own pid counts too: two PGlite instances in one process corrupt the folder just the same.
    while (holder && ownerAlive(holder)) {
      if (Date.now() >= deadline || holder.pid === process.pid) {
        throw new DataDirLockedError(
          `Папка данных ${dataDir} уже используется другим процессом (pid ${holder.pid}). ` + `Остановите его или укажите другой DATA_DIR.`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Stale: its process is gone. Removed only if still the lock we judged (another start may have taken it
    // over meanwhile; then the next round reads that one).
    if (read() === text) fs.rmSync(lockPath, { force: true });
  }
  return () => {
    try {
      if (fs.readFileSync(lockPath, "utf8").trim() === me) fs.rmSync(lockPath);
    } catch {
      /* already gone */
    }
  };
}

export interface CreateDbOptions {
  /** Real Postgres when set; embedded PGlite otherwise. */
  databaseUrl?: string;
  /** PGlite data directory; "memory://" keeps it in memory. */
  dataDir?: string;
  /** A PGlite data-directory dump to start from (tests use a migrated snapshot). */
  loadDataDir?: Blob | File;
  poolSize?: number;
}

export async function createDb(options: CreateDbOptions = {}): Promise<DbHandle> {
  if (options.databaseUrl) return createPostgres(options.databaseUrl, options.poolSize ?? 20);
  return createPglite(options.dataDir ?? "./data", options.loadDataDir);
}

/**
 * PGlite's server settings (decision 045). Its shared buffers live in the WASM heap, inside the app's process, and
 * a WASM heap never shrinks: Postgres' default of 128 MB became 150 MB of the process' resident memory once an
 * import had read through the contacts. 16 MB keeps the lead turn's indexes in memory; the rest of a table is read
 * from the operating system's file cache, which the process' memory does not count. An import of 100,000 rows
 * into 1,000,000 contacts: peak RSS 585 MB before, under 400 MB with this and the import's smaller batches.
 */
export const PGLITE_SETTINGS = ["-c", "shared_buffers=16MB"];

async function createPglite(dataDir: string, loadDataDir?: Blob | File): Promise<DbHandle> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { drizzle } = await import("drizzle-orm/pglite");
  const { preparePglite } = await import("./pglite-prepared");
  // pg_trgm backs the search by part of a name (migration 0002, docs/decisions/003).
  const { pg_trgm } = await import("@electric-sql/pglite/contrib/pg_trgm");
  const inMemory = dataDir.startsWith("memory://");
  const unlock = inMemory ? () => {} : await lockDataDir(path.resolve(dataDir));
  let client;
  const options = { loadDataDir, extensions: { pg_trgm }, startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS] };
  try {
    client = inMemory ? await PGlite.create(dataDir, options) : await PGlite.create(path.resolve(dataDir), options);
  } catch (error) {
    unlock();
    throw error;
  }
  preparePglite(client, shouldPrepare);
  const db = drizzle(client, { schema }) as unknown as Db;
  return {
    db,
    kind: "pglite",
    poolSize: 1,
    async listen(channel, onPayload) {
      const stop = await client.listen(channel, onPayload);
      return async () => stop();
    },
    async notify(channel, payload) {
      await client.query("select pg_notify($1, $2)", [channel, payload]);
    },
    async dumpDataDir() {
      return client.dumpDataDir("gzip");
    },
    async migrate(folder = migrationsFolder) {
      const { migrate } = await import("drizzle-orm/pglite/migrator");
      await migrate(drizzle(client), { migrationsFolder: folder });
    },
    async close() {
      await client.close();
      unlock();
    },
  };
}

/** Queries with more parameters than this (bulk inserts: a new text for each batch size) are not prepared. */
export const MAX_PREPARED_PARAMETERS = 64;

/** Which queries run as prepared statements, on a server and in PGlite alike. */
export function shouldPrepare(params: unknown[]): boolean {
  return params.length > 0 && params.length <= MAX_PREPARED_PARAMETERS;
}

/**
 * The postgres.js client as drizzle should see it: every query with parameters runs as a prepared statement.
 * Drizzle prepares only queries given a name; postgres.js then runs a parameterised query in two round trips
 * (describe, then execute) and Postgres parses and plans it every time. Prepared, it is one round trip and parsed
 * once per connection: the lead turn's statement went from 2.7 to 0.9 ms (docs/decisions/014). Bulk inserts stay
 * unnamed, so each connection caches only the app's fixed set of query texts (and connections are recycled by
 * postgres.js' max_lifetime, 30 to 60 minutes).
 */
function preparing<T extends Sql>(client: T): T {
  return new Proxy(client, {
    get(target, key, receiver) {
      if (key === "unsafe") {
        return (query: string, params: unknown[] = [], options: Record<string, unknown> = {}) =>
          target.unsafe(query, params as never[], {
            ...options,
            prepare: shouldPrepare(params),
          });
      }
      // Transactions and savepoints run on a reserved connection's own client: wrap it the same way.
      if (key === "begin" || key === "savepoint") {
        return (...args: unknown[]) => {
          const callback = args.pop() as (sql: Sql) => unknown;
          const method = Reflect.get(target, key) as (...a: unknown[]) => unknown;
          return method(...args, (sql: Sql) => callback(preparing(sql)));
        };
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/**
 * The settings of each of the app's Postgres sessions (and of a bench's that runs the app's statements). No JIT
 * (decision 082): the lead turn's never-run tiers are estimated past jit_above_cost on a base of 100,000 contacts,
 * and compiling its expressions took 2.7-4 s of every press.
 */
export const SESSION_SETTINGS = { jit: "off" } as const;

async function createPostgres(url: string, max: number): Promise<DbHandle> {
  const { default: postgres } = await import("postgres");
  const { drizzle } = await import("drizzle-orm/postgres-js");
  const client = postgres(url, {
    max,
    onnotice: () => {},
    // Fail fast while the server is down instead of queueing requests for minutes.
    connect_timeout: 5,
    // /metrics counts this app's connections in pg_stat_activity by it (server/http/metrics.ts).
    connection: { application_name: DB_APPLICATION_NAME, ...SESSION_SETTINGS },
  });
  const db = drizzle(preparing(client), { schema }) as unknown as Db;
  return {
    db,
    kind: "postgres",
    poolSize: max,
    async listen(channel, onPayload) {
      const sub = await client.listen(channel, onPayload);
      return async () => sub.unlisten();
    },
    async notify(channel, payload) {
      await client.notify(channel, payload);
    },
    async migrate(folder = migrationsFolder) {
      const { migrate } = await import("drizzle-orm/postgres-js/migrator");
      // A session-level advisory lock on one reserved connection serialises concurrent start-ups.
      const lockConnection = await client.reserve();
      try {
        await lockConnection`select pg_advisory_lock(${ADVISORY_LOCK.migrate})`;
        await migrate(drizzle(client), { migrationsFolder: folder });
      } finally {
        await lockConnection`select pg_advisory_unlock(${ADVISORY_LOCK.migrate})`.catch(() => {});
        lockConnection.release();
      }
    },
    async close() {
      await client.end({ timeout: 5 });
    },
  };
}

/** Rows of a raw query, whichever driver ran it (PGlite answers {rows}, postgres.js an array). */
export async function queryRows<T>(db: Db, query: SQL): Promise<T[]> {
  const result = (await db.execute(query)) as unknown as T[] | { rows: T[] };
  return Array.isArray(result) ? result : result.rows;
}
