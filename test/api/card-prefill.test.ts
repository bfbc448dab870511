import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { contacts, templates } from "../../db/schema";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";
import { field } from "../helpers/form-fields";
import { createFilterRow, statusesByText } from "../helpers/leads";
import { buildXlsx } from "../helpers/xlsx";

/**
 * Issue 41 §7: a card field named as a column of the client's base row (or tied to one in the template editor)
 * starts with the client's value, on the lead panel and in the API's lead turn; what the manager saved wins.
 */
const t = useTestApp({ web: true });

let adminToken: string;
let baseId: number;
beforeAll(async () => {
  adminToken = await t.adminToken();
  // The file's own headers: «ФИО клиента» is the name column, «Населённый пункт» the city (a header the card knows
  // only from the file), «Сумма долга» and «Долг по договору» extra columns.
  const rows = [
    ["ФИО клиента", "Телефон", "Населённый пункт", "Сумма долга", "Долг по договору"],
    ["Петренко Ольга Ивановна", "0501234501", "Самара", "15 400 ₽", "12 000 ₽"],
  ];
  const res = await t.request
    .post("/api/v1/database/import")
    .set(bearer(adminToken))
    .field("name", "Должники")
    .field("mappings", JSON.stringify(["name", "phone", "city", "additionalInfo1", "additionalInfo2"]))
    .attach("file", await buildXlsx(rows), "Должники.xlsx");
  expect(res.status).toBe(200);
  baseId = res.body.id;
});

/** A template made through the API, a topic with it on the base, and a manager working it (his token and cookie). */
async function topicWith(templateFields: Array<Record<string, string>>) {
  const made = await t.request
    .post("/api/v1/templates")
    .set(bearer(adminToken))
    .send({ name: `Долги ${Math.random()}`, templateFields: JSON.stringify(templateFields) });
  expect(made.status).toBe(200);
  // One base, one contact: every topic's manager gets the same client, so each test frees him first.
  await t.db.update(contacts).set({ heldBy: null, heldUntil: null, statusId: null, clientInfo: "" }).where(eq(contacts.databaseId, baseId));
  const s = await statusesByText(t.db);
  const manager = await createUser(t.db);
  const filter = await createFilterRow(t.db, {
    managerIds: [manager.user.id],
    databaseIds: [baseId],
    statusIds: [s["Перезвонить"].id],
    templateId: made.body.id,
  });
  await t.db.execute(sql`update users set getting_filter = ${filter.id} where id = ${manager.user.id}`);
  const token = await t.tokenFor(manager);
  const getLead = () => t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(bearer(token));
  const press = (contactId: number, statusText: string, clientInfo: string) =>
    t.request
      .put("/api/v1/status/update-and-get-lead")
      .set(bearer(token))
      .send({ statusText, contactId, userId: manager.user.id, passport: "", filterId: filter.id, clientInfo });
  const panelValues = async () => {
    const page = await getPage(t, "/leadpanel", await pageSessionCookie(t, manager));
    expect(page.status).toBe(200);
    return [...page.text.matchAll(/<(input|textarea)\b[^>]*\bid="card-(\d+)"[^>]*>([^<]*)/g)].map((m) =>
      m[1] === "input" ? decode(/\bvalue="([^"]*)"/.exec(m[0])?.[1] ?? "") : decode(m[3]),
    );
  };
  return { getLead, press, panelValues };
}

const decode = (html: string) =>
  html
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");

const valuesOf = (body: { cardFields: Array<{ label: string; value: string }> }) => body.cardFields.map((f) => [f.label, f.value]);

