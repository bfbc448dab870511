import { count, eq, sql } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { contacts, databases, doNotCall, settings } from "../../db/schema";
import { sweepAbandonedImports } from "../../server/core/bases/import-cleanup";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { csvText } from "../helpers/csv";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

/**
 * Decision 046 (issue 19, "no input can stall the server"): an import writes its batches in short transactions
 * into a base nobody sees, and reveals it at the end; between two batches other requests (status presses) run.
 */

let token: string;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
});

beforeEach(async () => {
  await t.db.delete(doNotCall);
  await t.db.delete(databases);
  await t.db.update(settings).set({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false }).where(eq(settings.id, 1));
});

/** A .csv of `rows` contacts (phones 067 + seven digits from `from`), with a header row. */
function bigCsv(rows: number, from = 0, cell?: (i: number) => string): Buffer {
  const lines = [["ФИО", "Телефон", "Примечание"]];
  for (let i = 0; i < rows; i++) lines.push([`Клиент ${from + i}`, `067${String(from + i).padStart(7, "0")}`, cell?.(i) ?? ""]);
  return Buffer.from(csvText(lines, ";"));
}

/** Starts an import at once (supertest sends on `then`); the promise answers with the response and its time. */
function startImport(file: Buffer, name: string) {
  return new Promise<{ status: number; body: Record<string, unknown>; at: number }>((resolve, reject) => {
    t.request
      .post("/api/v1/database/import")
      .set(bearer(token))
      .field("name", name)
      .field("mappings", JSON.stringify(["name", "phone", "additionalInfo1"]))
      .attach("file", file, `${name}.csv`)
      .then((res) => resolve({ status: res.status, body: res.body, at: performance.now() }), reject);
  });
}

/**
 * Waits until the import of base `name` has committed at least one batch (and returns how many of its contacts
 * are written). On the old code (one transaction) on PGlite this query itself waits for the whole import.
 */
