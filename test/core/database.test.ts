import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { count, eq, sql } from "drizzle-orm";
import net from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { createDb, DataDirLockedError, type DbHandle } from "../../db/client";
import { contacts, databases, settings, statuses, users } from "../../db/schema";
import { DEFAULT_STATUSES, seed } from "../../server/seed";
import { onPostgres } from "../helpers/backends";
import { createTestDb } from "../helpers/db";
import { APP_COMMAND } from "../../server/heap";

const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-data-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("first start", () => {
  it("creates one admin and the default statuses, and running again changes nothing", async () => {
    const handle = await createTestDb();
    try {
      const first = await seed(handle.db, { login: "boss", password: "Secret-pass-1", accessKey: "KEYKEYKEYKEYKEY1" });
      expect(first.createdAdmin).toMatchObject({ login: "boss", accessKey: "KEYKEYKEYKEYKEY1", generated: false });
      expect(first.createdStatuses).toBe(DEFAULT_STATUSES.length);

      const second = await seed(handle.db, { login: "other" });
      expect(second).toEqual({ createdStatuses: 0 });

      const [{ value: userCount }] = await handle.db.select({ value: count() }).from(users);
      const [{ value: statusCount }] = await handle.db.select({ value: count() }).from(statuses);
      const [{ value: settingsCount }] = await handle.db.select({ value: count() }).from(settings);
      expect([userCount, statusCount, settingsCount]).toEqual([1, DEFAULT_STATUSES.length, 1]);
      const [admin] = await handle.db.select().from(users).where(eq(users.login, "boss"));
      expect(admin.isAdmin).toBe(true);
      expect(admin.passwordHash).toMatch(/^\$argon2id\$/);
    } finally {
      await handle.close();
    }
  });

  it("generates the admin's password and access key when they are not given", async () => {
    const handle = await createTestDb();
    try {
      const result = await seed(handle.db);
      expect(result.createdAdmin?.generated).toBe(true);
      expect(result.createdAdmin?.password).toHaveLength(16);
      expect(result.createdAdmin?.accessKey).toMatch(/^[A-Za-z0-9]{16}$/);
    } finally {
      await handle.close();
    }
  });
});

