import { asc, count, eq } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { contacts, databases, doNotCall, settings } from "../../db/schema";
import { IMPORT_LIMITS } from "../../server/core/bases/import";
import { bearer, useTestApp } from "../helpers/app";
import { csvText, utf16WithBom, utf8WithBom, windows1251 } from "../helpers/csv";
import { buildXlsx } from "../helpers/xlsx";

/** CSV bases (issue 16): the same preview, mapping, dedup and all-or-nothing import as .xlsx. */

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

const preview = (file: Buffer, filename: string) => t.request.post("/api/v1/database/preview").set(bearer(token)).attach("file", file, filename);

const importFile = (file: Buffer, filename: string, name: string, mappings: string[]) =>
  t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", JSON.stringify(mappings))
    .attach("file", file, filename);

async function contactsOf(baseId: number) {
  return t.db
    .select({ name: contacts.name, phone: contacts.phone, city: contacts.city, info: contacts.additionalInfo1 })
    .from(contacts)
    .where(eq(contacts.databaseId, baseId))
    .orderBy(asc(contacts.id));
}

async function totals() {
  const [{ bases }] = await t.db.select({ bases: count() }).from(databases);
  const [{ rows }] = await t.db.select({ rows: count() }).from(contacts);
  return { bases, rows };
}

/** What 1C writes: Windows-1251, `;`, CRLF, no quotes unless needed. */
const FROM_1C = windows1251(
  [
    "ФИО;Телефон;Город;Примечание",
    "Иванов Иван Иванович;0501234567;Київ;перезвонить",
    "Петрова Мария;+380671112233;Львов;",
    'Ёлкина Анна;00380635554433;Одеса;"клиент; VIP"',
    "Дубль Иванова;050 123 45 67;;",
    ";;Харьков;без имени и телефона",
    "",
    "Только Имя;;;",
  ].join("\r\n") + "\r\n",
);

describe("CSV preview", () => {
  it("Windows-1251 with `;`: Cyrillic read right, the mapping suggested from the header, phones as written", async () => {
    const res = await preview(FROM_1C, "выгрузка из 1С.csv");
    expect(res.status).toBe(200);
    expect(res.body.hasHeader).toBe(true);
    expect(res.body.columns.map((c: { header: string; suggested: string }) => [c.header, c.suggested])).toEqual([
      ["ФИО", "name"],
      ["Телефон", "phone"],
      ["Город", "city"],
      ["Примечание", "additionalInfo1"],
    ]);
    expect(res.body.rows).toEqual([
      ["Иванов Иван Иванович", "0501234567", "Київ", "перезвонить"],
      ["Петрова Мария", "+380671112233", "Львов", ""],
      ["Ёлкина Анна", "00380635554433", "Одеса", "клиент; VIP"],
      ["Дубль Иванова", "050 123 45 67", "", ""],
      ["", "", "Харьков", "без имени и телефона"],
      ["Только Имя", "", "", ""],
    ]);
  });

  it("UTF-8 with a BOM and `,`: quoted fields with line breaks and doubled quotes", async () => {
    const text = csvText([
      ["Name", "Phone", "Note"],
      ["Сидоров Пётр", "0501112233", 'сказал "перезвоните"\nпосле обеда'],
      ["Орлова Юлия", "+380672223344", "a,b"],
    ]);
    const res = await preview(utf8WithBom(text), "google.csv");
    expect(res.status).toBe(200);
    expect(res.body.columns[0].header).toBe("Name");
    expect(res.body.rows).toEqual([
      ["Сидоров Пётр", "0501112233", 'сказал "перезвоните"\nпосле обеда'],
      ["Орлова Юлия", "+380672223344", "a,b"],
    ]);
  });

  it("UTF-8 without a BOM, tabs (.tsv and .txt), UTF-16 with a BOM, and Excel's `sep=` line", async () => {
    const rows = [
      ["ФИО", "Телефон"],
      ["Коваленко Андрей", "0931234567"],
    ];
    const expected = [["Коваленко Андрей", "0931234567"]];
    for (const [file, name] of [
      [Buffer.from(csvText(rows, ","), "utf8"), "a.csv"],
      [Buffer.from(csvText(rows, "\t", "\n"), "utf8"), "a.tsv"],
      [windows1251(csvText(rows, "\t")), "a.txt"],
      [utf16WithBom(csvText(rows, "\t")), "unicode.txt"],
      [Buffer.from(`sep=|\n${csvText(rows, "|")}`, "utf8"), "excel.csv"],
    ] as const) {
      const res = await preview(file, name);
      expect([name, res.status, res.body.rows]).toEqual([name, 200, expected]);
      expect(res.body.columns.map((c: { suggested: string }) => c.suggested)).toEqual(["name", "phone"]);
    }
  });

  it("refuses with a Russian message: binary data named .csv, an unclosed quote, mixed encodings, text named .xlsx", async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.alloc(200, 7)]);
    const cases: Array<[Buffer, string, string]> = [
      [png, "картинка.csv", "Файл не похож на текстовую таблицу .csv: в нём двоичные данные. Загрузите файл .csv, .xlsx или .xls"],
      [
        Buffer.from('ФИО;Телефон\nИван;"0501234567\nПётр;0671234567\n'),
        "a.csv",
        "Строка 2: кавычка в ячейке не закрыта до конца файла. Исправьте файл и загрузите его снова",
      ],
      [
        Buffer.concat([Buffer.from("ФИО;Телефон\nИванов Иван;0501234567\n"), windows1251("Петров Пётр;0671234567\n")]),
        "склеенный.csv",
        "Не удалось прочитать текст файла: часть его не в кодировке UTF-8. Сохраните файл заново в UTF-8 или Windows-1251",
      ],
      [Buffer.from("ФИО;Телефон\nИван;0501234567\n"), "база.xlsx", "Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv"],
    ];
    for (const [file, name, message] of cases) {
      const res = await preview(file, name);
      expect([name, res.status, res.body.message]).toEqual([name, 400, message]);
    }
  });

  it("a workbook named .csv is still read as a workbook", async () => {
    const res = await preview(
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["Иван", "0501234567"],
      ]),
      "на самом деле xlsx.csv",
    );
    expect(res.status).toBe(200);
    expect(res.body.rows).toEqual([["Иван", "0501234567"]]);
  });
});