async function firstBatchOf(name: string): Promise<number> {
  for (let tries = 0; tries < 2000; tries++) {
    const [row] = await queryRows<{ n: string | number }>(
      t.db,
      sql`select count(*) as n from contacts c join databases d on d.id = c.database_id where d.name = ${name}`,
    );
    if (Number(row.n) > 0) return Number(row.n);
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("the import wrote nothing");
}

async function totals() {
  const [{ bases }] = await t.db.select({ bases: count() }).from(databases);
  const [{ rows }] = await t.db.select({ rows: count() }).from(contacts);
  return { bases, rows };
}

const ROWS = 50_000;

describe("an import under way", () => {
  it("does not hold a manager's status press: the press is answered before the import ends", async () => {
    const { base } = await createBase(t.db, { count: 20 });
    const s = await statusesByText(t.db);
    const manager = await createUser(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [s["Перезвонить"].id] });
    const auth = bearer(await t.tokenFor(manager));
    const lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(auth);
    expect(lead.status).toBe(200);

    const importing = startImport(bigCsv(ROWS), "Большая");
    const written = await firstBatchOf("Большая");
    const pressedAt = performance.now();
    const press = await t.request.put("/api/v1/status/update-and-get-lead").set(auth).send({
      statusText: "Отказ",
      contactId: lead.body.id,
      userId: manager.user.id,
      passport: "",
      filterId: filter.id,
      clientInfo: "",
    });
    const answeredAt = performance.now();
    const done = await importing;

    expect(press.status).toBe(200);
    expect(press.body.id).not.toBe(lead.body.id);
    expect(done.status).toBe(200);
    expect(done.body.imported).toBe(ROWS);
    // The press came while the import had written part of the file, and was answered before the import ended.
    expect(written).toBeLessThan(ROWS);
    expect(answeredAt).toBeLessThan(done.at);
    console.log(`press answered in ${Math.round(answeredAt - pressedAt)} ms; the import ended ${Math.round(done.at - answeredAt)} ms later`);
  }, 180_000);

  it("is in no list, search or topic, and holds its name; after it everything shows at once", async () => {
    const manager = await createUser(t.db);
    const s = await statusesByText(t.db);
    const topic = (databaseIds: number[]) => ({
      name: `Тематика ${Math.random()}`,
      managers: [manager.user.id],
      databases: databaseIds,
      statuses: [s["Перезвонить"].id],
      scripts: [],
    });
    const stats = async () => (await t.request.get("/api/v1/statistics").set(bearer(token))).body;
    const statsBefore = await stats();

    let ended = false;
    const importing = startImport(bigCsv(ROWS), "Скрытая").then((res) => {
      ended = true;
      return res;
    });
    await firstBatchOf("Скрытая");
    const [hidden] = await t.db.select({ id: databases.id }).from(databases).where(eq(databases.name, "Скрытая"));

    const [list, found, linked, again, statsDuring, exported] = await Promise.all([
      t.request.get("/api/v1/database").set(bearer(token)),
      t.request.get("/api/v1/database/search").query({ term: "0670000001" }).set(bearer(token)),
      t.request
        .post("/api/v1/filters")
        .set(bearer(token))
        .send(topic([hidden.id])),
      startImport(bigCsv(10), "Скрытая"),
      stats(),
      t.request
        .post("/api/v1/database/exports")
        .set(bearer(token))
        .send({ name: "Выгрузка", databaseIds: [hidden.id], statusIds: [0] }),
    ]);
    // All of it was answered while the import was still writing.
    expect(ended).toBe(false);
    expect(list.status).toBe(200);
    expect(list.body.map((b: { name: string }) => b.name)).not.toContain("Скрытая");
    expect(found.status).toBe(200);
    expect(found.body).toEqual([]);
    expect(linked.status).toBe(400);
    expect(linked.body.message).toBe("Выбранная база не найдена");
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("База с таким названием уже есть: выберите другое название");
    expect(statsDuring).toEqual(statsBefore);
    expect(exported.status).toBe(400);
    expect(exported.body.message).toBe("Выбранная база не найдена: обновите страницу");

    const done = await importing;
    expect(done.status).toBe(200);
    expect(done.body.id).toBe(hidden.id);
    const after = await t.request.get("/api/v1/database").set(bearer(token));
    expect(after.body.find((b: { name: string }) => b.name === "Скрытая")).toMatchObject({ id: hidden.id, contactsCount: ROWS, freeCount: ROWS });
    const foundAfter = await t.request.get("/api/v1/database/search").query({ term: "0670000001" }).set(bearer(token));
    expect(foundAfter.body.map((h: { databaseName: string; data: { name: string } }) => [h.databaseName, h.data.name])).toEqual([
      ["Скрытая", "Клиент 1"],
    ]);
    const linkedAfter = await t.request
      .post("/api/v1/filters")
      .set(bearer(token))
      .send(topic([hidden.id]));
    expect(linkedAfter.status).toBe(200);
    expect(await stats()).toMatchObject({
      databases: statsBefore.databases + 1,
      totalDatabases: statsBefore.totalDatabases + 1,
      totalContacts: statsBefore.totalContacts + ROWS,
    });
  }, 180_000);

  it("leaves out another import's contacts from its cross-base dedup until that import is revealed", async () => {
    await t.db.update(settings).set({ removeDuplicatesAcrossBases: true }).where(eq(settings.id, 1));
    const first = startImport(bigCsv(ROWS), "Первая");
    await firstBatchOf("Первая");
    // The same first phones, imported while "Первая" is hidden: nothing of it counts as a duplicate.
    const second = await startImport(bigCsv(100), "Вторая");
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ imported: 100, duplicatesInfo: [] });
    expect((await first).status).toBe(200);
  }, 180_000);

  it("stops with a Russian 409 when its base is removed meanwhile, and leaves nothing", async () => {
    const before = await totals();
    const importing = startImport(bigCsv(ROWS), "Удалённая");
    await firstBatchOf("Удалённая");
    await t.db.delete(databases).where(eq(databases.name, "Удалённая"));
    const done = await importing;
    expect(done.status).toBe(409);
    expect(done.body).toEqual({
      error: "import_base_removed",
      message: "Импорт остановлен: базу удалили, пока она загружалась. Загрузите файл снова",
    });
    expect(await totals()).toEqual(before);
  }, 180_000);
});

