import { asc, count, eq } from "drizzle-orm";
import { beforeAll, beforeEach, describe, expect, it } from "vitest";
import { contacts, databases, settings } from "../../db/schema";
import { leadCardRows } from "../../server/core/leads/card";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { buildXls, buildXlsx, buildXlsxStreamed, buildZip } from "../helpers/xlsx";

let token: string;
const t = useTestApp();
beforeAll(async () => {
  token = await t.adminToken();
});

beforeEach(async () => {
  await t.db.delete(databases);
  await t.db.update(settings).set({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false }).where(eq(settings.id, 1));
});

const HEADER = ["ФИО", "Телефон", "Город", "Адрес", "Возраст", "Комментарий", "Лишнее"];
const MAPPING = ["name", "phone", "city", "address", "age", "additionalInfo1", "skip"];

/** Cyrillic, leading zeros, phones as numbers and as text, a long number, an empty row, a row with neither. */
const ROWS = [
  HEADER,
  ["Иванов Иван Иванович", "0501234567", "Київ", "ул. Крещатик, 1", 42, "перезвонить после 18:00", "x"],
  ["Петрова Мария", 380671112233, "Львов", "", "", "", "y"],
  ["Ёлкина Анна", "+380 (63) 555-44-33", "Одеса", "", "031", "", ""],
  [],
  ["", "", "Харьков", "без имени и телефона", "", "", ""],
  ["Дубль Иванова", "050 123 45 67", "", "", "", "", ""],
  ["Только Имя", "", "", "", "", "", ""],
  ["", "0991234567", "", "", "", "", ""],
  ["Длинный Номер", "12345678901234567890", "", "", "", "", ""],
];

async function importFile(file: Buffer, filename: string, name: string, mappings: unknown = MAPPING) {
  return t.request
    .post("/api/v1/database/import")
    .set(bearer(token))
    .field("name", name)
    .field("mappings", typeof mappings === "string" ? mappings : JSON.stringify(mappings))
    .attach("file", file, filename);
}

async function contactsOf(baseId: number) {
  return t.db
    .select({
      name: contacts.name,
      phone: contacts.phone,
      phoneKey: contacts.phoneKey,
      city: contacts.city,
      address: contacts.address,
      age: contacts.age,
      additionalInfo1: contacts.additionalInfo1,
    })
    .from(contacts)
    .where(eq(contacts.databaseId, baseId))
    .orderBy(asc(contacts.id));
}

async function totals() {
  const [{ bases }] = await t.db.select({ bases: count() }).from(databases);
  const [{ rows }] = await t.db.select({ rows: count() }).from(contacts);
  return { bases, rows };
}

describe("POST /api/v1/database/preview", () => {
  it("shows the first rows as text and suggests the mapping from the header row", async () => {
    const res = await t.request
      .post("/api/v1/database/preview")
      .set(bearer(token))
      .attach("file", await buildXlsx(ROWS), "клиенты.xlsx");
    expect(res.status).toBe(200);
    expect(res.body.hasHeader).toBe(true);
    expect(res.body.columns.map((c: { suggested: string }) => c.suggested)).toEqual([
      "name",
      "phone",
      "city",
      "address",
      "age",
      "additionalInfo1",
      "skip",
    ]);
    expect(res.body.columns[0]).toEqual({ index: 0, letter: "A", header: "ФИО", suggested: "name" });
    expect(res.body.rows[0]).toEqual(["Иванов Иван Иванович", "0501234567", "Київ", "ул. Крещатик, 1", "42", "перезвонить после 18:00", "x"]);
    expect(res.body.rows[1][1]).toBe("380671112233");
    expect(res.body.rows[2][4]).toBe("031");
    // The empty row is left out of the preview; 9 data rows remain.
    expect(res.body.rows).toHaveLength(8);
  });

  it("guesses phone and name columns of a file without a header row", async () => {
    const res = await t.request
      .post("/api/v1/database/preview")
      .set(bearer(token))
      .attach(
        "file",
        await buildXlsx([
          ["x1", "Сидоров Пётр", "0501112233"],
          ["x2", "Орлова Юлия", "0672223344"],
        ]),
        "a.xlsx",
      );
    expect(res.status).toBe(200);
    expect(res.body.hasHeader).toBe(false);
    expect(res.body.columns.map((c: { suggested: string }) => c.suggested)).toEqual(["skip", "name", "phone"]);
    expect(res.body.rows).toEqual([
      ["x1", "Сидоров Пётр", "0501112233"],
      ["x2", "Орлова Юлия", "0672223344"],
    ]);
  });
});

