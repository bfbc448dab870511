import { beforeAll, describe, expect, it } from "vitest";
import { buildXlsxStreamed, readXlsx, type Cell } from "../helpers/xlsx";
import { ADMIN, api, GiveUp, faultBackend, login, waitFor, type ServerProcess } from "./server";

/**
 * Fault: the export worker killed (SIGKILL of the whole server) while it writes a file. After a restart the job is
 * not shown as done (the download answers "not ready"), it starts again by itself (the new worker takes the dead
 * worker's claim at once: on PGlite any other worker's claim is dead, on Postgres one from a process of this
 * host that is gone), and it completes with the right row count; Restart runs it again to the same count.
 * Runs on both backends.
 */
const ROWS = 30_000;
const backend = faultBackend("export_kill");
const start = () => backend.start();
let bigFile: Buffer;

beforeAll(async () => {
  const rows: Cell[][] = [["ФИО", "Телефон", "Город"]];
  for (let i = 1; i <= ROWS; i++) rows.push([`Клиент ${i}`, `+38067${String(i).padStart(7, "0")}`, "Харьков"]);
  bigFile = await buildXlsxStreamed(rows);
});

interface ExportView {
  id: number;
  name: string;
  isExported: boolean;
  progress: number;
  error: string | null;
}

async function job(server: ServerProcess, token: string, id: number): Promise<ExportView> {
  const res = await api(server, "GET", "/database/exports", { token });
  expect(res.status).toBe(200);
  const found = (res.body as ExportView[]).find((e) => e.id === id);
  expect(found).toBeDefined();
  return found!;
}

/** Downloads the finished file and answers its data rows (without the header row). */
async function downloadedRows(server: ServerProcess, token: string, id: number): Promise<unknown[][]> {
  const res = await fetch(`${server.url}/api/v1/database/exports/${id}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(30_000),
  });
  expect(res.status).toBe(200);
  const rows = await readXlsx(Buffer.from(await res.arrayBuffer()));
  expect(rows[0][0]).toBe("ФИО");
  return rows.slice(1);
}

describe("the export worker killed during a job", { timeout: 120_000 }, () => {
  it("the job is not shown as done, starts again after the restart and completes with every row; Restart repeats it", async () => {
    const first = await start();
    const token = await login(first, ADMIN);
    const form = new FormData();
    form.append("name", "База для экспорта");
    form.append("mappings", JSON.stringify(["name", "phone", "city"]));
    form.append("file", new Blob([new Uint8Array(bigFile)]), "база.xlsx");
    const imported = await api(first, "POST", "/database/import", { token, form, timeoutMs: 100_000 });
    expect(imported.status).toBe(200);
    expect(imported.body.imported).toBe(ROWS);

    const created = await api(first, "POST", "/database/exports", {
      token,
      body: { name: "Все без статуса", databaseIds: [imported.body.id], statusIds: [0] },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as number;

    // Kill it while the worker is half-way: some progress, not finished.
    await waitFor(
      "the export to be under way",
      async () => {
        const view = await job(first, token, id);
        if (view.isExported) throw new GiveUp("the export finished before it could be killed");
        return view.progress > 0;
      },
      90_000,
      100,
    );
    await first.kill9();

    const second = await start();
    const adminToken = await login(second, ADMIN);
    const seen = await job(second, adminToken, id);
    if (!seen.isExported) {
      // Not done yet: the file cannot be taken, the page shows its progress and offers Restart.
      expect(seen.progress).toBeLessThan(100);
      const early = await api(second, "GET", `/database/exports/${id}`, { token: adminToken });
      if (early.status !== 200) {
        expect(early.status).toBe(409);
        expect(early.body).toEqual({ error: "export_not_ready", message: "Экспорт ещё не готов: дождитесь 100%" });
      }
    }

    // The new worker takes the dead one's job by itself, long before the 60 s lease would run out.
    const done = await waitFor(
      "the export to complete after the restart",
      async () => {
        const view = await job(second, adminToken, id);
        return view.isExported ? view : undefined;
      },
      60_000,
      300,
    );
    expect(done).toMatchObject({ progress: 100, error: null });
    const rows = await downloadedRows(second, adminToken, id);
    expect(rows).toHaveLength(ROWS);
    expect(new Set(rows.map((r) => r[1])).size).toBe(ROWS); // every contact once

    // Restart runs it again from the start to the same file.
    const restarted = await api(second, "POST", `/database/exports/${id}/restart`, { token: adminToken });
    expect(restarted.status).toBe(200);
    expect(restarted.body).toMatchObject({ id, isExported: false, error: null });
    await waitFor("the restarted export to complete", async () => (await job(second, adminToken, id)).isExported, 60_000, 300);
    expect(await downloadedRows(second, adminToken, id)).toHaveLength(ROWS);
    await second.stop();
  });
});
