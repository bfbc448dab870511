import { asc, eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts, exportParts, exports, statuses } from "../../db/schema";
import { EXPORTS_CHANNEL } from "../../server/core/exports/exports";
import { dropWorkerId, EXPORT_HEADER, holdWorkerId, LostExportLease, partStore, runExportJob } from "../../server/core/exports/run";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { buildXlsx, readXlsx } from "../helpers/xlsx";

let token: string;
let baseA: number;
let baseB: number;
let manager: Awaited<ReturnType<typeof createUser>>;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
  manager = await createUser(t.db, { login: "olga", displayName: "Ольга" });
  baseA = await importBase("База А", [
    ["Иванов Иван", "0501234567", "Киев", "0044"],
    ["Петрова Мария", "0671112233", "Львов", ""],
    ["Сидоров Пётр", "0631112233", "Одесса", ""],
  ]);
  baseB = await importBase("База Б", [["Орлова Юлия", "0991112233", "Днепр", ""]]);
  // Olga worked two contacts of base A: a refusal and an application with a client card.
  const [refusal] = await t.db.select().from(statuses).where(eq(statuses.buttonText, "Отказ"));
  const [application] = await t.db.select().from(statuses).where(eq(statuses.buttonText, "Заявка"));
  const rows = await t.db.select().from(contacts).where(eq(contacts.databaseId, baseA)).orderBy(asc(contacts.id));
  await t.db
    .update(contacts)
    .set({ statusId: refusal.id, statusAt: new Date("2026-03-01T10:15:00Z"), lastUserId: manager.user.id })
    .where(eq(contacts.id, rows[0].id));
  await t.db
    .update(contacts)
    .set({
      statusId: application.id,
      statusAt: new Date("2026-03-02T21:30:05Z"),
      lastUserId: manager.user.id,
      clientInfo: "Паспорт: есть\nСумма: 1000",
    })
    .where(eq(contacts.id, rows[1].id));
  statusIds = { refusal: refusal.id, application: application.id };
});

let statusIds: { refusal: number; application: number };

async function importBase(name: string, rows: string[][]) {
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", JSON.stringify(["name", "phone", "city", "additionalInfo1"]))
    .attach("file", await buildXlsx([["ФИО", "Телефон", "Город", "Доп"], ...rows]), `${name}.xlsx`);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.id as number;
}

async function waitDone(id: number) {
  for (let i = 0; i < 200; i++) {
    const res = await t.request.get("/api/v1/database/exports").set(bearer(token));
    const job = res.body.find((e: { id: number }) => e.id === id);
    if (job?.isExported || job?.error) return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`export ${id} did not finish`);
}

async function download(id: number) {
  return t.request
    .get(`/api/v1/database/exports/${id}`)
    .set(bearer(token))
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => done(null, Buffer.concat(chunks)));
    });
}

const create = (body: unknown) =>
  t.request
    .post("/api/v1/database/exports")
    .set(bearer(token))
    .send(body as object);

describe("POST /api/v1/database/exports", () => {
  it.each([
    [{ name: "", databaseIds: [1], statusIds: [1] }, "Введите имя експорта"],
    [{ name: "  ", databaseIds: [1], statusIds: [1] }, "Введите имя експорта"],
    [{ name: "Экспорт", databaseIds: [], statusIds: [1] }, "Выберите минимум 1 базу"],
    [{ name: "Экспорт", databaseIds: [0], statusIds: [1] }, "Выберите минимум 1 базу"],
    [{ name: "Экспорт", statusIds: [1] }, "Выберите минимум 1 базу"],
    [{ name: "Экспорт", databaseIds: [1], statusIds: [] }, "Выберите минимум 1 статус"],
    [{ name: "Экспорт", databaseIds: [99999], statusIds: [1] }, "Выбранная база не найдена: обновите страницу"],
    [{ name: "Экспорт", databaseIds: [1], statusIds: [99999] }, "Выбранный статус не найден: обновите страницу"],
  ])("refuses %j with the SPEC message", async (body, message) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
  });

  it("writes one row per contact of the chosen bases and statuses, read back from the downloaded file", async () => {
    const res = await create({ name: "Отказы и заявки", databaseIds: [baseA, baseB], statusIds: [statusIds.refusal, statusIds.application] });
    expect(res.status).toBe(201);
    // Counted at creation: the list says "0 of 2 rows" before a worker has touched the job.
    expect(res.body).toMatchObject({ name: "Отказы и заявки", isExported: false, rowsTotal: 2, rowsWritten: 0 });
    const job = await waitDone(res.body.id);
    expect(job).toMatchObject({ isExported: true, progress: 100, error: null, rowsTotal: 2, rowsWritten: 2 });
    expect(new Date(job.endTime).getTime()).toBeGreaterThanOrEqual(new Date(job.startTime).getTime());

    const file = await download(res.body.id);
    expect(file.status).toBe(200);
    expect(file.headers["content-type"]).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(file.headers["content-disposition"]).toMatch(/^attachment; filename="export-\d{4}-\d{2}-\d{2}\.xlsx"$/);
    const rows = await readXlsx(file.body);
    expect(rows).toEqual([
      EXPORT_HEADER,
      ["Иванов Иван", "0501234567", "Киев", "", "", "0044", "", "", "", "База А", "Отказ", "Ольга", "01.03.2026, 12:15:00", ""],
      [
        "Петрова Мария",
        "0671112233",
        "Львов",
        "",
        "",
        "",
        "",
        "",
        "",
        "База А",
        "Заявка",
        "Ольга",
        "02.03.2026, 23:30:05",
        "Паспорт: есть\nСумма: 1000",
      ],
    ]);
  });

  it("exports contacts without a status with the pseudo-status 0", async () => {
    const res = await create({ name: "Необработанные", databaseIds: [baseA, baseB], statusIds: [0] });
    await waitDone(res.body.id);
    const rows = await readXlsx((await download(res.body.id)).body);
    expect(rows.slice(1).map((r) => r[0])).toEqual(["Сидоров Пётр", "Орлова Юлия"]);
  });
});

