import { asc, count, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts, databases, exports, leadEvents, statuses } from "../../db/schema";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { buildXlsx } from "../helpers/xlsx";

let token: string;
let north: number;
let south: number;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
  north = await importBase("Север", 5, "050");
  south = await importBase("Юг", 3, "067");
});

async function importBase(name: string, size: number, prefix: string) {
  const rows = [["ФИО", "Телефон"], ...Array.from({ length: size }, (_, i) => [`${name} ${i + 1}`, `${prefix}000000${i}`])];
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", JSON.stringify(["name", "phone"]))
    .attach("file", await buildXlsx(rows), `${name}.xlsx`);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.id as number;
}

async function statusId(buttonText: string) {
  const [s] = await t.db.select().from(statuses).where(eq(statuses.buttonText, buttonText));
  return s.id;
}

async function setStatus(baseId: number, howMany: number, buttonText: string) {
  const ids = (await t.db.select({ id: contacts.id }).from(contacts).where(eq(contacts.databaseId, baseId)).orderBy(asc(contacts.id)))
    .filter((_, i) => i < howMany)
    .map((c) => c.id);
  const id = await statusId(buttonText);
  return t.db.update(contacts).set({ statusId: id, statusAt: new Date() }).where(inArray(contacts.id, ids)).returning({ id: contacts.id });
}

describe("GET /api/v1/database", () => {
  it("lists bases with contacts, free and per-status counts keyed by button text", async () => {
    await setStatus(north, 2, "Отказ");
    const res = await t.request.get("/api/v1/database").set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    const [n, s] = res.body;
    expect(n).toMatchObject({ id: north, name: "Север", contactsCount: 5, freeCount: 3 });
    expect(n.statusCounts).toEqual({ Недозвон: 0, Занято: 0, Перезвонить: 0, Отказ: 2, Заявка: 0 });
    expect(s).toMatchObject({ id: south, name: "Юг", contactsCount: 3, freeCount: 3 });
    expect(Object.values(s.statusCounts)).toEqual([0, 0, 0, 0, 0]);
    expect(new Date(n.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("is for admins only", async () => {
    const manager = await createUser(t.db, { login: "bases-manager" });
    const res = await t.request.get("/api/v1/database").set(bearer(await t.tokenFor(manager)));
    expect(res.status).toBe(403);
    expect((await t.request.get("/api/v1/database")).status).toBe(401);
  });
});

describe("GET /api/v1/status/countsAllTime/{databaseName}", () => {
  it("counts every status press ever made on the base, from the event history", async () => {
    const admin = 1;
    const rows = (text: string, n: number) => Array.from({ length: n }, () => ({ databaseId: north, userId: admin, statusText: text }));
    await t.db.insert(leadEvents).values([...rows("Недозвон", 3), ...rows("Отказ", 1), { databaseId: south, statusText: "Заявка" }]);
    const res = await t.request.get(`/api/v1/status/countsAllTime/${encodeURIComponent("Север")}`).set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { status: "Недозвон", count: 3 },
      { status: "Отказ", count: 1 },
    ]);
    const unknown = await t.request.get(`/api/v1/status/countsAllTime/${encodeURIComponent("Нет такой")}`).set(bearer(token));
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("База не найдена");
  });
});

describe("DELETE /api/v1/database/{id}", () => {
  it("deletes the base with its contacts, keeps history and other bases, and unlinks it from exports", async () => {
    const doomed = await importBase("Удаляемая", 4, "093");
    const [job] = await t.db
      .insert(exports)
      .values({ name: "Старый экспорт", databaseIds: [doomed, south], statusIds: [0], isExported: true, progress: 100 })
      .returning();
    await t.db.insert(leadEvents).values({ databaseId: doomed, statusText: "Отказ" });

    const res = await t.request.delete(`/api/v1/database/${doomed}`).set(bearer(token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "База «Удаляемая» удалена" });

    const [{ left }] = await t.db.select({ left: count() }).from(contacts).where(eq(contacts.databaseId, doomed));
    expect(left).toBe(0);
    const [{ others }] = await t.db.select({ others: count() }).from(contacts);
    expect(others).toBe(8);
    const [kept] = await t.db.select().from(exports).where(eq(exports.id, job.id));
    expect(kept.databaseIds).toEqual([south]);
    const history = await t.db.select().from(leadEvents).where(eq(leadEvents.statusText, "Отказ"));
    expect(history.map((e) => e.databaseId)).toContain(null);

    const again = await t.request.delete(`/api/v1/database/${doomed}`).set(bearer(token));
    expect([again.status, again.body.message]).toEqual([404, "База не найдена"]);
    const bad = await t.request.delete("/api/v1/database/abc").set(bearer(token));
    expect([bad.status, bad.body.message]).toEqual([400, "Неверный идентификатор"]);
    expect((await t.db.select().from(databases)).map((b) => b.name).sort()).toEqual(["Север", "Юг"]);
  });
});
