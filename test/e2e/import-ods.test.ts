import { asc, eq } from "drizzle-orm";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { contacts, databases } from "../../db/schema";
import { ADMIN } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, mappingGrid, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { convertWithLibreOffice } from "../helpers/ods";

/** Issue 16 on the import page: an .ods base, and the sheet picker, with JavaScript on and off. */
let e: E2E;
const files = new Map<string, Buffer>();
beforeAll(async () => {
  e = await startE2E();
  const single = new ExcelJS.Workbook();
  single.addWorksheet("База").addRows([
    ["ФИО", "Телефон", "Город"],
    ["Ёлкина Анна", "+380 63 555-44-33", "Одеса"],
    ["Коваль Олег", "0501112233", "Киев"],
  ]);
  const sheets = new ExcelJS.Workbook();
  sheets.addWorksheet("Пустой");
  sheets.addWorksheet("Клиенты").addRows([
    ["ФИО", "Телефон"],
    ["Иванов Иван", "0501234567"],
  ]);
  sheets.addWorksheet("Архив").addRows([
    ["ФИО", "Телефон"],
    ["Сидоров Пётр", "0631112233"],
    ["Орлова Ольга", "0672223344"],
  ]);
  const written = await convertWithLibreOffice(
    [
      { name: "single.xlsx", data: Buffer.from(await single.xlsx.writeBuffer()) },
      { name: "sheets.xlsx", data: Buffer.from(await sheets.xlsx.writeBuffer()) },
    ],
    "ods",
  );
  files.set("single.ods", written.get("single.xlsx")!);
  files.set("sheets.ods", written.get("sheets.xlsx")!);
}, 200_000);
afterAll(async () => {
  await e?.close();
});

const ODS_MIME = "application/vnd.oasis.opendocument.spreadsheet";

async function contactsOf(name: string) {
  const [base] = await e.db.select().from(databases).where(eq(databases.name, name));
  if (!base) return null;
  return e.db.select({ name: contacts.name, phone: contacts.phone }).from(contacts).where(eq(contacts.databaseId, base.id)).orderBy(asc(contacts.id));
}

async function openImport(javaScript: boolean) {
  const page = await e.newPage({ javaScript });
  await loginThroughPage(page, ADMIN);
  await page.goto("/importbase");
  if (javaScript) await waitForHydration(page);
  return page;
}

/** The preview's rows as the column cards show them (issue 17: one card per column), each row's cells joined. */
async function previewRows(page: Page): Promise<string[]> {
  return (await mappingGrid(page)).evaluate((grid) => {
    const columns = [...grid.querySelectorAll('[data-testid^="mapping-column-"] ul')].map((list) =>
      [...list.querySelectorAll("li")].map((item) => (item.textContent === "—" ? "" : (item.textContent ?? ""))),
    );
    const count = Math.max(0, ...columns.map((cells) => cells.length));
    return Array.from({ length: count }, (_, r) => columns.map((cells) => cells[r] ?? "").join(""));
  });
}

describe.each([true, false])("with JavaScript %s", (javaScript) => {
  it("imports an .ods written by LibreOffice", async () => {
    const name = `ODS ${javaScript ? "JS" : "без JS"}`;
    const page = await openImport(javaScript);
    expect(await page.locator("#base-file").getAttribute("accept")).toContain(".ods");
    await page.fill("#base-name", name);
    await page.setInputFiles("#base-file", { name: "база.ods", mimeType: ODS_MIME, buffer: files.get("single.ods")! });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await mappingGrid(page);
    expect(await page.locator("#map_0").inputValue()).toBe("name");
    expect(await page.locator("#map_1").inputValue()).toBe("phone");
    expect((await previewRows(page))[0]).toBe("Ёлкина Анна+380 63 555-44-33Одеса");
    // One sheet: no picker.
    expect(await page.getByTestId("sheet-form").count()).toBe(0);
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();
    const result = page.getByTestId("import-result");
    await parsed(result);
    expect(await result.getByTestId("imported-count").textContent()).toBe("2");
    expect(await contactsOf(name)).toEqual([
      { name: "Ёлкина Анна", phone: "+380 63 555-44-33" },
      { name: "Коваль Олег", phone: "0501112233" },
    ]);
  });

  it("an empty first sheet: the page says so, shows the next sheet, and imports the sheet the admin picks", async () => {
    // The empty first sheet is refused with a 400, which the browser logs.
    allowRefusal(400);
    const name = `Листы ${javaScript ? "JS" : "без JS"}`;
    const page = await openImport(javaScript);
    await page.fill("#base-name", name);
    await page.setInputFiles("#base-file", { name: "листы.ods", mimeType: ODS_MIME, buffer: files.get("sheets.ods")! });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await mappingGrid(page);
    expect(await page.getByTestId("import-banner").textContent()).toBe(
      "Первый лист «Пустой» пустой, поэтому показан лист «Клиенты». Другой лист можно выбрать в списке «Лист»",
    );
    expect(await page.getByText("Файл пустой").count()).toBe(0);
    expect(await page.locator("#sheet option").allTextContents()).toEqual(["Пустой", "Клиенты", "Архив"]);
    expect(await page.locator("#sheet").inputValue()).toBe("2");
    expect(await previewRows(page)).toEqual(["Иванов Иван0501234567"]);

    // The empty sheet: a Russian error, and the file and the picker stay.
    await page.selectOption("#sheet", "1");
    await page.getByRole("button", { name: "Показать лист", exact: true }).click();
    await page.getByText("Лист «Пустой» пустой: выберите другой лист").first().waitFor();
    await mappingGrid(page);

    await page.selectOption("#sheet", "3");
    await page.getByRole("button", { name: "Показать лист", exact: true }).click();
    await page.getByTestId("mapping-table").getByText("Сидоров Пётр").first().waitFor();
    expect(await previewRows(page)).toEqual(["Сидоров Пётр0631112233", "Орлова Ольга0672223344"]);
    expect(await page.locator("#sheet").inputValue()).toBe("3");
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();
    const result = page.getByTestId("import-result");
    await parsed(result);
    expect(await result.getByTestId("imported-count").textContent()).toBe("2");
    expect(await contactsOf(name)).toEqual([
      { name: "Сидоров Пётр", phone: "0631112233" },
      { name: "Орлова Ольга", phone: "0672223344" },
    ]);
  });
});