describe("CSV import", () => {
  it("imports a 1C file: mapped fields exactly, phones keep zeros and +, rows without phone and name skipped, in-file duplicates dropped", async () => {
    const res = await importFile(FROM_1C, "выгрузка.csv", "Из 1С", ["name", "phone", "city", "additionalInfo1"]);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: "База данных успешно импортирована",
      imported: 4,
      skipped: 1,
      duplicatesInfo: [{ baseName: "Из 1С", count: 1 }],
    });
    expect(await contactsOf(res.body.id)).toEqual([
      { name: "Иванов Иван Иванович", phone: "0501234567", city: "Київ", info: "перезвонить" },
      { name: "Петрова Мария", phone: "+380671112233", city: "Львов", info: "" },
      { name: "Ёлкина Анна", phone: "00380635554433", city: "Одеса", info: "клиент; VIP" },
      { name: "Только Имя", phone: "", city: "", info: "" },
    ]);
  });

  it("keeps a multi-line note whole, and drops phones already in other bases when that setting is on", async () => {
    const first = await importFile(Buffer.from(csvText([["Телефон"], ["0501234567"]])), "a.csv", "Первая", ["phone"]);
    expect(first.status).toBe(200);
    await t.db.update(settings).set({ removeDuplicatesAcrossBases: true }).where(eq(settings.id, 1));
    const text = csvText([
      ["ФИО", "Телефон", "Примечание"],
      ["Старый Клиент", "+38 050 123-45-67", "уже есть"],
      ["Новый Клиент", "0671234567", 'строка 1\nстрока "2"'],
    ]);
    const res = await importFile(utf8WithBom(text), "b.csv", "Вторая", ["name", "phone", "additionalInfo1"]);
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(1);
    expect(res.body.duplicatesInfo).toEqual([{ baseName: "Первая", count: 1 }]);
    expect(await contactsOf(res.body.id)).toEqual([{ name: "Новый Клиент", phone: "0671234567", city: "", info: 'строка 1\nстрока "2"' }]);
  });

  it("all or nothing: a cell too long in row 3 refuses the whole file with its row and column, and writes nothing", async () => {
    const rows = [
      ["ФИО", "Телефон", "Примечание"],
      ["Иван", "0501234567", "ок"],
      ["Пётр", "0671234567", "ж".repeat(1001)],
    ];
    const before = await totals();
    const res = await importFile(windows1251(csvText(rows, ";")), "a.csv", "Слишком длинная", ["name", "phone", "additionalInfo1"]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "Строка 3, столбец C: в ячейке 1 001 символов, а в поле контакта может быть не больше 1 000. Исправьте ячейку или не импортируйте этот столбец",
    );
    expect(await totals()).toEqual(before);
    // The same column left out: the file imports.
    const skipped = await importFile(windows1251(csvText(rows, ";")), "a.csv", "Слишком длинная", ["name", "phone", "skip"]);
    expect([skipped.status, skipped.body.imported]).toEqual([200, 2]);
  });

  it("all or nothing: the total text of an import is limited as for .xlsx", async () => {
    const saved = IMPORT_LIMITS.maxTotalChars;
    IMPORT_LIMITS.maxTotalChars = 40;
    try {
      const rows = [["ФИО", "Телефон"], ...Array.from({ length: 5 }, (_, i) => [`Клиент номер ${i}`, `050000000${i}`])];
      const res = await importFile(Buffer.from(csvText(rows)), "a.csv", "Много текста", ["name", "phone"]);
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("В файле слишком много текста для одной базы: к строке 3 больше 40 символов. Разбейте файл на части");
      expect(await totals()).toEqual({ bases: 0, rows: 0 });
    } finally {
      IMPORT_LIMITS.maxTotalChars = saved;
    }
  });

  it("a file of several batches: in-file repeats, other bases' phones and do-not-call numbers left out and counted exactly, the rest in file order", async () => {
    // Another base: phones 050 000 00 00-99, and name-only contacts (no phone: never a duplicate of anything).
    const other = [
      ["ФИО", "Телефон"],
      ...Array.from({ length: 100 }, (_, i) => [`Старый ${i}`, `050${String(i).padStart(7, "0")}`]),
      ["Без телефона", ""],
    ];
    expect((await importFile(Buffer.from(csvText(other)), "old.csv", "Старая", ["name", "phone"])).status).toBe(200);
    await t.db.insert(doNotCall).values([
      { phoneKey: "380670000003", phone: "067 000 00 03" },
      // Listed and in the other base too: counted as do-not-call, not as a duplicate.
      { phoneKey: "380500000010", phone: "050 000 00 10" },
    ]);
    await t.db.update(settings).set({ removeDuplicatesAcrossBases: true }).where(eq(settings.id, 1));

    const rows = [["ФИО", "Телефон"]];
    const expected: string[] = [];
    for (let i = 0; i < 12_000; i++) {
      if (i % 1000 === 10)
        rows.push([`Повтор ${i}`, `+38 (067) ${String(i - 1).padStart(7, "0")}`]); // in the file already
      else if (i % 1000 === 20)
        rows.push([`Из старой ${i}`, `050${String(20 + Math.floor(i / 1000)).padStart(7, "0")}`]); // 050…20-31: in "Старая"
      else if (i === 3 || i === 7015) rows.push([`Не звонить ${i}`, i === 3 ? "0670000003" : "0500000010"]);
      else if (i % 1000 === 30) rows.push([`Только имя ${i}`, ""]);
      else rows.push([`Клиент ${i}`, `067${String(i).padStart(7, "0")}`]);
      if (!/^(Повтор|Из старой|Не звонить)/.test(rows[rows.length - 1][0])) expected.push(rows[rows.length - 1][0]);
    }
    const res = await importFile(utf8WithBom(csvText(rows, ";")), "big.csv", "Большая", ["name", "phone"]);
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(12_000 - 12 - 12 - 2);
    expect(res.body.doNotCall).toBe(2);
    expect(res.body.duplicatesInfo).toEqual([
      { baseName: "Большая", count: 12 },
      { baseName: "Старая", count: 12 },
    ]);
    expect((await contactsOf(res.body.id)).map((c) => c.name)).toEqual(expected);
  });

  it("all or nothing: a cell too long after two batches are written leaves neither the base nor any contact", async () => {
    const rows = [["ФИО", "Телефон", "Примечание"]];
    for (let i = 0; i < 12_000; i++) rows.push([`Клиент ${i}`, `067${String(i).padStart(7, "0")}`, i === 11_500 ? "ж".repeat(1001) : ""]);
    const before = await totals();
    const res = await importFile(Buffer.from(csvText(rows, ";")), "late.csv", "Поздняя ошибка", ["name", "phone", "additionalInfo1"]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "Строка 11502, столбец C: в ячейке 1 001 символов, а в поле контакта может быть не больше 1 000. Исправьте ячейку или не импортируйте этот столбец",
    );
    expect(await totals()).toEqual(before);
  });
});
