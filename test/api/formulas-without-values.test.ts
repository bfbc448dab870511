import { asc, count, eq } from "drizzle-orm";
import ExcelJS from "exceljs";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { contacts, databases } from "../../db/schema";
import { bearer, useTestApp } from "../helpers/app";
import { odsFormulasWithoutValues } from "../helpers/sheet-variants";
import { handBuiltXls } from "../helpers/sheet-xls-variants";

/**
 * Decision 043: a formula whose value the file does not hold (exceljs and openpyxl write formulas without results;
 * some .xls writers leave the text out or hold 0 for it) is computed by Excel and LibreOffice on opening the file;
 * the import cannot compute it. The preview says which cells, the import refuses them in an imported column (and
 * imports the file when that column is skipped): never an empty or stale phone taken silently.
 */
let token: string;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
});

beforeEach(async () => {
  await t.db.delete(databases);
});

type Answer = {
  status: number;
  body: { message?: string; code?: string; error?: string; formulas?: string; rows?: string[][]; [key: string]: unknown };
};

const preview = (file: Buffer, filename: string) =>
  t.request.post("/api/v1/database/preview").set(bearer(token)).attach("file", file, filename) as unknown as Promise<Answer>;
const importFile = (file: Buffer, filename: string, name: string, mappings: string[]) =>
  t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", JSON.stringify(mappings))
    .attach("file", file, filename) as unknown as Promise<Answer>;

async function contactsOf(name: string) {
  const [base] = await t.db.select().from(databases).where(eq(databases.name, name));
  if (!base) return null;
  return t.db.select({ name: contacts.name, phone: contacts.phone }).from(contacts).where(eq(contacts.databaseId, base.id)).orderBy(asc(contacts.id));
}

/** A base whose phone column is a formula of the number column, written by exceljs with or without results. */
async function formulaBook(withResults: boolean): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("База");
  sheet.addRow(["ФИО", "Номер", "Телефон"]);
  const people: Array<[string, number]> = [
    ["Иван Петров", 9161234567],
    ["Мария Орлова", 9031234567],
    ["Олег Коваль", 9051112233],
  ];
  people.forEach(([name, number], i) => {
    const formula = `"+7"&B${i + 2}`;
    sheet.addRow([name, number, withResults ? { formula, result: `+7${number}` } : { formula }]);
  });
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const WARNING =
  "В показанных строках 3 формулы без сохранённого значения (C2, C3, C4): Excel и LibreOffice вычисляют их при открытии файла, а импорт взял бы пустые или устаревшие значения. Откройте файл в Excel или LibreOffice, сохраните его и загрузите снова";
const REFUSAL =
  "В импортируемых столбцах 3 формулы без сохранённого значения (C2, C3, C4): Excel и LibreOffice вычисляют их при открытии файла, а импорт получил бы пустые или устаревшие значения. База не создана. Откройте файл в Excel или LibreOffice, сохраните его и загрузите снова";