describe("POST /api/v1/database/import", () => {
  it("imports an .xlsx: mapped fields exactly, skips rows without phone and name, drops in-file duplicates", async () => {
    const res = await importFile(await buildXlsx(ROWS), "клиенты.xlsx", "Киев март");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      message: "База данных успешно импортирована",
      name: "Киев март",
      imported: 6,
      skipped: 1,
      duplicatesInfo: [{ baseName: "Киев март", count: 1 }],
    });
    const [base] = await t.db.select().from(databases).where(eq(databases.id, res.body.id));
    expect(base.contactsCount).toBe(6);
    const rows = await contactsOf(res.body.id);
    expect(rows).toEqual([
      {
        name: "Иванов Иван Иванович",
        phone: "0501234567",
        phoneKey: "380501234567",
        city: "Київ",
        address: "ул. Крещатик, 1",
        age: "42",
        additionalInfo1: "перезвонить после 18:00",
      },
      { name: "Петрова Мария", phone: "380671112233", phoneKey: "380671112233", city: "Львов", address: "", age: "", additionalInfo1: "" },
      { name: "Ёлкина Анна", phone: "+380 (63) 555-44-33", phoneKey: "380635554433", city: "Одеса", address: "", age: "031", additionalInfo1: "" },
      { name: "Только Имя", phone: "", phoneKey: "", city: "", address: "", age: "", additionalInfo1: "" },
      { name: "", phone: "0991234567", phoneKey: "380991234567", city: "", address: "", age: "", additionalInfo1: "" },
      { name: "Длинный Номер", phone: "12345678901234567890", phoneKey: "12345678901234567890", city: "", address: "", age: "", additionalInfo1: "" },
    ]);
  });

  it("keeps the headers mapped to Доп. поле 1-4 as the card's labels; the client card shows them, a readable phone and no empty rows", async () => {
    const rows = [
      ["ФИО", "Телефон", "Сумма кредита", "Игнор", "Доход"],
      ["Первый Клиент", "+380731754684", "15000", "x", ""],
      ["Второй Клиент", "380996637888", "", "y", ""],
      ["Третий Клиент", "093 874 27 27", "", "z", "30000"],
    ];
    const res = await importFile(await buildXlsx(rows), "метки.xlsx", "С метками", ["name", "phone", "additionalInfo2", "skip", "additionalInfo4"]);
    expect(res.status).toBe(200);
    const [base] = await t.db.select().from(databases).where(eq(databases.id, res.body.id));
    expect(base.extraLabels).toEqual(["", "Сумма кредита", "", "Доход"]);

    // The stored phones stay as written (export keeps them); the card's rows are what a manager reads.
    const stored = await contactsOf(res.body.id);
    expect(stored.map((r) => r.phone)).toEqual(["+380731754684", "380996637888", "093 874 27 27"]);
    const ids = await t.db.select({ id: contacts.id }).from(contacts).where(eq(contacts.databaseId, res.body.id)).orderBy(asc(contacts.id));
    const cards = [];
    for (const { id } of ids) {
      const [lead] = await t.db.select().from(contacts).where(eq(contacts.id, id));
      cards.push(leadCardRows({ ...lead, id: Number(lead.id) }, base.extraLabels ?? [], "UA").map((r) => `${r.label}: ${r.value}`));
    }
    expect(cards).toEqual([
      ["Имя: Первый Клиент", "Телефон: 073 175 4684", "Сумма кредита: 15000"],
      ["Имя: Второй Клиент", "Телефон: 099 663 7888"],
      ["Имя: Третий Клиент", "Телефон: 093 874 2727", "Доход: 30000"],
    ]);

    // Without a header row there is nothing to keep: the fields are labelled Доп. поле N.
    const bare = await importFile(await buildXlsx([["Без Заголовка", "0501112233", "заметка"]]), "голый.xlsx", "Без заголовка", [
      "name",
      "phone",
      "additionalInfo1",
    ]);
    expect(bare.status).toBe(200);
    const [noHeader] = await t.db.select().from(databases).where(eq(databases.id, bare.body.id));
    const [lead] = await t.db.select().from(contacts).where(eq(contacts.databaseId, bare.body.id));
    const card = leadCardRows({ ...lead, id: Number(lead.id) }, noHeader.extraLabels, "UA");
    expect(card.map((r) => `${r.label}: ${r.value}`)).toEqual(["Имя: Без Заголовка", "Телефон: 050 111 2233", "Доп. поле 1: заметка"]);
  });

  it("keeps in-file duplicates when removeDuplicatesInBase is off", async () => {
    await t.db.update(settings).set({ removeDuplicatesInBase: false }).where(eq(settings.id, 1));
    const res = await importFile(await buildXlsx(ROWS), "a.xlsx", "С дублями");
    expect(res.status).toBe(200);
    expect(res.body.imported).toBe(7);
    expect(res.body.duplicatesInfo).toEqual([]);
  });

  it("drops phones already in other bases and reports them per base", async () => {
    await t.db.update(settings).set({ removeDuplicatesAcrossBases: true }).where(eq(settings.id, 1));
    const first = await importFile(
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["А", "0501234567"],
        ["Б", "0671112233"],
      ]),
      "1.xlsx",
      "Первая",
    );
    const second = await importFile(
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["В", "0631111111"],
        ["Г", "0990000000"],
      ]),
      "2.xlsx",
      "Вторая",
    );
    expect([first.status, second.status]).toEqual([200, 200]);

    const third = await importFile(
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["а-дубль", "+380501234567"],
        ["б-дубль", "38 067 111 22 33"],
        ["в-дубль", "(063) 111-11-11"],
        ["новый", "0730000000"],
        ["новый-повтор", "073 000 00 00"],
      ]),
      "3.xlsx",
      "Третья",
      ["name", "phone"],
    );
    expect(third.status).toBe(200);
    expect(third.body.imported).toBe(1);
    expect(third.body.duplicatesInfo).toEqual([
      { baseName: "Третья", count: 1 },
      { baseName: "Первая", count: 2 },
      { baseName: "Вторая", count: 1 },
    ]);
    expect((await contactsOf(third.body.id)).map((c) => c.name)).toEqual(["новый"]);
  });

  it("creates no base and answers a warning when every contact was a duplicate (issue 17)", async () => {
    await t.db.update(settings).set({ removeDuplicatesAcrossBases: true }).where(eq(settings.id, 1));
    const first = await importFile(
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["А", "0501234567"],
        ["Б", "0671112233"],
      ]),
      "1.xlsx",
      "Первая",
    );
    expect(first.status).toBe(200);
    const again = await importFile(
      await buildXlsx([
        ["ФИО", "Телефон"],
        ["а", "+380501234567"],
        ["б", "067 111 22 33"],
        ["б2", "0671112233"],
      ]),
      "2.xlsx",
      "Повтор",
      ["name", "phone"],
    );
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("Ничего не импортировано: все контакты файла (3) — дубли. База не создана");
    expect((await t.db.select({ name: databases.name }).from(databases)).map((b) => b.name)).toEqual(["Первая"]);
  });

  it("imports a legacy .xls with the same exact values", async () => {
    const res = await importFile(buildXls(ROWS), "старый.xls", "Из xls");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ imported: 6, skipped: 1, duplicatesInfo: [{ baseName: "Из xls", count: 1 }] });
    const rows = await contactsOf(res.body.id);
    expect(rows.map((r) => [r.name, r.phone, r.age])).toEqual([
      ["Иванов Иван Иванович", "0501234567", "42"],
      ["Петрова Мария", "380671112233", ""],
      ["Ёлкина Анна", "+380 (63) 555-44-33", "031"],
      ["Только Имя", "", ""],
      ["", "0991234567", ""],
      ["Длинный Номер", "12345678901234567890", ""],
    ]);
  });

  it("previews a legacy .xls too", async () => {
    const res = await t.request.post("/api/v1/database/preview").set(bearer(token)).attach("file", buildXls(ROWS), "b.xls");
    expect(res.status).toBe(200);
    expect(res.body.rows[0][0]).toBe("Иванов Иван Иванович");
    expect(res.body.columns[1].suggested).toBe("phone");
  });

  describe("refuses bad input with a Russian message and writes nothing", () => {
    const cases: Array<[string, () => Promise<Buffer>, string, number, string]> = [
      [
        "a renamed text file",
        async () => Buffer.from("ФИО;Телефон\nИван;0501234567\n"),
        "база.xlsx",
        400,
        "Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv",
      ],
      [
        "a zip that is not a workbook (a renamed .docx)",
        async () => buildZip([{ name: "word/document.xml", data: "<w/>" }]),
        "база.xlsx",
        400,
        "Файл не является таблицей: загрузите файл .xlsx, .xls, .ods или .csv",
      ],
      [
        "a zip bomb",
        async () =>
          buildZip([
            { name: "xl/workbook.xml", data: "<w/>" },
            { name: "xl/worksheets/sheet1.xml", data: "<x/>", declaredSize: 0xfffffff0 },
          ]),
        "бомба.xlsx",
        400,
        "Файл повреждён или подозрительно сильно сжат: импорт отменён",
      ],
      [
        "an oversized file",
        async () => {
          const b = Buffer.alloc(50 * 1024 * 1024 + 10);
          b.write("PK\u0003\u0004", 0, "latin1");
          return b;
        },
        "big.xlsx",
        400,
        "Файл слишком большой: не более 50 МБ",
      ],
      [
        "an oversized .xls",
        async () => {
          const b = Buffer.alloc(21 * 1024 * 1024);
          Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(b);
          return b;
        },
        "big.xls",
        400,
        "Файл .xls слишком большой: не более 20 МБ. Сохраните его как .xlsx",
      ],
      ["an empty sheet", async () => buildXlsx([]), "empty.xlsx", 400, "Файл пустой: в первом листе нет строк"],
      [
        "a damaged .xls",
        async () => {
          const b = Buffer.alloc(4096, 7);
          Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(b);
          return b;
        },
        "bad.xls",
        400,
        "Не удалось прочитать файл: он повреждён или сохранён в неподдерживаемом формате",
      ],
    ];
    it.each(cases)("%s", async (_label, make, filename, status, message) => {
      const before = await totals();
      const res = await importFile(await make(), filename, "Плохой файл");
      expect(res.status).toBe(status);
      expect(res.body.message).toBe(message);
      expect(await totals()).toEqual(before);
    });

    it("a file with only rows without phone and name", async () => {
      const res = await importFile(
        await buildXlsx([
          ["ФИО", "Телефон", "Город"],
          ["", "", "Киев"],
        ]),
        "a.xlsx",
        "Пустая",
        ["name", "phone", "city"],
      );
      expect(res.status).toBe(400);
      expect(res.body.message).toBe("В файле нет ни одного контакта с телефоном или ФИО: база не создана");
      expect(await totals()).toEqual({ bases: 0, rows: 0 });
    });

    it("a text of notes, or a column of notes chosen as the phone: no base (issue 31)", async () => {
      const notes = Buffer.from("Позвонить Ивану после обеда\nКупить бумагу для принтера\nВстреча с бухгалтером в пятницу\n");
      const preview = await t.request.post("/api/v1/database/preview").set(bearer(token)).attach("file", notes, "notes.txt");
      expect([preview.status, preview.body.message]).toEqual([
        400,
        "В файле нет столбца с номерами телефонов: база не создана. Загрузите таблицу клиентов, где в одном из столбцов — телефоны",
      ]);
      const asNames = await importFile(notes, "notes.txt", "Текстовый файл", ["name"]);
      expect([asNames.status, asNames.body.message]).toEqual([400, "Укажите столбец с номером телефона"]);
      const asPhones = await importFile(notes, "notes.txt", "Текстовый файл", ["phone"]);
      expect([asPhones.status, asPhones.body.message]).toEqual([
        400,
        "В столбце, выбранном как «Номер», нет ни одного номера телефона: база не создана. Выберите столбец с телефонами",
      ]);
      expect(await totals()).toEqual({ bases: 0, rows: 0 });
    });

    it("missing name, missing file, bad mappings, a taken name", async () => {
      const file = await buildXlsx(ROWS);
      const noName = await importFile(file, "a.xlsx", "  ");
      expect([noName.status, noName.body.message]).toEqual([400, "Введите название базы"]);

      const noFile = await t.request
        .post("/api/v1/database/import")
        .set(bearer(token))
        .field("name", "Без файла")
        .field("mappings", JSON.stringify(MAPPING));
      expect([noFile.status, noFile.body.message]).toEqual([400, "Выберите файл для импорта"]);

      const notJson = await t.request.post("/api/v1/database/import").set(bearer(token)).send({ name: "x" });
      expect(notJson.status).toBe(400);
      expect(notJson.body.message).toBe("Отправьте файл как multipart/form-data (поле file)");

      const badJson = await importFile(file, "a.xlsx", "Б", "[name");
      expect([badJson.status, badJson.body.message]).toEqual([400, "Сопоставление столбцов должно быть JSON-массивом"]);
      const unknownField = await importFile(file, "a.xlsx", "Б", ["fio"]);
      expect([unknownField.status, unknownField.body.message]).toEqual([400, "Неизвестный тип столбца в сопоставлении"]);
      const twice = await importFile(file, "a.xlsx", "Б", ["phone", "phone"]);
      expect([twice.status, twice.body.message]).toEqual([400, "Тип «Номер» выбран для нескольких столбцов"]);
      const noPhone = await importFile(file, "a.xlsx", "Б", ["name", "skip"]);
      expect([noPhone.status, noPhone.body.message]).toEqual([400, "Укажите столбец с номером телефона"]);

      expect((await importFile(file, "a.xlsx", "Занято")).status).toBe(200);
      const taken = await importFile(file, "a.xlsx", "Занято");
      expect([taken.status, taken.body.message]).toEqual([409, "База с таким названием уже есть: выберите другое название"]);
      expect(await totals()).toEqual({ bases: 1, rows: 6 });
    });
  });

  it("leaves no trace when the file breaks half-way through (one transaction)", async () => {
    const rows: Array<Array<string>> = [["ФИО", "Телефон"]];
    for (let i = 0; i < 20000; i++) rows.push([`Клиент ${i} ${"x".repeat(i % 37)}`, `050${String(1000000 + i * 7919).slice(-7)}`]);
    const file = await buildXlsxStreamed(rows);
    // Corrupt the compressed sheet past its middle: the reader fails after about 11,900 rows (two batches inserted).
    const broken = Buffer.from(file);
    const at = Math.floor(broken.length * 0.6);
    for (let i = at; i < at + 400; i++) broken[i] = (broken[i] * 31 + 7) & 0xff;
    const before = await totals();
    const res = await importFile(broken, "broken.xlsx", "Сломанная", ["name", "phone"]);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Не удалось прочитать файл: он повреждён или сохранён в неподдерживаемом формате");
    expect(await totals()).toEqual(before);
  });

  it("is for admins only", async () => {
    const manager = await createUser(t.db, { login: "importer" });
    const managerToken = await t.tokenFor(manager);
    const res = await t.request
      .post("/api/v1/database/import")
      .set(bearer(managerToken))
      .field("name", "Чужая")
      .field("mappings", JSON.stringify(MAPPING))
      .attach("file", await buildXlsx(ROWS), "a.xlsx");
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Недостаточно прав для этого действия");
    expect((await totals()).bases).toBe(0);
    const anonymous = await t.request.post("/api/v1/database/preview").attach("file", await buildXlsx(ROWS), "a.xlsx");
    expect(anonymous.status).toBe(401);
  });

  it("documents the mappings in the OpenAPI description", async () => {
    const res = await t.request.get("/api/v1/openapi.json");
    const description = res.body.paths["/api/v1/database/import"].post.description as string;
    expect(description).toContain("`additionalInfo4`");
    expect(description).toContain("`skip`");
  });
});
