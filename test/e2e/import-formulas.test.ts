import { asc, eq } from "drizzle-orm";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, databases } from "../../db/schema";
import { ADMIN } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, mappingGrid, parsed, startE2E, waitForHydration } from "../helpers/browser";

/**
 * Decision 043 on the import page, with JavaScript on and off: a base whose phones are formulas the file holds no
 * value for (exceljs and openpyxl write them so). The preview says how many and where and what to do; saving with
 * that column imported is refused with the same cells named and no base; with the column skipped, the rest imports.
 */
let e: E2E;
let file: Buffer;
beforeAll(async () => {
  e = await startE2E();
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet("База");
  sheet.addRow(["ФИО", "Номер", "Телефон"]);
  sheet.addRow(["Иван Петров", 9161234567, { formula: '"+7"&B2' }]);
  sheet.addRow(["Мария Орлова", 9031234567, { formula: '"+7"&B3' }]);
  file = Buffer.from(await workbook.xlsx.writeBuffer());
}, 200_000);
afterAll(async () => {
  await e?.close();
});

async function contactsOf(name: string) {
  const [base] = await e.db.select().from(databases).where(eq(databases.name, name));
  if (!base) return null;
  return e.db.select({ name: contacts.name, phone: contacts.phone }).from(contacts).where(eq(contacts.databaseId, base.id)).orderBy(asc(contacts.id));
}

const WARNING =
  "В показанных строках 2 формулы без сохранённого значения (C2, C3): Excel и LibreOffice вычисляют их при открытии файла, а импорт взял бы пустые или устаревшие значения. Откройте файл в Excel или LibreOffice, сохраните его и загрузите снова";
const REFUSAL =
  "В импортируемых столбцах 2 формулы без сохранённого значения (C2, C3): Excel и LibreOffice вычисляют их при открытии файла, а импорт получил бы пустые или устаревшие значения. База не создана. Откройте файл в Excel или LibreOffice, сохраните его и загрузите снова";

describe.each([true, false])("with JavaScript %s", (javaScript) => {
  it("formulas without values: the preview warns with the cells, saving them is refused, skipping them imports", async () => {
    const name = `Формулы ${javaScript ? "JS" : "без JS"}`;
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/importbase");
    if (javaScript) await waitForHydration(page);
    await page.fill("#base-name", name);
    await page.setInputFiles("#base-file", {
      name: "база.xlsx",
      mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      buffer: file,
    });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await mappingGrid(page);
    await page.getByText(WARNING).waitFor();

    // The phone column is the formulas: refused, nothing written, the file and the warning stay.
    await page.selectOption("#map_1", "skip");
    await page.selectOption("#map_2", "phone");
    // The refused save is a 400 answer, which the browser logs as a failed resource.
    allowRefusal(400);
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();
    await page.getByText(REFUSAL).first().waitFor();
    await mappingGrid(page);
    expect(await contactsOf(name)).toBeNull();
    await page.getByText(WARNING).waitFor();
    // The admin's column types are kept for the next try.
    expect([await page.inputValue("#map_1"), await page.inputValue("#map_2")]).toEqual(["skip", "phone"]);

    // The number column as the phone, the formulas skipped: imported.
    await page.selectOption("#map_1", "phone");
    await page.selectOption("#map_2", "skip");
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();
    const result = page.getByTestId("import-result");
    await parsed(result);
    expect(await result.getByTestId("imported-count").textContent()).toBe("2");
    expect(await contactsOf(name)).toEqual([
      { name: "Иван Петров", phone: "9161234567" },
      { name: "Мария Орлова", phone: "9031234567" },
    ]);
  });
});