describe("progress in rows", () => {
  it("records rows written of rows to write while the job runs, page by page", async () => {
    const big = await importBase("Большая", [["Первый", "0500000001", "Киев", ""]]);
    await t.db.execute(
      sql`insert into contacts (database_id, name, phone, phone_key)
          select ${big}, 'Контакт ' || g, '050' || lpad(g::text, 7, '0'), '38050' || lpad(g::text, 7, '0')
          from generate_series(2, 6000) g`,
    );
    // Held by this test's own worker, alive in this process, so the app's worker leaves it alone.
    holdWorkerId("test-worker");
    const [job] = await t.db
      .insert(exports)
      .values({
        name: "Большой",
        databaseIds: [big],
        statusIds: [0],
        claimedBy: "test-worker",
        claimedUntil: new Date(Date.now() + 60_000),
        startTime: new Date(),
      })
      .returning();
    let pages = 0;
    // Stop before the second page: the first page's 5,000 rows must be on record, of 6,000.
    const run = runExportJob(
      t.db,
      { id: job.id, name: job.name, databaseIds: [big], statusIds: [0], format: "xlsx" },
      "test-worker",
      60,
      () => ++pages > 1,
    );
    await expect(run).rejects.toBeInstanceOf(LostExportLease);
    // The stopped page's record may still be on its way.
    await expect
      .poll(async () => {
        const res = await t.request.get("/api/v1/database/exports").set(bearer(token));
        const row = res.body.find((e: { id: number }) => e.id === job.id);
        return [row.rowsWritten, row.rowsTotal, row.progress];
      })
      .toEqual([5000, 6000, 83]);
    dropWorkerId("test-worker");

    // Restart counts again and starts from zero; the app's worker then writes every row.
    const restarted = await t.request.post(`/api/v1/database/exports/${job.id}/restart`).set(bearer(token));
    expect(restarted.body).toMatchObject({ rowsTotal: 6000, rowsWritten: 0, progress: 0 });
    expect(await waitDone(job.id)).toMatchObject({ isExported: true, rowsWritten: 6000, rowsTotal: 6000, progress: 100 });
    await t.request.delete(`/api/v1/database/${big}`).set(bearer(token));
  });
});

