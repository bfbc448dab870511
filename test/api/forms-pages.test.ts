import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import {
  databases,
  doNotCall,
  exports as exportsTable,
  filters,
  links,
  payments,
  scripts,
  settings,
  statuses,
  templates,
  users,
} from "../../db/schema";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, postPageForm, reloadUser, useTestApp } from "../helpers/app";
import { escapeRegExp, field } from "../helpers/form-fields";

/**
 * Decision 063: a page form is checked by its one schema in the action too, so without JavaScript a refused post
 * comes back with each message under its field (the field marked aria-invalid and naming it), what was typed kept,
 * and nothing saved.
 */

let cookie: string;
let admin: string;
const t = useTestApp({ web: true });
beforeAll(async () => {
  cookie = await pageSessionCookie(t, ADMIN);
  admin = await t.tokenFor(ADMIN);
});

/** A message under a group of checkboxes: the fieldset names it. */
function groupMessage(html: string, legend: string) {
  const fieldset = new RegExp(`<fieldset\\b[^>]*aria-describedby="([^"]+)"[^>]*><legend[^>]*>${escapeRegExp(legend)}</legend>`).exec(html);
  if (!fieldset) return null;
  return new RegExp(`<p\\b[^>]*\\bid="${escapeRegExp(fieldset[1])}"[^>]*>([^<]*)</p>`).exec(html)?.[1] ?? null;
}