describe("contacts and their base (decision 017)", () => {
  it("refuses a contact without an existing base or moving it to another, and deletes contacts with their base", async () => {
    const handle = await createTestDb();
    try {
      const { db } = handle;
      const [north, south] = await db
        .insert(databases)
        .values([{ name: "Север" }, { name: "Юг" }])
        .returning();
      await db.insert(contacts).values([
        { databaseId: north.id, name: "Иван", phone: "0501234567" },
        { databaseId: south.id, name: "Олег", phone: "0507654321" },
      ]);
      const code = (error: unknown) => (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;

      // One statement with a good and a missing base: nothing of it is written.
      const missing = await db
        .insert(contacts)
        .values([
          { databaseId: north.id, name: "Пётр" },
          { databaseId: 9999, name: "Никто" },
        ])
        .catch((error: unknown) => error);
      expect(code(missing)).toBe("23503");
      const moved = await db
        .update(contacts)
        .set({ databaseId: south.id })
        .where(eq(contacts.name, "Иван"))
        .catch((error: unknown) => error);
      expect(code(moved)).toBe("23503");
      // Updates that leave the base alone (a status press, a card) pass.
      await db.update(contacts).set({ clientInfo: "перезвонить" }).where(eq(contacts.name, "Иван"));

      await db.delete(databases).where(eq(databases.id, north.id));
      const left = await db.select({ name: contacts.name, clientInfo: contacts.clientInfo, databaseId: contacts.databaseId }).from(contacts);
      expect(left).toEqual([{ name: "Олег", clientInfo: "", databaseId: south.id }]);
    } finally {
      await handle.close();
    }
  });
});

// Decision 014 on a server, 084 in PGlite: the same rule, so a statement is parsed once and, run again, planned once.
describe("prepared statements (decisions 014 and 084)", () => {
  type Prepared = { statement: string; generic_plans: number | string };
  const preparedStatements = async (db: DbHandle["db"]) =>
    (await db.execute(sql`select statement, generic_plans from pg_prepared_statements`)) as unknown as Prepared[] | { rows: Prepared[] };
  const rowsOf = (result: Prepared[] | { rows: Prepared[] }) => (Array.isArray(result) ? result : result.rows);

  it("runs parameterised queries as prepared statements, inside transactions too, but not bulk inserts", async () => {
    const handle = await createTestDb();
    try {
      await handle.db.transaction(async (tx) => {
        await tx.select().from(users).where(eq(users.login, "nobody"));
        await tx.insert(statuses).values(Array.from({ length: 30 }, (_, i) => ({ text: `Пакет ${i}`, buttonText: `Пакет ${i}`, color: "#123456" })));
        const statements = rowsOf(await preparedStatements(tx)).map((row) => row.statement);
        // One connection, one transaction: the select was prepared, the 90-parameter insert was not.
        expect(statements.some((text) => text.includes('from "users"') && text.includes('"login" = $1'))).toBe(true);
        expect(statements.some((text) => text.includes('insert into "statuses"'))).toBe(false);
        const [{ value }] = await tx.select({ value: count() }).from(statuses).where(eq(statuses.color, "#123456"));
        expect(value).toBe(30);
      });
    } finally {
      await handle.close();
    }
  });

  it("plans a statement run again once (its generic plan), and answers its errors as before", async () => {
    const handle = await createTestDb();
    try {
      // In one transaction: one of a server's connections, PGlite's one session.
      await handle.db.transaction(async (tx) => {
        for (let i = 0; i < 8; i++)
          await tx
            .select({ id: databases.id })
            .from(databases)
            .where(eq(databases.name, `База ${i}`));
        const statement = rowsOf(await preparedStatements(tx)).find((row) =>
          row.statement.includes('from "databases" where "databases"."name" = $1'),
        );
        expect(Number(statement?.generic_plans)).toBeGreaterThan(0);
      });
      // Outside a transaction (PGlite's own query lock): a unique violation keeps its code, and the statement runs again.
      const admin = { login: "twice" };
      await handle.db.insert(users).values({ login: admin.login, passwordHash: "x", accessKey: "KEY-TWICE-FIRST", displayName: "Первый" });
      const again = () =>
        handle.db.insert(users).values({ login: admin.login, passwordHash: "x", accessKey: `KEY-${Date.now()}`, displayName: "Дубль" });
      await expect(again()).rejects.toMatchObject({ cause: { code: "23505" } });
      await expect(again()).rejects.toMatchObject({ cause: { code: "23505" } });
      const [{ value }] = await handle.db.select({ value: count() }).from(users).where(eq(users.login, admin.login));
      expect(value).toBe(1);
    } finally {
      await handle.close();
    }
  });
});

// On-disk PGlite and child processes are slow on a busy 2-core machine. The embedded database alone, whatever
// TEST_DATABASE_URL says (its processes are started without DATABASE_URL): run once, in the PGlite half.
describe.skipIf(onPostgres)("the embedded database (PGlite) in DATA_DIR", { timeout: 180_000 }, () => {
  it("keeps its data across restarts and refuses a second opener of the same folder", async () => {
    const dir = tempDir();
    const first = await createDb({ dataDir: dir });
    await first.migrate();
    await seed(first.db, { login: "keeper", password: "Keeper-pass-1", accessKey: "KEEPERKEY0000001" });
    await expect(createDb({ dataDir: dir })).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(createDb({ dataDir: dir })).rejects.toThrow(/уже используется другим процессом/);
    await first.close();

    const reopened = await createDb({ dataDir: dir });
    await reopened.migrate();
    const rows = await reopened.db.select({ login: users.login }).from(users);
    expect(rows).toEqual([{ login: "keeper" }]);
    await reopened.close();
  });

  it("takes over a lock left by a process that is gone", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "app.lock"), "999999");
    const handle = await createDb({ dataDir: dir });
    await handle.close();
    expect(fs.existsSync(path.join(dir, "app.lock"))).toBe(false);
  });

  it("makes a second app process on the same folder exit at once with a clear message", async () => {
    const dir = tempDir();
    const holder = await createDb({ dataDir: dir });
    try {
      const child = spawn(process.execPath, APP_COMMAND, {
        env: { ...process.env, DATA_DIR: dir, PORT: "0", DATABASE_URL: "" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr.on("data", (chunk) => (stderr += chunk));
      const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
      expect(code).toBe(1);
      expect(stderr).toContain("уже используется другим процессом");
    } finally {
      await holder.close();
    }
  });

  it("stops gracefully on SIGTERM: exits 0, releases the folder, keeps the data", async () => {
    const dir = tempDir();
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as net.AddressInfo;
        server.close(() => resolve(port));
      });
    });
    const child = spawn(process.execPath, APP_COMMAND, {
      env: { ...process.env, DATA_DIR: dir, PORT: String(port), HOST: "127.0.0.1", DATABASE_URL: "", LOG_LEVEL: "error" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    let healthy = false;
    for (let i = 0; i < 600 && !healthy; i++) {
      healthy = await fetch(`http://127.0.0.1:${port}/api/v1/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) await new Promise((r) => setTimeout(r, 200));
    }
    expect(healthy).toBe(true);
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(dir, "app.lock"))).toBe(false);
    const reopened = await createDb({ dataDir: dir });
    await reopened.migrate();
    expect((await reopened.db.select({ login: users.login }).from(users)).length).toBe(1);
    await reopened.close();
  });
});
