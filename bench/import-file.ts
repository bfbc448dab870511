import fs from "node:fs";
import path from "node:path";
import ExcelJS from "exceljs";

/**
 * A base like a call centre's (bench/import.ts and bench/capacity.ts import it): a header, then 8 columns, Cyrillic
 * names, phones as text; 2% repeat an earlier row of the file and, with `knownPhones`, 3% are 050 phones that
 * bench/import.ts puts in the database beforehand.
 */
export function* importRows(rows: number, { phonePrefix = "067", knownPhones = false } = {}): Generator<string[]> {
  yield ["ФИО", "Телефон", "Город", "Адрес", "Возраст", "Примечание", "Источник", "Менеджер"];
  const names = ["Иванов Иван", "Петренко Ольга", "Коваленко Андрей", "Шевченко Мария", "Бондаренко Олег"];
  const cities = ["Киев", "Львов", "Одесса", "Днепр", "Харьков"];
  for (let i = 0; i < rows; i++) {
    const n = i % 50 === 7 ? i - 7 : i;
    const phone = knownPhones && i % 33 === 5 ? `050${String(i).padStart(7, "0")}` : `${phonePrefix}${String(n).padStart(7, "0")}`;
    yield [
      `${names[n % 5]} ${n}`,
      phone,
      cities[n % 5],
      `ул. Садовая, ${n % 300}`,
      String(20 + (n % 50)),
      n % 3 ? "" : "перезвонить вечером",
      "реклама",
      "",
    ];
  }
}

/** Those rows as an .xlsx, streamed to `file` (exceljs, no shared strings, no styles). */
export async function writeImportXlsx(file: string, rows: Iterable<string[]>): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useSharedStrings: false, useStyles: false });
  const sheet = workbook.addWorksheet("Лист1");
  for (const row of rows) sheet.addRow(row).commit();
  sheet.commit();
  await workbook.commit();
}

/** The mapping of those 8 columns, as the import's form sends it. */
export const IMPORT_MAPPINGS = JSON.stringify(["name", "phone", "city", "address", "age", "additionalInfo1", "additionalInfo2", "additionalInfo3"]);

/**
 * Uploads `file` to the app's /api/v1/database/import (`apiBase` ends in /api/v1) as a new base `name`, with those
 * 8 columns mapped: the contacts imported and the request's wall time. Anything but 200 throws.
 */
export async function uploadImport(apiBase: string, authorization: string, file: string, name: string) {
  const form = new FormData();
  form.set("name", name);
  form.set("mappings", IMPORT_MAPPINGS);
  form.set("file", new Blob([fs.readFileSync(file)]), path.basename(file));
  const started = performance.now();
  const response = await fetch(`${apiBase}/database/import`, { method: "POST", headers: { Authorization: authorization }, body: form });
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`import failed: ${response.status} ${text}`);
  return { ms, imported: (JSON.parse(text) as { imported: number }).imported };
}