describe("a failing import", () => {
  it("whose client goes away stops and leaves neither the base nor any contact", async () => {
    const before = await totals();
    const request = t.request
      .post("/api/v1/database/import")
      .set(bearer(token))
      .field("name", "Брошенный запрос")
      .field("mappings", JSON.stringify(["name", "phone", "additionalInfo1"]))
      .attach("file", bigCsv(ROWS), "gone.csv");
    const answered = request.then(
      () => "answered",
      () => "aborted",
    );
    await firstBatchOf("Брошенный запрос");
    request.abort();
    expect(await answered).toBe("aborted");
    // The import notices at its next batch and removes what it wrote.
    for (let tries = 0; tries < 600; tries++) {
      const [{ bases }] = await t.db.select({ bases: count() }).from(databases).where(eq(databases.name, "Брошенный запрос"));
      if (Number(bases) === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await totals()).toEqual(before);
  }, 120_000);

  it("of only duplicates over several batches leaves neither the base nor any contact", async () => {
    await t.db.update(settings).set({ removeDuplicatesAcrossBases: true }).where(eq(settings.id, 1));
    expect((await startImport(bigCsv(5000), "Исходная")).status).toBe(200);
    const before = await totals();
    const res = await startImport(bigCsv(5000), "Только дубли");
    expect(res.status).toBe(409);
    expect(res.body.message).toBe("Ничего не импортировано: все контакты файла (5000) — дубли. База не создана");
    expect(await totals()).toEqual(before);
  }, 120_000);

  it("with a cell too long deep in the file leaves nothing, and its name is free again", async () => {
    const before = await totals();
    const res = await startImport(
      bigCsv(9000, 0, (i) => (i === 8500 ? "ж".repeat(1001) : "")),
      "Длинная",
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("contact_cell_too_long");
    expect(await totals()).toEqual(before);
    expect((await startImport(bigCsv(10), "Длинная")).status).toBe(200);
  }, 120_000);
});

describe("abandoned imports", () => {
  it("are removed with their contacts once their mark is older than 10 minutes; a fresh one is kept", async () => {
    await createBase(t.db, { name: "Обычная", count: 30 });
    const old = await createBase(t.db, { name: "Брошенная", count: 12_000 });
    const fresh = await createBase(t.db, { name: "Идущая", count: 40 });
    await t.db
      .update(databases)
      .set({ importingSince: sql`now() - interval '11 minutes'` })
      .where(eq(databases.id, old.base.id));
    await t.db
      .update(databases)
      .set({ importingSince: sql`now() - interval '1 minute'` })
      .where(eq(databases.id, fresh.base.id));

    const removed = await sweepAbandonedImports(t.db);
    // (The app's own sweeper may be removing it at the same moment: the rows left are what counts.)
    expect(removed.map(({ id, name }) => ({ id, name }))).toEqual([{ id: old.base.id, name: "Брошенная" }]);
    const left = await queryRows<{ name: string; n: string | number }>(
      t.db,
      sql`select d.name, (select count(*) from contacts c where c.database_id = d.id) as n from databases d order by d.id`,
    );
    expect(left.map((r) => [r.name, Number(r.n)])).toEqual([
      ["Обычная", 30],
      ["Идущая", 40],
    ]);
    const [{ orphans }] = await t.db.select({ orphans: count() }).from(contacts).where(eq(contacts.databaseId, old.base.id));
    expect(orphans).toBe(0);
    // The fresh one is being imported: not in the list, and its name is taken.
    const list = await t.request.get("/api/v1/database").set(bearer(token));
    expect(list.body.map((b: { name: string }) => b.name)).toEqual(["Обычная"]);
    expect((await startImport(bigCsv(10), "Идущая")).status).toBe(409);
    // The abandoned one's name is free.
    expect((await startImport(bigCsv(10), "Брошенная")).status).toBe(200);
  }, 120_000);

  it("on the embedded database's start, every import marked before it is taken, however fresh", async () => {
    const left = await createBase(t.db, { name: "Оставленная", count: 50 });
    await t.db
      .update(databases)
      .set({ importingSince: sql`now() - interval '1 minute'` })
      .where(eq(databases.id, left.base.id));
    const startedAt = new Date(Date.now() - 30_000);
    // Marked 1 minute ago, before a start 30 s ago: taken. Marked after that start: kept.
    const later = await createBase(t.db, { name: "После старта", count: 5 });
    await t.db
      .update(databases)
      .set({ importingSince: sql`now() - interval '10 seconds'` })
      .where(eq(databases.id, later.base.id));
    const removed = await sweepAbandonedImports(t.db, { markedBefore: startedAt });
    expect(removed.map((b) => b.name)).toEqual(["Оставленная"]);
    const names = (await t.db.select({ name: databases.name }).from(databases)).map((b) => b.name);
    expect(names).toEqual(["После старта"]);
  });
});
