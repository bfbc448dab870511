import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, databases, settings } from "../../db/schema";
import { ADMIN, bearer } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, mappingGrid, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { csvText } from "../helpers/csv";
import { buildXls, buildXlsx } from "../helpers/xlsx";

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

const XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

async function countOf(name: string) {
  const [base] = await e.db.select().from(databases).where(eq(databases.name, name));
  if (!base) return null;
  const [{ n }] = await e.db.select({ n: count() }).from(contacts).where(eq(contacts.databaseId, base.id));
  return n;
}

describe.each([true, false])("import with JavaScript %s", (javaScript) => {
  it("uploads, maps the columns, imports, and shows the removed duplicates per base", async () => {
    const name = `Импорт ${javaScript ? "JS" : "без JS"}`;
    const file = await buildXlsx([
      ["Телефон", "ФИО", "Примечание", "Город"],
      ["0501234567", "Иванов Иван", "VIP", "Киев"],
      [380671112233, "Петрова Мария", "", "Львов"],
      ["050 123 45 67", "Дубль Иванова", "", ""],
      ["", "", "", "Одесса"],
    ]);
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/importbase");
    if (javaScript) await waitForHydration(page);
    await expect(page.getByTestId("import-warning").textContent()).resolves.toContain("не импортируются");

    await page.fill("#base-name", name);
    await page.setInputFiles("#base-file", { name: "клиенты.xlsx", mimeType: XLSX_MIME, buffer: file });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await mappingGrid(page);
    // Suggested from the header row: Номер, ФИО, Доп. поле 1, Город.
    expect(await page.locator("#map_0").inputValue()).toBe("phone");
    expect(await page.locator("#map_1").inputValue()).toBe("name");
    expect(await page.locator("#map_2").inputValue()).toBe("additionalInfo1");
    expect(await page.locator("#map_3").inputValue()).toBe("city");
    // Drop the city column.
    await page.selectOption("#map_3", "skip");
    // Saved on a phone: the result is seen without scrolling, with or without JavaScript (issue 31).
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();

    const result = page.getByTestId("import-result");
    await parsed(result);
    expect(await result.evaluate((el) => el.getBoundingClientRect().top < innerHeight - 100)).toBe(true);
    // The success is said once: in the result dialog, with no banner and no toast beside it (issue 17).
    expect(await result.textContent()).toContain("База данных успешно импортирована");
    expect(await page.getByText("База данных успешно импортирована").count()).toBe(1);
    expect(await page.getByTestId("import-banner").count()).toBe(0);
    expect(await result.getByTestId("imported-count").textContent()).toBe("2");
    expect(await result.getByTestId("skipped-count").textContent()).toBe("1");
    expect(await result.getByTestId("duplicates").locator("tbody tr").allTextContents()).toEqual([`${name}1`]);
    expect(await countOf(name)).toBe(2);
    const [row] = await e.db.select().from(contacts).where(eq(contacts.phone, "380671112233"));
    expect(row).toMatchObject({ name: "Петрова Мария", city: "" });
  });

  it("a file of nothing but duplicates: a warning, no result dialog and no empty base (issue 17)", async () => {
    // The file of duplicates is refused with a 409, which the browser logs.
    allowRefusal(409);
    await e.db.update(settings).set({ removeDuplicatesAcrossBases: true }).where(eq(settings.id, 1));
    try {
      const rows = [
        ["Телефон", "ФИО"],
        [`05077700${javaScript ? "01" : "02"}`, "Старый клиент"],
      ];
      const first = await e.request
        .post("/api/v1/database/import")
        .set(bearer(await e.adminToken()))
        .field("name", `Исходная ${javaScript}`)
        .field("mappings", JSON.stringify(["phone", "name"]))
        .attach("file", await buildXlsx(rows), "a.xlsx");
      expect(first.status).toBe(200);
      const name = `Только дубли ${javaScript}`;
      const page = await e.newPage({ javaScript });
      await loginThroughPage(page, ADMIN);
      await page.goto("/importbase");
      if (javaScript) await waitForHydration(page);
      await page.fill("#base-name", name);
      await page.setInputFiles("#base-file", { name: "b.xlsx", mimeType: XLSX_MIME, buffer: await buildXlsx(rows) });
      await page.getByRole("button", { name: "Загрузить", exact: true }).click();
      await mappingGrid(page);
      await page.getByRole("button", { name: "Сохранить", exact: true }).click();
      const banner = page.getByTestId("import-banner");
      await parsed(banner);
      expect(await banner.textContent()).toBe("Ничего не импортировано: все контакты файла (1) — дубли. База не создана");
      expect(await banner.getAttribute("class")).toContain("banner-warning");
      expect(await page.getByText("успешно импортирована").count()).toBe(0);
      expect(await page.getByTestId("import-result").count()).toBe(0);
      expect(await countOf(name)).toBe(null);
    } finally {
      await e.db.update(settings).set({ removeDuplicatesAcrossBases: false }).where(eq(settings.id, 1));
    }
  });

  it("shows the error banner for a missing name, and for a file that is not a spreadsheet", async () => {
    // Both refusals are 400 answers, which the browser logs.
    allowRefusal(400);
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/importbase");
    if (javaScript) await waitForHydration(page);
    await page.setInputFiles("#base-file", { name: "a.xlsx", mimeType: XLSX_MIME, buffer: buildXls([["ФИО"], ["Иван"]]) });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    const banner = page.getByTestId("import-banner");
    await parsed(banner);
    expect(await banner.textContent()).toBe("Произошла ошибка при импорте базы данныхВведите название базы");

    // With JavaScript the browser refuses it before the upload starts (issue 31): no post leaves the page.
    const uploads: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST") uploads.push(request.url());
    });
    await page.fill("#base-name", "Не таблица");
    await page.setInputFiles("#base-file", { name: "a.xlsx", mimeType: XLSX_MIME, buffer: Buffer.from("просто текст") });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await page.getByText("Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv").first().waitFor();
    expect(await countOf("Не таблица")).toBeNull();
    expect(uploads.length).toBe(javaScript ? 0 : 1);

    // A text of notes is read as CSV, and refused: it has no column of phones (issue 31).
    if (!javaScript) await page.goto("/importbase");
    await page.fill("#base-name", "Текстовый файл");
    await page.setInputFiles("#base-file", {
      name: "notes.txt",
      mimeType: "text/plain",
      buffer: Buffer.from("Позвонить Ивану после обеда\nКупить бумагу\n"),
    });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await page.getByText("В файле нет столбца с номерами телефонов: база не создана.", { exact: false }).first().waitFor();
    expect(await page.getByTestId("mapping-form").count()).toBe(0);
    expect(await countOf("Текстовый файл")).toBeNull();
  });
});

describe("a long save with JavaScript", () => {
  it("counts the rows written while the import runs, then shows the result", async () => {
    const lines = [["ФИО", "Телефон"]];
    for (let i = 0; i < 60_000; i++) lines.push([`Клиент ${i}`, `063${String(i).padStart(7, "0")}`]);
    const page = await e.newPage({ javaScript: true });
    await loginThroughPage(page, ADMIN);
    await page.goto("/importbase");
    await waitForHydration(page);
    await page.fill("#base-name", "Долгий импорт");
    await page.setInputFiles("#base-file", { name: "долгий.csv", mimeType: "text/csv", buffer: Buffer.from(csvText(lines, ";")) });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await mappingGrid(page);
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();

    // Before the result: the bar says how many rows are written so far, not only that the file is processed.
    const progress = page.getByTestId("import-progress");
    await progress.getByText(/^Обработка файла\.\.\. строк: \d[\d\s]*$/).waitFor();
    const result = page.getByTestId("import-result");
    await parsed(result);
    expect(await result.getByTestId("imported-count").textContent()).toBe("60000");
    expect(await progress.count()).toBe(0);
  });
});
