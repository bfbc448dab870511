import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, databases, exports } from "../../db/schema";
import { EXPORT_HEADER } from "../../server/core/exports/run";
import { ADMIN } from "../helpers/app";
import { allowRefusal, type E2E, loginThroughPage, mappingGrid, parsed, startE2E, waitForHydration } from "../helpers/browser";
import { windows1251 } from "../helpers/csv";

/** CSV bases through the pages (issue 16): import on /importbase, export on /exportbase, with JavaScript on and off. */

let e: E2E;
beforeAll(async () => {
  e = await startE2E();
});
afterAll(async () => {
  await e?.close();
});

async function contactsOf(name: string) {
  const [base] = await e.db.select().from(databases).where(eq(databases.name, name));
  if (!base) return null;
  return e.db
    .select({ name: contacts.name, phone: contacts.phone, info: contacts.additionalInfo1 })
    .from(contacts)
    .where(eq(contacts.databaseId, base.id))
    .orderBy(contacts.id);
}

describe.each([true, false])("CSV with JavaScript %s", (javaScript) => {
  it("imports a Windows-1251 file with `;` through /importbase: preview, mapping, duplicates removed", async () => {
    const name = `CSV ${javaScript ? "JS" : "без JS"}`;
    const file = windows1251(
      ["Телефон;ФИО;Примечание", "0501234567;Иванов Иван;VIP", '+380671112233;Петрова Мария;"две\r\nстроки"', "050 123 45 67;Дубль Иванова;"].join(
        "\r\n",
      ),
    );
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/importbase");
    if (javaScript) await waitForHydration(page);
    expect(await page.locator("#base-file").getAttribute("accept")).toContain(".csv");
    await page.fill("#base-name", name);
    await page.setInputFiles("#base-file", { name: "из 1С.csv", mimeType: "text/csv", buffer: file });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    const table = await mappingGrid(page);
    expect(await table.textContent()).toContain("Петрова Мария");
    expect(await table.textContent()).toContain("+380671112233");
    expect(await page.locator("#map_0").inputValue()).toBe("phone");
    expect(await page.locator("#map_1").inputValue()).toBe("name");
    await page.selectOption("#map_2", "additionalInfo1");
    await page.getByRole("button", { name: "Сохранить", exact: true }).click();

    const result = page.getByTestId("import-result");
    await parsed(result);
    expect(await result.textContent()).toContain("База данных успешно импортирована");
    expect(await result.getByTestId("imported-count").textContent()).toBe("2");
    expect(await result.getByTestId("duplicates").locator("tbody tr").allTextContents()).toEqual([`${name}1`]);
    expect(await contactsOf(name)).toEqual([
      { name: "Иванов Иван", phone: "0501234567", info: "VIP" },
      // A line break inside a cell is read as LF, as LibreOffice reads it (decision 032).
      { name: "Петрова Мария", phone: "+380671112233", info: "две\nстроки" },
    ]);
  });

  it("a binary file named .csv: the Russian refusal, no base", async () => {
    // The refused file is answered 400, which the browser logs.
    allowRefusal(400);
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/importbase");
    if (javaScript) await waitForHydration(page);
    await page.fill("#base-name", `Картинка ${javaScript}`);
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.alloc(100, 1)]);
    await page.setInputFiles("#base-file", { name: "фото.csv", mimeType: "text/csv", buffer: png });
    await page.getByRole("button", { name: "Загрузить", exact: true }).click();
    await page.getByText("Файл не похож на текстовую таблицу .csv: в нём двоичные данные").first().waitFor();
    expect(await contactsOf(`Картинка ${javaScript}`)).toBeNull();
  });

  it("creates a .csv export on /exportbase and downloads it: UTF-8 with a BOM, `;`, the contacts' cells", async () => {
    await e.db.delete(exports);
    const name = `CSV ${javaScript ? "JS" : "без JS"}`;
    const [base] = await e.db.select().from(databases).where(eq(databases.name, name));
    expect(base).toBeDefined();
    const page = await e.newPage({ javaScript });
    await loginThroughPage(page, ADMIN);
    await page.goto("/exportbase?dialog=create");
    if (javaScript) await waitForHydration(page);
    const form = page.getByTestId("create-export-form");
    await form.locator("#export-name").fill("В CSV");
    await form.getByLabel(name, { exact: true }).check();
    await form.getByLabel("Без статуса").check();
    await form.getByLabel("CSV (.csv, UTF-8, разделитель «;»)").check();
    await form.getByRole("button", { name: "Создать" }).click();
    await page.getByText("Экспорт «В CSV» создан").first().waitFor();
    await expect
      .poll(async () => {
        await page.goto("/exportbase");
        return page.getByTestId("export-state").first().textContent();
      })
      .toBe("Готов");
    expect(await page.getByTestId("export-format").first().textContent()).toBe(".csv");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "Скачать" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^export-\d{4}-\d{2}-\d{2}\.csv$/);
    const chunks: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
    const data = Buffer.concat(chunks);
    expect([...data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = data.toString("utf8", 3).split("\r\n");
    expect(lines[0]).toBe(EXPORT_HEADER.join(";"));
    expect(lines[1]).toBe(`Иванов Иван;0501234567;;;;VIP;;;;${name};;;;`);
    expect(lines[2]).toBe(`Петрова Мария;+380671112233;;;;"две\nстроки";;;;${name};;;;`);
    const [{ n }] = await e.db.select({ n: count() }).from(exports);
    expect(n).toBe(1);
  });
});