describe("restart, delete, download errors", () => {
  it("a job cut off by a crash is taken over once its lease runs out, and restart runs it again", async () => {
    const [job] = await t.db
      .insert(exports)
      .values({
        name: "После сбоя",
        databaseIds: [baseB],
        statusIds: [0],
        progress: 40,
        claimedBy: "dead-instance",
        claimedUntil: new Date(Date.now() - 1000),
        startTime: new Date(Date.now() - 60_000),
      })
      .returning();
    // The dead worker had stored a part of its file: the new holder must not build on it.
    await t.db.insert(exportParts).values({ exportId: job.id, seq: 0, data: Buffer.from("обрывок файла") });
    await t.db.execute(sql`select pg_notify(${EXPORTS_CHANNEL}, ${String(job.id)})`);
    const done = await waitDone(job.id);
    expect(done).toMatchObject({ isExported: true, progress: 100 });
    expect((await readXlsx((await download(job.id)).body)).length).toBe(2);

    const restarted = await t.request.post(`/api/v1/database/exports/${job.id}/restart`).set(bearer(token));
    expect(restarted.status).toBe(200);
    expect(restarted.body).toMatchObject({ id: job.id, isExported: false, progress: 0, endTime: null });
    expect((await waitDone(job.id)).isExported).toBe(true);
    expect((await readXlsx((await download(job.id)).body)).length).toBe(2);
  });

  it("stores the file in parts in order, and nothing once the worker no longer holds the job", async () => {
    const [job] = await t.db
      .insert(exports)
      .values({ name: "Части", databaseIds: [baseA], statusIds: [0], claimedBy: "this-worker", claimedUntil: new Date(Date.now() + 60_000) })
      .returning();
    const parts = partStore(t.db, job, "this-worker");
    const file = Buffer.alloc(2_500_000);
    for (let i = 0; i < file.length; i++) file[i] = (i * 7) % 251;
    for (let at = 0; at < file.length; at += 64 * 1024) {
      parts.add(file.subarray(at, at + 64 * 1024));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(await parts.finish()).toBe(file.length);
    const stored = await t.db.select().from(exportParts).where(eq(exportParts.exportId, job.id)).orderBy(asc(exportParts.seq));
    // Parts of about 1 MB (more while one is in flight), numbered from 0 with no gap, that make up the file.
    expect(stored.length).toBeGreaterThanOrEqual(2);
    expect(stored.map((part) => part.seq)).toEqual(stored.map((_, i) => i));
    expect(Buffer.concat(stored.map((part) => part.data)).equals(file)).toBe(true);
    const partsBefore = stored.length;

    // Another worker took the job over: the old one's next part is refused and nothing is added.
    await t.db.update(exports).set({ claimedBy: "other-worker" }).where(eq(exports.id, job.id));
    parts.add(Buffer.from("ещё немного"));
    await expect(parts.finish()).rejects.toBeInstanceOf(LostExportLease);
    expect(await t.db.select({ seq: exportParts.seq }).from(exportParts).where(eq(exportParts.exportId, job.id))).toHaveLength(partsBefore);
    await t.db.delete(exports).where(eq(exports.id, job.id));
    expect(await t.db.select().from(exportParts).where(eq(exportParts.exportId, job.id))).toEqual([]);
  });

  it("refuses to download an unfinished export, and answers 404 for an unknown one", async () => {
    const [pending] = await t.db
      .insert(exports)
      .values({ name: "Занят", databaseIds: [baseA], statusIds: [0], claimedBy: "other", claimedUntil: new Date(Date.now() + 600_000) })
      .returning();
    const res = await download(pending.id);
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body.toString()).message).toBe("Экспорт ещё не готов: дождитесь 100%");
    expect((await download(99999)).status).toBe(404);
    await t.db.delete(exports).where(eq(exports.id, pending.id));
  });

  it("deletes one, the selected, and all", async () => {
    const made = [];
    for (const name of ["1", "2", "3", "4"]) made.push((await create({ name, databaseIds: [baseB], statusIds: [0] })).body.id);
    for (const id of made) await waitDone(id);

    const one = await t.request.delete(`/api/v1/database/exports/${made[0]}`).set(bearer(token));
    expect(one.body).toEqual({ success: true, message: "Экспорт удалён", deleted: 1 });
    const selected = await t.request.delete(`/api/v1/database/exports?ids=${made[1]},${made[2]}`).set(bearer(token));
    expect(selected.body).toEqual({ success: true, message: "Удалено экспортов: 2", deleted: 2 });
    const left = await t.db.select({ id: exports.id }).from(exports).where(inArray(exports.id, made));
    expect(left.map((e) => e.id)).toEqual([made[3]]);

    const total = (await t.request.get("/api/v1/database/exports").set(bearer(token))).body.length;
    const all = await t.request.delete("/api/v1/database/exports?all=true").set(bearer(token));
    expect(all.body.deleted).toBe(total);
    expect((await t.request.get("/api/v1/database/exports").set(bearer(token))).body).toEqual([]);
    const gone = await t.request.delete(`/api/v1/database/exports/${made[3]}`).set(bearer(token));
    expect([gone.status, gone.body.message]).toEqual([404, "Экспорт не найден"]);
  });

  it("is for admins only", async () => {
    const managerToken = await t.tokenFor(manager);
    expect((await t.request.get("/api/v1/database/exports").set(bearer(managerToken))).status).toBe(403);
    const res = await t.request
      .post("/api/v1/database/exports")
      .set(bearer(managerToken))
      .send({ name: "x", databaseIds: [baseA], statusIds: [0] });
    expect(res.status).toBe(403);
  });
});