describe("a card field named as a base column (issue 41)", () => {
  it("starts with the client's value from his base row in the API's lead and on the panel; case and spacing do not matter", async () => {
    const { getLead, panelValues } = await topicWith([
      { label: "ФИО клиента", type: "text" },
      { label: "  сумма   ДОЛГА ", type: "text" },
      { label: "населенный  пункт", type: "text" },
      { label: "Комментарий", type: "textarea" },
    ]);
    const lead = await getLead();
    expect(lead.status).toBe(200);
    expect(lead.body.name).toBe("Петренко Ольга Ивановна");
    expect(valuesOf(lead.body)).toEqual([
      ["ФИО клиента", "Петренко Ольга Ивановна"],
      ["сумма   ДОЛГА", "15 400 ₽"],
      ["населенный  пункт", "Самара"],
      ["Комментарий", ""],
    ]);
    expect(await panelValues()).toEqual(["Петренко Ольга Ивановна", "15 400 ₽", "Самара", ""]);
  });

  it("a field tied to a differently named column starts with that column's value", async () => {
    const { getLead, panelValues } = await topicWith([
      { label: "Клиент", type: "text", column: "фио  КЛИЕНТА" },
      { label: "Остаток", type: "text", column: "Долг по договору" },
      // A tie to a column this base has not: the field goes by its name, like an untied one.
      { label: "Сумма долга", type: "text", column: "Пеня" },
    ]);
    const lead = await getLead();
    expect(valuesOf(lead.body)).toEqual([
      ["Клиент", "Петренко Ольга Ивановна"],
      ["Остаток", "12 000 ₽"],
      ["Сумма долга", "15 400 ₽"],
    ]);
    expect(lead.body.cardFields[1]).toMatchObject({ column: "Долг по договору", type: "text" });
    expect(await panelValues()).toEqual(["Петренко Ольга Ивановна", "12 000 ₽", "15 400 ₽"]);
  });

  it("a value the manager saved for the client wins over the base's, in the turn that hands him back and afterwards", async () => {
    const { getLead, press, panelValues } = await topicWith([
      { label: "ФИО клиента", type: "text" },
      { label: "Сумма долга", type: "text" },
      { label: "Комментарий", type: "textarea" },
    ]);
    const first = await getLead();
    // «Перезвонить» is a status the topic works again: the only client comes straight back in the same turn.
    const again = await press(first.body.id, "Перезвонить", "ФИО клиента: Петренко Ольга\nКомментарий: платит 15-го\nпосле 18:00");
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const expected = [
      ["ФИО клиента", "Петренко Ольга"],
      ["Сумма долга", "15 400 ₽"],
      ["Комментарий", "платит 15-го\nпосле 18:00"],
    ];
    expect(valuesOf(again.body)).toEqual(expected);
    expect(valuesOf((await getLead()).body)).toEqual(expected);
    expect(await panelValues()).toEqual(["Петренко Ольга", "15 400 ₽", "платит 15-го\nпосле 18:00"]);
  });
});

describe("the template editor's «Столбец базы» without JavaScript", () => {
  it("saves a field's tie to a base column, shows it on the card and in the form again, and an emptied tie is no tie", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const editor = 'data-testid="template-form"';
    const form = await getPage(t, "/leadTemplate?template=new", cookie);
    // The bases' headers are suggested.
    expect(form.text).toMatch(/<datalist id="base-columns">.*<option value="Долг по договору"/s);

    const saved = await postPageForm(t, "/leadTemplate?template=new", cookie, {
      intent: "template-save",
      name: "Долги без JS",
      "fields[0].label": "Остаток",
      "fields[0].type": "text",
      "fields[0].column": " Долг по договору ",
      "fields[0].locked": "0",
      "fields[1].label": "Комментарий",
      "fields[1].type": "textarea",
      "fields[1].column": "",
      "fields[1].locked": "0",
    });
    expect(saved.status).toBe(302);
    const [stored] = await t.db.select().from(templates).where(eq(templates.name, "Долги без JS"));
    expect(JSON.parse(stored.templateFields)).toEqual([
      { label: "Остаток", type: "text", column: "Долг по договору" },
      { label: "Комментарий", type: "textarea" },
    ]);
    const list = await getPage(t, "/leadTemplate", cookie);
    expect(list.text.replace(/<!-- -->/g, "")).toContain("Остаток (Text, столбец «Долг по договору»), Комментарий (TextArea)");
    const edit = await getPage(t, `/leadTemplate?template=${stored.id}`, cookie);
    expect(field(edit.text, "fields[0].column", editor)).toMatchObject({ value: "Долг по договору" });
  });

  it("refuses a tie longer than 200 characters under its field, nothing saved", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const res = await postPageForm(t, "/leadTemplate?template=new", cookie, {
      intent: "template-save",
      name: "Долги длинные",
      "fields[0].label": "Остаток",
      "fields[0].type": "text",
      "fields[0].column": "я".repeat(201),
      "fields[0].locked": "0",
    });
    expect(res.status).toBe(400);
    expect(field(res.text, "fields[0].column", 'data-testid="template-form"')).toMatchObject({
      invalid: true,
      message: "Название столбца базы — не более 200 символов",
    });
    expect(await t.db.select().from(templates).where(eq(templates.name, "Долги длинные"))).toHaveLength(0);
  });
});