describe("formulas without a held value", () => {
  it("an .xlsx whose phones are formulas without results: the preview names the cells, the import refuses, nothing is written", async () => {
    const file = await formulaBook(false);
    const shown = await preview(file, "база.xlsx");
    expect(shown.status).toBe(200);
    expect(shown.body.formulas).toBe(WARNING);
    // The cells show empty, as the file holds them: the warning says why.
    expect(shown.body.rows).toEqual([
      ["Иван Петров", "9161234567", ""],
      ["Мария Орлова", "9031234567", ""],
      ["Олег Коваль", "9051112233", ""],
    ]);
    const refused = await importFile(file, "база.xlsx", "Формулы", ["name", "skip", "phone"]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(REFUSAL);
    expect(await contactsOf("Формулы")).toBeNull();
    const [{ rows }] = await t.db.select({ rows: count() }).from(contacts);
    expect(rows).toBe(0);
  });

  it("the same base with the formula column skipped imports: the flagged cells are not taken", async () => {
    const file = await formulaBook(false);
    const answer = await importFile(file, "база.xlsx", "Без формул", ["name", "phone", "skip"]);
    expect(answer.status).toBe(200);
    expect(await contactsOf("Без формул")).toEqual([
      { name: "Иван Петров", phone: "9161234567" },
      { name: "Мария Орлова", phone: "9031234567" },
      { name: "Олег Коваль", phone: "9051112233" },
    ]);
  });

  it("formulas with their results held (Excel's way): no warning, the phones import", async () => {
    const file = await formulaBook(true);
    const shown = await preview(file, "база.xlsx");
    expect(shown.status).toBe(200);
    expect(shown.body.formulas).toBeUndefined();
    const answer = await importFile(file, "база.xlsx", "С результатами", ["name", "skip", "phone"]);
    expect(answer.status).toBe(200);
    expect(await contactsOf("С результатами")).toEqual([
      { name: "Иван Петров", phone: "+79161234567" },
      { name: "Мария Орлова", phone: "+79031234567" },
      { name: "Олег Коваль", phone: "+79051112233" },
    ]);
  });

  it("an .ods whose phone formulas hold no value: the preview names the cells, the import refuses, skipping them imports", async () => {
    const file = odsFormulasWithoutValues();
    const shown = await preview(file, "база.ods");
    expect(shown.status).toBe(200);
    expect(shown.body.formulas).toMatch(/^В показанных строках 2 формулы без сохранённого значения \(C2, C3\)/);
    const refused = await importFile(file, "база.ods", "ods формулы", ["name", "skip", "phone", "skip"]);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(/^В импортируемых столбцах 2 формулы без сохранённого значения \(C2, C3\)/);
    expect(await contactsOf("ods формулы")).toBeNull();
    const answer = await importFile(file, "база.ods", "ods без формул", ["name", "phone", "skip", "skip"]);
    expect(answer.status).toBe(200);
    expect(await contactsOf("ods без формул")).toEqual([
      { name: "Иван Петров", phone: "9161234567" },
      { name: "Мария", phone: "9031234567" },
      { name: "Итого", phone: "" },
    ]);
  });

  it.each(["biff8-formula-text-held-as-zero", "biff5-formula-text-without-string", "biff8-formulas-all-empty-text"])(
    "an .xls whose phone formulas hold no text (%s): the preview names the cells, the import refuses",
    async (variant) => {
      const file = handBuiltXls().find((v) => v.name === variant)!.data;
      const shown = await preview(file, "база.xls");
      expect(shown.status).toBe(200);
      const all = variant.includes("all-empty");
      // xlwt's files hold every formula's result empty: the total in D4 too.
      expect(shown.body.formulas).toMatch(
        all
          ? /^В показанных строках 3 формулы без сохранённого значения \(C2, C3, D4\)/
          : /^В показанных строках 2 формулы без сохранённого значения \(C2, C3\)/,
      );
      const refused = await importFile(file, "база.xls", `xls ${variant}`, ["name", "skip", "phone", "skip"]);
      expect(refused.status).toBe(400);
      expect(refused.body.message).toMatch(/^В импортируемых столбцах 2 формулы без сохранённого значения \(C2, C3\)/);
      expect(await contactsOf(`xls ${variant}`)).toBeNull();
    },
  );

  it("a do-not-call file whose numbers are formulas without values is refused, naming them; the list stays as it was", async () => {
    const refused = await (t.request
      .post("/api/v1/do-not-call/import")
      .set(bearer(token))
      .attach("file", await formulaBook(false), "не звонить.xlsx") as unknown as Promise<Answer>);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("formulas_without_values");
    expect(refused.body.message).toBe(
      "В файле 3 формулы без сохранённого значения (C2, C3, C4): Excel и LibreOffice вычисляют их при открытии файла, а импорт получил бы пустые или устаревшие значения. Список «Не звонить» не изменён. Откройте файл в Excel или LibreOffice, сохраните его и загрузите снова",
    );
    const list = await t.request.get("/api/v1/do-not-call").set(bearer(token));
    expect(list.body.total).toBe(0);

    // With the results held, the same numbers are listed.
    const listed = await t.request
      .post("/api/v1/do-not-call/import")
      .set(bearer(token))
      .attach("file", await formulaBook(true), "не звонить.xlsx");
    expect(listed.status).toBe(200);
    expect((await t.request.get("/api/v1/do-not-call").set(bearer(token))).body.total).toBe(6);
  });
});
