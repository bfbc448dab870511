import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "../../db/client";
import { buildXlsx, type Cell } from "../helpers/xlsx";
import {
  ADMIN,
  AROUND_THE_CLOCK,
  api,
  createPgDatabase,
  faultBackend,
  login,
  sleep,
  startServer,
  runOpsTool,
  tableChecksums as sums,
  tempDataDir,
  type ServerProcess,
} from "./server";
import { onPostgres } from "../helpers/backends";

/**
 * `npm run backup` while managers press statuses, `npm run restore` into a new DATA_DIR or an empty Postgres
 * database: every table comes back with the counts and checksums the source had at the backup's moment, and a
 * restore over existing data is refused.
 */
const backend = faultBackend("backup");
const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Runs backup-cli or restore-cli with the database given. */
const tool = (script: "backup-cli" | "restore-cli", args: string[], target: { databaseUrl?: string; dataDir?: string }) =>
  runOpsTool(script, args, target);

/** A target to restore into: a new folder, or a new empty Postgres database. */
async function emptyTarget(tag: string): Promise<{ databaseUrl?: string; dataDir?: string }> {
  if (!onPostgres) {
    const dataDir = path.join(tempDataDir(`leaddesk-restore-${tag}-`), "data");
    cleanups.push(() => fs.rmSync(path.dirname(dataDir), { recursive: true, force: true }));
    return { dataDir };
  }
  const database = await createPgDatabase(`restore_${tag}`, { empty: true });
  cleanups.push(() => database.drop());
  return { databaseUrl: database.url };
}

async function withDb<T>(target: { databaseUrl?: string; dataDir?: string }, use: (db: Db) => Promise<T>): Promise<T> {
  const handle = await createDb({ databaseUrl: target.databaseUrl, dataDir: target.dataDir, poolSize: 1 });
  try {
    return await use(handle.db);
  } finally {
    await handle.close();
  }
}

/** The last line of a backup: the counts and checksums the source database computed in the backup's snapshot. */
function backupEnd(file: string): Record<string, { rows: number; checksum: string }> {
  const lines = zlib.gunzipSync(fs.readFileSync(file)).toString("utf8").trim().split("\n");
  const last = JSON.parse(lines[lines.length - 1]);
  expect(last[0]).toBe("end");
  return last[1].tables;
}

describe("npm run backup / npm run restore", { timeout: 240_000 }, () => {
  it("a backup taken during status presses restores table for table; a restore over data is refused", async () => {
    const server: ServerProcess = await backend.start();
    const source = backend.pg ? { databaseUrl: backend.pg.url } : { dataDir: backend.dataDir };
    const admin = await login(server, ADMIN);
    const rows: Cell[][] = [["ФИО", "Телефон"]];
    for (let i = 1; i <= 300; i++) rows.push([`Клиент ${i}`, `+38063${String(i).padStart(7, "0")}`]);
    const form = new FormData();
    form.append("name", "База копии");
    form.append("mappings", JSON.stringify(["name", "phone"]));
    form.append("file", new Blob([new Uint8Array(await buildXlsx(rows))]), "база.xlsx");
    const base = await api(server, "POST", "/database/import", { token: admin, form });
    expect(base.status).toBe(200);
    const credentials = { login: "kopia1", password: "Kopia-pass-1", accessKey: "KOPIAKEY00000001" };
    const created = await api(server, "POST", "/auth/register", { token: admin, body: { ...credentials, displayName: "Менеджер Копии" } });
    expect(created.status).toBe(201);
    const userId = created.body.id as number;
    const token = await login(server, credentials);
    const statuses = (await api(server, "GET", "/status", { token: admin })).body as Array<{ id: number }>;
    const filter = await api(server, "POST", "/filters", {
      token: admin,
      body: { name: "Копия", managers: [userId], databases: [base.body.id], statuses: statuses.map((s) => s.id), callingHours: AROUND_THE_CLOCK },
    });
    expect(filter.status).toBe(200);
    const filterId = filter.body.id as number;
    expect((await api(server, "POST", `/filters/${filterId}/${userId}/${credentials.login}`, { token })).status).toBe(200);

    // The manager presses statuses all through the backup.
    let lead: number | null = null;
    let presses = 0;
    const press = async () => {
      const res =
        lead === null
          ? await api(server, "GET", `/database/filtered-lead?filterId=${filterId}&userId=${userId}`, { token })
          : await api(server, "PUT", "/status/update-and-get-lead", {
              token,
              body: { statusText: "Недозвон", contactId: lead, userId, passport: "", filterId, clientInfo: "" },
            });
      expect(res.status).toBe(200);
      lead = res.body?.id ?? null;
      presses++;
    };
    for (let i = 0; i < 5; i++) await press();
    let working = true;
    const loop = (async () => {
      while (working) {
        await press();
        await sleep(20);
      }
    })();
    const folder = tempDataDir("leaddesk-backups-");
    cleanups.push(() => fs.rmSync(folder, { recursive: true, force: true }));
    const pressesBefore = presses;
    const backup = await tool("backup-cli", [folder, "--keep", "2"], source);
    const pressesAfter = presses;
    await sleep(300);
    working = false;
    await loop;
    expect(backup.code, backup.output).toBe(0);
    expect(backup.output).toContain("Резервная копия записана");
    // The app kept serving while the copy was taken.
    expect(pressesAfter).toBeGreaterThan(pressesBefore);
    const [file] = fs.readdirSync(folder).map((n) => path.join(folder, n));
    expect(file).toMatch(/lead-desk-.*\.backup\.gz$/);
    const atBackup = backupEnd(file);
    const leadEvents = atBackup.lead_events.rows;
    const sourceNow = await api(server, "GET", "/health");
    expect(sourceNow.status).toBe(200);

    const target = await emptyTarget("a");
    const restored = await tool("restore-cli", [file], target);
    expect(restored.code, restored.output).toBe(0);
    expect(restored.output).toContain("все совпали с копией");
    const got = await withDb(target, sums);
    expect(got).toEqual(atBackup);
    // The snapshot is a moment within the run: some presses before it, fewer than all of them.
    expect(leadEvents).toBeGreaterThanOrEqual(5);
    expect(atBackup.contacts.rows).toBe(300);

    // Over existing data: refused, and the data is left as it was.
    const again = await tool("restore-cli", [file], target);
    expect(again.code).not.toBe(0);
    expect(again.output).toMatch(onPostgres ? /База данных не пуста/ : /Папка данных .* не пуста/);
    expect(await withDb(target, sums)).toEqual(got);

    // Quiet now: a backup with the server stopped (PGlite: read straight from the folder) equals the source exactly.
    await server.stop();
    const quiet = path.join(folder, "quiet.backup.gz");
    const second = await tool("backup-cli", [quiet], source);
    expect(second.code, second.output).toBe(0);
    const target2 = await emptyTarget("b");
    expect((await tool("restore-cli", [quiet], target2)).code).toBe(0);
    const sourceSums = await withDb(source, sums);
    expect(sourceSums.lead_events.rows).toBeGreaterThan(leadEvents);
    expect(await withDb(target2, sums)).toEqual(sourceSums);

    // The restored data serves: the admin and the manager log in.
    if (target2.dataDir) {
      const restoredServer = await startServer({ dataDir: target2.dataDir });
      cleanups.push(() => restoredServer.kill9());
      await login(restoredServer, credentials);
      await restoredServer.stop();
    }
  });
});