describe("forms without JavaScript: the schema's message next to its field", () => {
  it("/leadTemplate link: SPEC's two warnings under their fields, the typed name kept, nothing saved", async () => {
    const empty = await postPageForm(t, "/leadTemplate?link=new", cookie, { intent: "link-save", name: "", link: "" });
    expect(empty.status).toBe(400);
    expect(field(empty.text, "name", 'data-testid="link-form"')).toMatchObject({ invalid: true, message: "Заполните имя ссылки" });
    expect(field(empty.text, "link", 'data-testid="link-form"')).toMatchObject({ invalid: true, message: "Заполните URL ссылки" });

    const named = await postPageForm(t, "/leadTemplate?link=new", cookie, {
      intent: "link-save",
      name: "CRM без адреса",
      link: "javascript:alert(1)",
    });
    expect(named.status).toBe(400);
    expect(field(named.text, "name", 'data-testid="link-form"')).toMatchObject({ invalid: false, message: null, value: "CRM без адреса" });
    expect(field(named.text, "link", 'data-testid="link-form"')).toMatchObject({
      invalid: true,
      message: "Ссылка должна быть адресом вида https://…",
    });
    expect((await t.db.select().from(links)).filter((l) => l.name === "CRM без адреса")).toHaveLength(0);
  });

  it("/scripts: an empty name is refused under the field, the text written is kept", async () => {
    const res = await postPageForm(t, "/scripts?new", cookie, { intent: "create", name: "  ", content: "<p>Здравствуйте</p>" });
    expect(res.status).toBe(400);
    expect(field(res.text, "name", 'data-testid="script-editor"')).toMatchObject({ invalid: true, message: "Введите название скрипта" });
    // Without JavaScript the editor is a textarea: it holds what was sent.
    expect(res.text).toContain("&lt;p&gt;Здравствуйте&lt;/p&gt;</textarea>");
    expect(await t.db.select().from(scripts)).toHaveLength(0);
  });

  it("/donotcall: an empty number and one that is no phone, each under the field; a listed one too (409)", async () => {
    const empty = await postPageForm(t, "/donotcall", cookie, { intent: "add", phone: "" });
    expect(empty.status).toBe(400);
    expect(field(empty.text, "phone")).toMatchObject({ invalid: true, message: "Введите номер телефона" });

    const word = await postPageForm(t, "/donotcall", cookie, { intent: "add", phone: "позвоните" });
    expect(word.status).toBe(400);
    expect(field(word.text, "phone")).toMatchObject({ invalid: true, message: "«позвоните» не похоже на номер телефона", value: "позвоните" });

    // Issue 41: digits that make no valid number of the region (PHONE_REGION, UA here) are refused at the field,
    // saying why and showing the region's numbers; nothing is listed.
    const short = await postPageForm(t, "/donotcall", cookie, { intent: "add", phone: "0501234" });
    expect(short.status).toBe(400);
    expect(field(short.text, "phone")).toMatchObject({
      invalid: true,
      message: "«0501234» — неполный или несуществующий номер телефона (пример: 050 123 4567; номер другой страны — с «+» и её кодом)",
      value: "0501234",
    });
    expect(await t.db.select().from(doNotCall)).toHaveLength(0);

    expect((await postPageForm(t, "/donotcall", cookie, { intent: "add", phone: "050 111 22 33" })).status).toBe(302);
    const again = await postPageForm(t, "/donotcall", cookie, { intent: "add", phone: "+380501112233" });
    expect(again.status).toBe(409);
    expect(field(again.text, "phone")).toMatchObject({ invalid: true, message: "Этот номер уже в списке «Не звонить»" });
    expect(await t.db.select().from(doNotCall)).toHaveLength(1);
    await t.db.delete(doNotCall);
  });

  it("/exportbase: SPEC's messages under the bases and the statuses, the name kept", async () => {
    const res = await postPageForm(t, "/exportbase?dialog=create", cookie, { intent: "create", name: "Без выбора", format: "csv" });
    expect(res.status).toBe(400);
    expect(field(res.text, "name", 'data-testid="create-export-form"')).toMatchObject({ invalid: false, value: "Без выбора" });
    expect(groupMessage(res.text, "Базы")).toBe("Выберите минимум 1 базу");
    expect(groupMessage(res.text, "Статусы")).toBe("Выберите минимум 1 статус");
    // The format chosen stays chosen.
    expect(/<input[^>]*name="format"[^>]*value="csv"[^>]*>/.exec(res.text)?.[0]).toContain("checked");
    expect(await t.db.select().from(exportsTable)).toHaveLength(0);

    const unnamed = await postPageForm(t, "/exportbase?dialog=create", cookie, { intent: "create", name: "" });
    expect(field(unnamed.text, "name", 'data-testid="create-export-form"')).toMatchObject({ invalid: true, message: "Введите имя експорта" });
  });

  it("/basesettings: a grace time out of range under its field, SPEC's failure message above, nothing saved", async () => {
    const [before] = await t.db.select().from(settings);
    const res = await postPageForm(t, "/basesettings", cookie, { intent: "save", defaultInfo: "Новый текст", callbackGraceMinutes: "0" });
    expect(res.status).toBe(400);
    expect(res.text).toContain("Произошла ошибка при сохранении настроек");
    expect(field(res.text, "callbackGraceMinutes")).toMatchObject({
      invalid: true,
      message: "Время ожидания перезвона: от 1 до 1440 минут",
      value: "0",
    });
    // The form stays open with what was typed.
    expect(field(res.text, "defaultInfo").tag).not.toContain("readOnly");
    expect(res.text).toContain(">Новый текст</textarea>");
    const [after] = await t.db.select().from(settings);
    expect(after.defaultInfo).toBe(before.defaultInfo);
    expect(after.callbackGraceMinutes).toBe(before.callbackGraceMinutes);
  });

  it("/basesettings: the call-in settings (issue 42) saved from a plain post, and one out of range under its field, nothing saved", async () => {
    const page = await getPage(t, "/basesettings", cookie);
    expect(field(page.text, "inboundRingSeconds")).toMatchObject({ invalid: false, value: "20" });
    expect(field(page.text, "inboundMaxManagers")).toMatchObject({ invalid: false, value: "3" });
    expect(page.text).toContain("Входящие звонки");
    const [before] = await t.db.select().from(settings);
    const saved = await postPageForm(t, "/basesettings", cookie, {
      intent: "save",
      defaultInfo: before.defaultInfo,
      callbackGraceMinutes: String(before.callbackGraceMinutes),
      inboundRingSeconds: "25",
      inboundMaxManagers: "4",
    });
    expect(saved.status).toBe(200);
    expect(saved.text).toContain("Настройки успешно сохранены");
    expect(field(saved.text, "inboundRingSeconds").value).toBe("25");
    const [after] = await t.db.select().from(settings);
    expect(after).toMatchObject({ inboundRingSeconds: 25, inboundMaxManagers: 4 });
    for (const [name, typed, message] of [
      ["inboundRingSeconds", "3", "Звонок одному менеджеру: целое число секунд от 5 до 60"],
      ["inboundRingSeconds", "полминуты", "Звонок одному менеджеру: целое число секунд от 5 до 60"],
      ["inboundMaxManagers", "11", "Менеджеров на один входящий звонок: целое число от 1 до 10"],
    ]) {
      const res = await postPageForm(t, "/basesettings", cookie, {
        intent: "save",
        inboundRingSeconds: "25",
        inboundMaxManagers: "4",
        [name]: typed,
      });
      expect(res.status).toBe(400);
      expect(res.text).toContain("Произошла ошибка при сохранении настроек");
      expect(field(res.text, name)).toMatchObject({ invalid: true, message, value: typed });
    }
    const [unchanged] = await t.db.select().from(settings);
    expect(unchanged).toMatchObject({ inboundRingSeconds: 25, inboundMaxManagers: 4 });
  });

  it("/edit-statuses: a bad colour is refused in its row; an emptied button text says the status's text, an emptied key is cleared", async () => {
    const created = await t.request
      .post("/api/v1/status")
      .set(bearer(admin))
      .send({ text: "Цветной", buttonText: "Кнопка", color: "#123456", hotkey: 4 });
    const id = (created.body as { id: number }).id;
    const bad = await postPageForm(t, `/edit-statuses?edit=${id}`, cookie, {
      intent: "update",
      id: String(id),
      text: "Цветной",
      buttonText: "",
      color: "red",
      hotkey: "",
    });
    expect(bad.status).toBe(400);
    const row = bad.text.slice(bad.text.indexOf(`data-status-id="${id}"`));
    expect(row.slice(0, row.indexOf("</li>"))).toContain("Неверный цвет: ожидается вид #rrggbb");

    const cleared = await postPageForm(t, "/edit-statuses", cookie, {
      intent: "update",
      id: String(id),
      text: "Цветной",
      buttonText: "",
      color: "#654321",
      hotkey: "",
    });
    expect(cleared.status).toBe(302);
    const [saved] = (await t.db.select().from(statuses)).filter((s) => s.id === id);
    // Decision 081: one name, the status's text, on its button too.
    expect(saved).toMatchObject({ text: "Цветной", buttonText: "Цветной", color: "#654321", hotkey: null });
  });

  it("/payments dialogs: a zero payout, one over the balance and an empty change under the amount; the reset needs none", async () => {
    const worker = await createUser(t.db, { login: "pay-forms", balanceCents: 1000 });
    const id = String(worker.user.id);
    const pay = (amount: string) => postPageForm(t, `/payments/pay/${id}?q=pay`, cookie, { intent: "payout", userId: id, back: "q=pay", amount });
    const zero = await pay("0");
    expect(zero.status).toBe(400);
    expect(field(zero.text, "amount", 'data-testid="pay-dialog"')).toMatchObject({
      invalid: true,
      message: "Сумма выплаты не может быть 0",
      value: "0",
    });
    const over = await pay("10,01");
    expect(over.status).toBe(400);
    expect(field(over.text, "amount", 'data-testid="pay-dialog"')).toMatchObject({
      invalid: true,
      message: "Сумма выплаты не может быть больше баланса",
      value: "10,01",
    });
    expect(await t.db.select().from(payments).where(eq(payments.userId, worker.user.id))).toHaveLength(0);
    const paid = await pay("2.50");
    expect(paid.status).toBe(302);
    expect(paid.headers.location).toBe(`/payments?q=pay&paid=${id}`);

    const change = (op: string, fields: Record<string, string>) =>
      postPageForm(t, `/payments/balance/${id}?op=${op}`, cookie, { intent: op, userId: id, back: "", ...fields });
    for (const amount of ["", "0", "abc"]) {
      const refused = await change("rem", { kind: "rem", amount });
      expect(refused.status, amount).toBe(400);
      expect(field(refused.text, "amount", 'data-testid="balance-dialog"'), amount).toMatchObject({ invalid: true, message: "Введите число в поле" });
    }
    const huge = await change("add", { kind: "add", amount: "9999999999" });
    expect(field(huge.text, "amount", 'data-testid="balance-dialog"')).toMatchObject({ invalid: true, message: "Введите число в поле" });
    // The button is the kind: a hidden kind that says otherwise does not turn a subtraction into a reset.
    expect((await change("rem", { kind: "def", amount: "1" })).status).toBe(302);
    expect((await reloadUser(t.db, worker.user.id)).balanceCents).toBe(650);
    // The reset's question sends no amount (and no kind).
    const reset = await change("def", { back: "q=pay" });
    expect(
      reset.status,
      reset.text.slice(reset.text.indexOf('data-testid="balance-dialog"'), reset.text.indexOf('data-testid="balance-dialog"') + 3000),
    ).toBe(302);
    expect(reset.headers.location).toBe("/payments?q=pay");
    expect((await reloadUser(t.db, worker.user.id)).balanceCents).toBe(0);
  });

  it("/payments rates: a bad rate under its field, what was typed kept, nothing saved", async () => {
    const [before] = await t.db.select().from(settings);
    const res = await postPageForm(t, "/payments", cookie, { intent: "rates", back: "", withPassport: "7,5", withoutPassport: "-1" });
    expect(res.status).toBe(400);
    expect(field(res.text, "withoutPassport")).toMatchObject({
      invalid: true,
      message: "Введите ставку в долларах, например 5 или 7.50",
      value: "-1",
    });
    expect(field(res.text, "withPassport")).toMatchObject({ invalid: false, value: "7,5" });
    const [after] = await t.db.select().from(settings);
    expect(after.rateWithoutPassportCents).toBe(before.rateWithoutPassportCents);
    const saved = await postPageForm(t, "/payments", cookie, { intent: "rates", back: "size=10", withPassport: "7,5", withoutPassport: "3" });
    expect(saved.status).toBe(302);
    expect(saved.headers.location).toBe("/payments?size=10");
  });

  it("/managers add form: missing fields and a taken login under their fields; a generator keeps what was typed", async () => {
    const add = (fields: Record<string, string>) =>
      postPageForm(t, "/managers", cookie, { login: "", password: "", displayName: "", telegram: "", sipPrefix: "9000", ...fields });
    const empty = await add({ intent: "create", telegram: "@tg" });
    expect(empty.status).toBe(400);
    for (const name of ["login", "password", "displayName"]) {
      expect(field(empty.text, name, 'data-testid="add-manager-form"'), name).toMatchObject({
        invalid: true,
        message: "Пожалуйста, заполните все поля",
      });
    }
    expect(field(empty.text, "telegram", 'data-testid="add-manager-form"')).toMatchObject({ invalid: false, value: "@tg" });

    const generated = await add({ intent: "generatePassword", login: "gen-kept", displayName: "Имя" });
    expect(generated.status).toBe(200);
    expect(field(generated.text, "login", 'data-testid="add-manager-form"')).toMatchObject({ invalid: false, value: "gen-kept" });
    // The generated password (its & escaped in the HTML).
    expect(field(generated.text, "password", 'data-testid="add-manager-form"').value?.replaceAll("&amp;", "&")).toHaveLength(16);

    const noLogin = await add({ intent: "generateSip" });
    expect(noLogin.status).toBe(400);
    expect(field(noLogin.text, "login", 'data-testid="add-manager-form"')).toMatchObject({
      invalid: true,
      message: "Заполните логин, для генерации SIPa",
    });

    const taken = await add({ intent: "create", login: "admin", password: "pw", displayName: "Копия" });
    expect(taken.status).toBe(409);
    expect(field(taken.text, "login", 'data-testid="add-manager-form"')).toMatchObject({ invalid: true, message: "Такой логин уже занят" });
    expect(field(taken.text, "displayName", 'data-testid="add-manager-form"')).toMatchObject({ invalid: false, value: "Копия" });
    expect(await t.db.select().from(users).where(eq(users.displayName, "Копия"))).toHaveLength(0);
  });

  it("/loadedbases/filters/new: SPEC's messages under the name and each list, the window's and autodial's under theirs; Выбрать все answers the form", async () => {
    const topicForm = 'data-testid="filter-form"';
    const res = await postPageForm(t, "/loadedbases/filters/new", cookie, {
      intent: "save",
      name: " ",
      "callingHours.from": "25:00",
      "callingHours.until": "21:00",
      "callingHours.days": "1",
      "callingHours.timeZone": "Europe/Kyiv",
      retryCountedBy: "presses",
      autodial: "on",
      autodialSeconds: "2",
    });
    expect(res.status).toBe(400);
    expect(field(res.text, "name", topicForm)).toMatchObject({ invalid: true, message: "Введите имя фильтра" });
    const list = (testId: string) => res.text.slice(res.text.indexOf(`data-testid="${testId}"`)).split("</fieldset>")[0];
    expect(list("choice-managers")).toMatch(/data-field-error="">Виберите 1 менеджера</);
    expect(list("choice-databases")).toMatch(/data-field-error="">Виберите 1 базу данных</);
    expect(list("choice-statuses")).toMatch(/data-field-error="">Виберите 1 статус</);
    expect(list("choice-scripts")).not.toContain("data-field-error");
    expect(field(res.text, "callingHours.from", topicForm)).toMatchObject({
      invalid: true,
      message: "Укажите начало времени звонков в формате ЧЧ:ММ",
      value: "25:00",
    });
    expect(field(res.text, "autodialSeconds", topicForm)).toMatchObject({
      invalid: true,
      message: "Автонабор: целое число секунд от 3 до 120",
      value: "2",
    });

    // Выбрать все without JavaScript: the same form, every manager ticked, no message (nothing was checked or saved).
    const all = await postPageForm(t, "/loadedbases/filters/new", cookie, { intent: "all:managers", name: "Черновик" });
    expect(all.status).toBe(200);
    expect(field(all.text, "name", topicForm)).toMatchObject({ invalid: false, value: "Черновик" });
    expect(all.text).not.toContain("data-field-error");
    const boxes = [...all.text.matchAll(/<input[^>]*name="managers"[^>]*>/g)].map((m) => m[0]);
    expect(boxes.length).toBeGreaterThan(0);
    expect(boxes.filter((box) => !box.includes('checked=""'))).toEqual([]);
    expect((await t.db.select().from(filters)).filter((f) => f.name === "Черновик")).toHaveLength(0);

    // Issue 41: «Выбрать все» of «Статусы» leaves the report status (Заявка) out, and the list says what it means.
    const statusBoxes = await postPageForm(t, "/loadedbases/filters/new", cookie, { intent: "all:statuses", name: "Черновик" });
    const ticked = [...statusBoxes.text.matchAll(/<label[^>]*>(<input[^>]*name="statuses"[^>]*>)([^<]*)/g)].map((m) => [
      m[2],
      m[1].includes('checked=""'),
    ]);
    // (other tests of this file add statuses of their own: each of those is ticked too)
    expect(Object.fromEntries(ticked)).toMatchObject({ Недозвон: true, Занято: true, Перезвонить: true, Отказ: true, Заявка: false });
    expect(ticked.filter(([name, on]) => name !== "Заявка" && !on)).toEqual([]);
    expect(statusBoxes.text).toContain("Клиентов с отмеченными статусами тематика выдаёт менеджерам снова");

    // Issue 41: a rule whose final status the topic works again is refused at that rule's «Затем статус» too (it
    // was a toast alone), the form's message above as before; nothing is saved.
    const s = Object.fromEntries((await t.db.select().from(statuses)).map((row) => [row.text, String(row.id)]));
    const [base] = await t.db.insert(databases).values({ name: "База правил" }).returning();
    /** The topic «С правилом» of a new manager, which works «Недозвон» and «Отказ» again. */
    const ruledTopic = async (login: string, finalStatus: string, hours: Record<string, string | string[]>) => ({
      intent: "save",
      name: "С правилом",
      managers: String((await createUser(t.db, { login })).user.id),
      databases: String(base.id),
      statuses: [s["Недозвон"], s["Отказ"]],
      ...hours,
      "callingHours.timeZone": "Europe/Kyiv",
      retryCountedBy: "presses",
      [`retryRules.${s["Недозвон"]}.delay`]: "2",
      [`retryRules.${s["Недозвон"]}.unit`]: "hours",
      [`retryRules.${s["Недозвон"]}.maxAttempts`]: "3",
      [`retryRules.${s["Недозвон"]}.finalStatus`]: finalStatus,
    });
    const ruled = await postPageForm(
      t,
      "/loadedbases/filters/new",
      cookie,
      await ruledTopic("rule-row", s["Отказ"], { "callingHours.from": "09:00", "callingHours.until": "21:00", "callingHours.days": "1" }),
    );
    expect(ruled.status).toBe(400);
    const why = "Итоговый статус «Отказ» тематика берёт в работу снова: выберите статус, которого нет в её статусах";
    expect(field(ruled.text, `retryRules.${s["Недозвон"]}.finalStatus`, topicForm)).toMatchObject({ invalid: true, message: why });
    expect(ruled.text).toContain(`Ошибка сохранения фильтра: ${why}`);
    expect((await t.db.select().from(filters)).filter((f) => f.name === "С правилом")).toHaveLength(0);

    // With a final status it does not work again the topic is saved, and its card says its rule, autodial and recording.
    const saved = await postPageForm(t, "/loadedbases/filters/new", cookie, {
      ...(await ruledTopic("rule-row-2", s["Заявка"], {
        "callingHours.from": "10:00",
        "callingHours.until": "19:00",
        "callingHours.days": ["1", "2", "3", "4", "5"],
      })),
      recordCalls: "on",
      recordingRetentionDays: "30",
    });
    expect(saved.status).toBe(302);
    const cards = (await getPage(t, "/loadedbases", cookie)).text;
    const card = cards
      .slice(cards.lastIndexOf('data-testid="filter-card"', cards.indexOf("С правилом")))
      .split("</li>")[0]
      .replace(/<[^>]+>/g, "");
    expect(card).toContain("Звонки: 10:00–19:00, Пн, Вт, Ср, Чт, Пт");
    expect(card).toContain("Повтор недозвона: Недозвон: через 2 ч, не более 3 попыток, затем «Заявка»");
    expect(card).toContain("Автонабор: выключен");
    expect(card).toContain("Запись разговоров: записываются, хранятся 30 дн.");
  });

  it("/leadTemplate template: an empty name and an emptied field name under their fields; a field button answers the changed form", async () => {
    const editor = 'data-testid="template-form"';
    const emptied = { "fields[0].label": "", "fields[0].type": "text", "fields[0].locked": "0" };
    const bad = await postPageForm(t, "/leadTemplate?template=new", cookie, { intent: "template-save", name: " ", ...emptied });
    expect(bad.status).toBe(400);
    expect(field(bad.text, "name", editor)).toMatchObject({ invalid: true, message: "Введите имя шаблона" });
    // SPEC's message for an empty name, above the form.
    expect(bad.text).toContain("Выберите базу данных");
    // A lone row whose name was emptied is still a row, with its message.
    expect(field(bad.text, "fields[0].label", editor)).toMatchObject({ invalid: true, message: "У каждого поля шаблона должно быть имя" });

    const fields = {
      intent: "template-save",
      name: "Анкета без JS",
      "fields[0].label": "Паспорт",
      "fields[0].type": "textarea",
      "fields[0].locked": "1",
    };
    const insert = { type: "insert", payload: { name: "fields", defaultValue: { label: "Имя поля", type: "text", locked: "0" } } };
    const added = await postPageForm(t, "/leadTemplate?template=new", cookie, { ...fields, __intent__: JSON.stringify(insert) });
    expect(added.status).toBe(200);
    expect(field(added.text, "fields[0].label", editor)).toMatchObject({ invalid: false, value: "Паспорт" });
    // The locked row keeps its type in a hidden field; the new one is open.
    expect(field(added.text, "fields[0].type", editor).tag).toContain('type="hidden"');
    expect(field(added.text, "fields[1].label", editor)).toMatchObject({ invalid: false, value: "Имя поля" });
    expect(added.text).not.toContain("data-field-error");
    expect((await t.db.select().from(templates)).filter((row) => row.name === "Анкета без JS")).toHaveLength(0);

    const saved = await postPageForm(t, "/leadTemplate?template=new", cookie, fields);
    expect(saved.status).toBe(302);
    const [stored] = (await t.db.select().from(templates)).filter((row) => row.name === "Анкета без JS");
    expect(JSON.parse(stored.templateFields)).toEqual([{ label: "Паспорт", type: "textarea" }]);
  });

  it("/importbase: an empty name and a crafted column count, each refused with its Russian message, nothing read or saved", async () => {
    const noName = await postPageForm(t, "/importbase", cookie, { intent: "preview", name: "  " });
    expect(noName.status).toBe(400);
    expect(noName.text).toContain("Введите название базы");
    const columns = await postPageForm(t, "/importbase", cookie, { intent: "import", name: "База", uploadId: "x", columns: "много" });
    expect(columns.status).toBe(400);
    expect(columns.text).toContain("Неверное число столбцов");
    const unknown = await postPageForm(t, "/importbase", cookie, { intent: "dance" });
    expect(unknown.status).toBe(400);
    expect(unknown.text).toContain("Неизвестное действие");
  });

  it("a hand-edited id on a row's button is a Russian 400, not a 500", async () => {
    for (const [path, fields] of [
      ["/scripts", { intent: "delete", id: "abc" }],
      ["/exportbase", { intent: "restart", id: "-1" }],
      ["/edit-statuses", { intent: "visibility", id: "1e99" }],
      ["/callbacks", { intent: "reassign", id: "1", userId: "x" }],
    ] as const) {
      const res = await postPageForm(t, path, cookie, fields);
      expect(res.status, path).toBe(400);
      expect(res.text, path).toContain("Неверный идентификатор");
    }
    expect((await getPage(t, "/scripts", cookie)).status).toBe(200);
  });

  it("a hand-made post whose Conform fields do not parse is a Russian 400 on every form page, not a 500", async () => {
    const pages = ["/payments", "/managers", "/leadTemplate", "/loadedbases/filters/new", "/basesettings", "/exportbase"];
    const broken: Array<Record<string, string>> = [{ __intent__: "garbage" }, { __intent__: '{"type":"insert"' }, { __state__: "garbage" }];
    for (const path of pages) {
      for (const fields of broken) {
        const res = await postPageForm(t, path, cookie, { intent: "save", ...fields });
        expect(res.status, `${path} ${JSON.stringify(fields)}`).toBe(400);
        expect(res.text, path).toContain("Некорректные данные формы");
      }
    }
  });

  it("a post with an intent the page does not know is answered alike everywhere: 400 and «Неизвестное действие» on the page", async () => {
    const pages = [
      "/scripts",
      "/exportbase",
      "/edit-statuses",
      "/donotcall",
      "/loadedbases",
      "/leadTemplate",
      "/payments",
      "/importbase",
      "/users",
      "/managers",
    ];
    for (const path of pages) {
      const res = await postPageForm(t, path, cookie, { intent: "dance", id: "1" });
      expect(res.status, path).toBe(400);
      expect(res.text, path).toContain("Неизвестное действие");
    }
    // The header's break toggle answers its script (a fetcher: /break.data) with the code every page's unknownIntent has.
    const toggle = await postPageForm(t, "/break.data", cookie, { intent: "dance", _js: "1", redirectTo: "/" });
    expect(toggle.status).toBe(400);
    expect(toggle.text).toContain("unknown_intent");
  });
});
