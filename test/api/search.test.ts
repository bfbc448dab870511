import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { buildXlsx } from "../helpers/xlsx";

let token: string;
let kyiv: number;
let lviv: number;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
  kyiv = await importBase("Киев", [
    ["Иванов Иван Иванович", "0501234567", "Киев"],
    ["Петренко Ольга", "+380 67 111 22 33", "Киев"],
    ["Ivan_Smith 100%", "0930000001", "Киев"],
  ]);
  lviv = await importBase("Львов", [
    ["Иваненко Пётр", "380631112233", "Львов"],
    ["Сидорова Анна", "0501234567", "Львов"],
  ]);
});

async function importBase(name: string, rows: string[][]) {
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", JSON.stringify(["name", "phone", "city"]))
    .attach("file", await buildXlsx([["ФИО", "Телефон", "Город"], ...rows]), `${name}.xlsx`);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return res.body.id as number;
}

const search = (query: Record<string, string>) => t.request.get("/api/v1/database/search").query(query).set(bearer(token));
const names = (body: Array<{ data: { name: string } }>) => body.map((hit) => hit.data.name);

describe("GET /api/v1/database/search", () => {
  it.each(["0501234567", "+380501234567", "+380 (50) 123-45-67", "050 123 45 67", "380501234567", "00380501234567"])(
    "finds a phone written as %s, in every base",
    async (term) => {
      const res = await search({ term, database: "0" });
      expect(res.status).toBe(200);
      expect(res.body.map((h: { databaseName: string }) => h.databaseName)).toEqual(["Киев", "Львов"]);
      expect(names(res.body)).toEqual(["Иванов Иван Иванович", "Сидорова Анна"]);
    },
  );

  it("answers the SPEC shape: databaseName and the contact's fields", async () => {
    const res = await search({ term: "067 111 22 33" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        databaseName: "Киев",
        data: {
          id: expect.any(Number),
          name: "Петренко Ольга",
          phone: "+380 67 111 22 33",
          city: "Киев",
          address: "",
          age: "",
          additionalInfo1: "",
          additionalInfo2: "",
          additionalInfo3: "",
          additionalInfo4: "",
          status: "",
          doNotCall: false,
        },
      },
    ]);
  });

  it("finds a part of a name, any case, in one base or in all", async () => {
    expect(names((await search({ term: "иван", database: "0" })).body)).toEqual(["Иванов Иван Иванович", "Иваненко Пётр"]);
    expect(names((await search({ term: "ИВАН", database: String(lviv) })).body)).toEqual(["Иваненко Пётр"]);
    expect(names((await search({ term: "ольга", database: String(kyiv) })).body)).toEqual(["Петренко Ольга"]);
    // LIKE wildcards in the term are plain characters.
    expect(names((await search({ term: "n_s" })).body)).toEqual(["Ivan_Smith 100%"]);
    expect(names((await search({ term: "n%s" })).body)).toEqual([]);
    expect(names((await search({ term: "h 100%" })).body)).toEqual(["Ivan_Smith 100%"]);
  });

  it("answers an empty list when nothing matches", async () => {
    const res = await search({ term: "Никто Никакой" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it("needs a non-blank term, a name term of 3 characters, a valid base", async () => {
    for (const query of [{}, { term: "   " }] as Array<Record<string, string>>) {
      const res = await search(query);
      expect([res.status, res.body.message]).toEqual([400, "Введите телефон или часть имени для поиска"]);
    }
    const short = await search({ term: "ив" });
    expect([short.status, short.body.message]).toEqual([400, "Для поиска по имени введите не менее 3 символов"]);
    const badBase = await search({ term: "иван", database: "abc" });
    expect([badBase.status, badBase.body.message]).toEqual([400, "Неверный идентификатор базы"]);
  });

  it("is for admins only", async () => {
    const manager = await createUser(t.db, { login: "searcher" });
    const res = await search({ term: "иван" }).set(bearer(await t.tokenFor(manager)));
    expect(res.status).toBe(403);
  });

  it("is served by indexes, not by a scan of all contacts", async () => {
    // With sequential scans priced out, the planner must have an index for each kind of term.
    const plan = async (where: string) =>
      t.db.transaction(async (tx) => {
        await tx.execute(sql`set local enable_seqscan = off`);
        const rows = await queryRows<Record<string, string>>(tx, sql.raw(`explain select id from contacts c where ${where}`));
        return rows.map((r) => Object.values(r)[0]).join("\n");
      });
    expect(await plan(`lower(c.name) like '%иван%'`)).toContain("contacts_name_trgm_idx");
    expect(await plan(`c.phone_key = '380501234567'`)).toContain("contacts_phone_key_idx");
  });
});
