import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { contacts, scripts, templates } from "../../db/schema";
import { ADMIN, bearer, createTestApp, createUser, formBody, getPage, pageSessionCookie, reloadUser, type TestApp } from "../helpers/app";
import { field } from "../helpers/form-fields";
import { createBase, statusesByText } from "../helpers/leads";

let t: TestApp;
let admin: string;
let olga: Awaited<ReturnType<typeof createUser>>;
let ivan: Awaited<ReturnType<typeof createUser>>;
let olgaToken: string;
let ivanToken: string;
let baseA: number;
let baseB: number;
let callBack: number;
let refused: number;
let scriptId: number;
let templateId: number;

beforeAll(async () => {
  // web: the filter form's page is checked here too (the inactive template rule, without JavaScript).
  t = await createTestApp({ web: true });
  admin = await t.adminToken();
  olga = await createUser(t.db, { login: "olga", displayName: "Ольга" });
  ivan = await createUser(t.db, { login: "ivan", displayName: "Иван" });
  olgaToken = await t.tokenFor(olga);
  ivanToken = await t.tokenFor(ivan);
  baseA = (await createBase(t.db, { name: "Киев январь", count: 2 })).base.id;
  baseB = (await createBase(t.db, { name: "Львов", count: 2 })).base.id;
  const s = await statusesByText(t.db);
  callBack = s["Перезвонить"].id;
  refused = s["Отказ"].id;
  [{ id: scriptId }] = await t.db.insert(scripts).values({ name: "Приветствие", content: "<p>Добрый день</p>" }).returning();
  [{ id: templateId }] = await t.db
    .insert(templates)
    .values({ name: "Анкета", templateFields: JSON.stringify([{ label: "Сумма", type: "text" }]) })
    .returning();
});
afterAll(async () => {
  await t?.close();
});

const body = (overrides: Record<string, unknown> = {}) => ({
  name: "Кредиты",
  managers: [olga.user.id],
  databases: [baseA],
  statuses: [callBack],
  scripts: [scriptId],
  template: templateId,
  ...overrides,
});

describe("filters API", () => {
  it("creates a filter and answers it in the SPEC shape with totalManagers", async () => {
    const res = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ managers: [olga.user.id, ivan.user.id] }));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: "Кредиты",
      isActive: true,
      managers: [
        { id: ivan.user.id, name: "Иван" },
        { id: olga.user.id, name: "Ольга" },
      ],
      scripts: [{ id: scriptId, name: "Приветствие" }],
      databases: [{ id: baseA, name: "Киев январь" }],
      statuses: [{ id: callBack, text: "Перезвонить" }],
      template: { id: templateId, name: "Анкета" },
      totalManagers: 2,
    });
  });

  it.each([
    [{ name: "  " }, "Введите имя фильтра"],
    [{ managers: [] }, "Виберите 1 менеджера"],
    [{ databases: [] }, "Виберите 1 базу данных"],
    [{ statuses: undefined }, "Виберите 1 статус"],
    [{ name: "", managers: [], databases: [] }, "Введите имя фильтра"],
  ])("refuses %j with the SPEC message", async (overrides, message) => {
    const res = await t.request.post("/api/v1/filters").set(bearer(admin)).send(body(overrides));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "validation", message });
  });

  it('takes an API\'s numbers as numbers: true, "5" or "" are refused with a Russian 400, never read as 1, 5 or 0 (issue 43)', async () => {
    const RETENTION = "Срок хранения записей: целое число дней от 1 до 3650 (пусто: хранить всегда)";
    const AUTODIAL = "Автонабор: целое число секунд от 3 до 120";
    const refusedWith = async (path: string, method: "post" | "put", sent: Record<string, unknown>, message: string) => {
      const res = await t.request[method](path).set(bearer(admin)).send(sent);
      expect(res.status, JSON.stringify(sent)).toBe(400);
      expect(res.body.message).toBe(message);
    };
    await refusedWith("/api/v1/filters", "post", body({ recordingRetentionDays: true }), RETENTION);
    await refusedWith("/api/v1/filters", "post", body({ recordingRetentionDays: "30" }), RETENTION);
    await refusedWith("/api/v1/filters", "post", body({ autodialSeconds: "5" }), AUTODIAL);
    await refusedWith("/api/v1/filters", "post", body({ autodialSeconds: false }), AUTODIAL);
    await refusedWith(
      "/api/v1/filters",
      "post",
      body({ callingHours: { from: "09:00", until: "21:00", days: ["1"], timeZone: "Europe/Kyiv" } }),
      "Неверный день недели",
    );
    // `true` was manager 1 (the admin), "" or null was 0.
    await refusedWith("/api/v1/filters", "post", body({ managers: [true] }), "Неверный идентификатор");
    await refusedWith("/api/v1/filters", "post", body({ databases: [""] }), "Неверный идентификатор");
    await refusedWith(
      "/api/v1/database/settings",
      "post",
      { removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false, defaultInfo: "", callbackGraceMinutes: "20" },
      "Неверное время ожидания перезвона",
    );
    await refusedWith("/api/v1/status", "post", { text: "Порядок строкой", order: "3" }, "Неверный порядок");
    // The numbers themselves still pass, and ids copied from a URL may still come as digits.
    const saved = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Числа", managers: [String(olga.user.id)], recordingRetentionDays: 30, autodialSeconds: 5 }));
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ recordingRetentionDays: 30, autodialSeconds: 5, managers: [{ id: olga.user.id }] });
    // Gone again: the next tests count Ольга's topics.
    expect((await t.request.delete(`/api/v1/filters/${saved.body.id}`).set(bearer(admin))).status).toBe(200);
  });

  it("refuses ids that do not exist with a Russian 400", async () => {
    const res = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ databases: [999999] }));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Выбранная база не найдена");
  });

  it("keeps writes to admins: a manager gets 403", async () => {
    const res = await t.request.post("/api/v1/filters").set(bearer(olgaToken)).send(body());
    expect(res.status).toBe(403);
    const list = await t.request.get("/api/v1/filters").set(bearer(admin));
    const del = await t.request.delete(`/api/v1/filters/${list.body[0].id}`).set(bearer(olgaToken));
    expect(del.status).toBe(403);
  });

  it("shows a manager only the active filters that list him", async () => {
    const other = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Только Иван", managers: [ivan.user.id] }));
    const inactive = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Выключенный" }));
    await t.request.put(`/api/v1/filters/${inactive.body.id}/activate`).set(bearer(admin)).expect(200);

    const forOlga = await t.request.get("/api/v1/filters").set(bearer(olgaToken));
    expect(forOlga.status).toBe(200);
    expect(forOlga.body.map((f: { name: string }) => f.name)).toEqual(["Кредиты"]);
    const forIvan = await t.request.get("/api/v1/filters").set(bearer(ivanToken));
    expect(forIvan.body.map((f: { name: string }) => f.name)).toEqual(["Кредиты", "Только Иван"]);
    const forAdmin = await t.request.get("/api/v1/filters").set(bearer(admin));
    expect(forAdmin.body).toHaveLength(3);
    expect(forAdmin.body.find((f: { id: number }) => f.id === inactive.body.id).isActive).toBe(false);
    await t.request.delete(`/api/v1/filters/${other.body.id}`).set(bearer(admin)).expect(200);
    await t.request.delete(`/api/v1/filters/${inactive.body.id}`).set(bearer(admin)).expect(200);
  });

  it("updates a filter; the activate call flips Активирован / Деактивирован", async () => {
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Старое имя" }));
    const updated = await t.request
      .put(`/api/v1/filters/${created.body.id}`)
      .set(bearer(admin))
      .send(body({ name: "Новое имя", databases: [baseA, baseB], statuses: [callBack, refused], scripts: [], template: null }));
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: "Новое имя",
      databases: [{ name: "Киев январь" }, { name: "Львов" }],
      statuses: [{ text: "Перезвонить" }, { text: "Отказ" }],
      scripts: [],
      template: null,
    });
    const off = await t.request.put(`/api/v1/filters/${created.body.id}/activate`).set(bearer(admin));
    expect(off.body.isActive).toBe(false);
    const on = await t.request.put(`/api/v1/filters/${created.body.id}/activate`).set(bearer(admin));
    expect(on.body.isActive).toBe(true);
    const missing = await t.request.put("/api/v1/filters/999999/activate").set(bearer(admin));
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("Тематика не найдена");
    const bad = await t.request.put("/api/v1/filters/abc").set(bearer(admin)).send(body());
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Неверный идентификатор");
    await t.request.delete(`/api/v1/filters/${created.body.id}`).set(bearer(admin)).expect(200);
  });
});

describe("a deactivated template (decision 034: active means given to managers)", () => {
  const message = (name: string) =>
    `Шаблон «${name}» деактивирован: менеджеры не увидят его карточку. Выберите активный шаблон или включите этот на странице «Настройка шаблона»`;

  it("is refused for a new topic and as a new choice for a topic; a topic keeps the one it already has", async () => {
    const [{ id: off }] = await t.db.insert(templates).values({ name: "Выключенная анкета", isActive: false, templateFields: "[]" }).returning();
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "С выключенным шаблоном", template: off }));
    expect(created.status).toBe(400);
    expect(created.body).toEqual({ error: "template_inactive", message: message("Выключенная анкета") });
    expect((await t.request.get("/api/v1/filters").set(bearer(admin))).body.some((f: { name: string }) => f.name === "С выключенным шаблоном")).toBe(
      false,
    );

    // A topic with an active template may not switch to the deactivated one...
    const topic = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Тематика с анкетой" }));
    expect(topic.status).toBe(200);
    const switched = await t.request
      .put(`/api/v1/filters/${topic.body.id}`)
      .set(bearer(admin))
      .send(body({ name: "Тематика с анкетой", template: off }));
    expect(switched.status).toBe(400);
    expect(switched.body.message).toBe(message("Выключенная анкета"));
    expect((await t.request.get("/api/v1/filters").set(bearer(admin))).body.find((f: { id: number }) => f.id === topic.body.id).template).toEqual({
      id: templateId,
      name: "Анкета",
    });

    // ...but when its own template is switched off later, editing the topic's other fields keeps it.
    await t.db.update(templates).set({ isActive: false }).where(eq(templates.id, templateId));
    try {
      const kept = await t.request
        .put(`/api/v1/filters/${topic.body.id}`)
        .set(bearer(admin))
        .send(body({ name: "Тематика переименована" }));
      expect(kept.status).toBe(200);
      expect(kept.body.template).toEqual({ id: templateId, name: "Анкета" });
      // Switched on again, it is an ordinary choice.
      await t.db.update(templates).set({ isActive: true }).where(eq(templates.id, off));
      const now = await t.request
        .put(`/api/v1/filters/${topic.body.id}`)
        .set(bearer(admin))
        .send(body({ name: "Тематика переименована", template: off }));
      expect(now.status).toBe(200);
      expect(now.body.template).toEqual({ id: off, name: "Выключенная анкета" });
    } finally {
      await t.db.update(templates).set({ isActive: true }).where(eq(templates.id, templateId));
      await t.request.delete(`/api/v1/filters/${topic.body.id}`).set(bearer(admin));
      await t.db.delete(templates).where(eq(templates.id, off));
    }
  });

  it("the filter form offers active templates only and says why it refuses one (JavaScript off)", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const [{ id: off }] = await t.db.insert(templates).values({ name: "Спящая анкета", isActive: false, templateFields: "[]" }).returning();
    try {
      const form = await getPage(t, "/loadedbases/filters/new", cookie);
      expect(form.status).toBe(200);
      // GLOSSARY: the interface says тематика, as the «Добавить тематику» that opens it (issue 31).
      expect(form.text).toContain("<title>Новая тематика</title>");
      expect(form.text).not.toContain("Новый фильтр");
      const choices = [...form.text.matchAll(/<option value="(\d*)"[^>]*>([^<]*)<\/option>/g)]
        .filter((m) => form.text.lastIndexOf('id="filter-template"', m.index) > form.text.lastIndexOf("</select>", m.index))
        .map((m) => m[2]);
      expect(choices).toEqual(["Без шаблона", "Анкета"]);

      // A crafted post (or a page opened before the switch) is refused with the reason, nothing is saved.
      const posted = await t.request
        .post("/loadedbases/filters/new")
        .set("Cookie", cookie)
        .set("Host", "127.0.0.1")
        .set("Origin", "http://127.0.0.1")
        .set("Accept-Encoding", "identity")
        .set("Content-Type", "application/x-www-form-urlencoded")
        .send(
          formBody({
            intent: "save",
            name: "Со спящей",
            template: String(off),
            managers: String(olga.user.id),
            databases: String(baseA),
            statuses: String(callBack),
          }),
        );
      expect(posted.status).toBe(400);
      expect(posted.text).toContain(`Ошибка сохранения фильтра: ${message("Спящая анкета")}`);
      expect((await t.request.get("/api/v1/filters").set(bearer(admin))).body.some((f: { name: string }) => f.name === "Со спящей")).toBe(false);
    } finally {
      await t.db.delete(templates).where(eq(templates.id, off));
    }
  });
});

/** The topic page's form posted as a browser without JavaScript posts it. */
const postPlainForm = (page: string, cookie: string, fields: string[][]) =>
  t.request
    .post(page)
    .set("Cookie", cookie)
    .set("Host", "127.0.0.1")
    .set("Origin", "http://127.0.0.1")
    .set("Accept-Encoding", "identity")
    .set("Content-Type", "application/x-www-form-urlencoded")
    .send(new URLSearchParams(fields).toString());

describe("calling hours in the topic form (issue 29, JavaScript off)", () => {
  it("shows the window, saves it from a plain post, and refuses a bad one with a Russian message", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Часы в форме" }));
    const page = `/loadedbases/filters/${created.body.id}`;
    const form = await getPage(t, page, cookie);
    expect(form.text).toContain("Время звонков (по местному времени клиента)");
    const post = (fields: string[][]) => postPlainForm(page, cookie, fields);
    const topic = [
      ["intent", "save"],
      ["name", "Часы в форме"],
      ["managers", String(olga.user.id)],
      ["databases", String(baseA)],
      ["statuses", String(callBack)],
    ];
    const saved = await post([
      ...topic,
      ["callingHours.from", "10:00"],
      ["callingHours.until", "20:00"],
      ["callingHours.days", "1"],
      ["callingHours.days", "5"],
      ["callingHours.timeZone", "Asia/Omsk"],
    ]);
    expect(saved.status).toBe(302);
    const shown = (await t.request.get("/api/v1/filters").set(bearer(admin))).body.find((f: { id: number }) => f.id === created.body.id);
    expect(shown.callingHours).toEqual({
      from: "10:00",
      until: "20:00",
      days: [1, 5],
      timeZone: "Asia/Omsk",
      weekendFrom: null,
      weekendUntil: null,
      daysOff: [],
    });
    const again = (await getPage(t, page, cookie)).text;
    expect(again).toMatch(/name="callingHours.timeZone"[^]*<option value="Asia\/Omsk" selected=""/);
    // The topic's card says it in a line.
    expect(again).toContain("10:00–20:00, Пн, Пт (по времени клиента; пояс по умолчанию Asia/Omsk)");

    const noDays = await post([...topic, ["callingHours.from", "10:00"], ["callingHours.until", "20:00"], ["callingHours.timeZone", "Asia/Omsk"]]);
    expect(noDays.status).toBe(400);
    expect(noDays.text).toContain("Выберите хотя бы один день звонков");
  });
});

describe("topic choice", () => {
  it("stores the chosen topic as gettingFilter", async () => {
    const [filter] = (await t.request.get("/api/v1/filters").set(bearer(olgaToken))).body;
    const res = await t.request.post(`/api/v1/filters/${filter.id}/${olga.user.id}/olga`).set(bearer(olgaToken));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, message: "Тематика выбрана", gettingFilter: filter.id });
    expect((await reloadUser(t.db, olga.user.id)).gettingFilter).toBe(filter.id);
  });

  it("refuses another user's id (403), a wrong login (404) and a topic not open to him (403)", async () => {
    const [filter] = (await t.request.get("/api/v1/filters").set(bearer(olgaToken))).body;
    const forIvan = await t.request.post(`/api/v1/filters/${filter.id}/${ivan.user.id}/ivan`).set(bearer(olgaToken));
    expect(forIvan.status).toBe(403);
    const wrongLogin = await t.request.post(`/api/v1/filters/${filter.id}/${olga.user.id}/ivan`).set(bearer(olgaToken));
    expect(wrongLogin.status).toBe(404);
    const ivansOnly = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Чужой", managers: [ivan.user.id] }));
    const closed = await t.request.post(`/api/v1/filters/${ivansOnly.body.id}/${olga.user.id}/olga`).set(bearer(olgaToken));
    expect(closed.status).toBe(403);
    expect(closed.body.message).toBe("Эта тематика вам недоступна");
    await t.request.delete(`/api/v1/filters/${ivansOnly.body.id}`).set(bearer(admin)).expect(200);
  });

  it("sends managers back to topic choice when their topic is deactivated, and lets go of their lead", async () => {
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Временная" }));
    await t.request.post(`/api/v1/filters/${created.body.id}/${olga.user.id}/olga`).set(bearer(olgaToken)).expect(200);
    const lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${created.body.id}&userId=${olga.user.id}`).set(bearer(olgaToken));
    expect(lead.body.id).toEqual(expect.any(Number));
    await t.request.put(`/api/v1/filters/${created.body.id}/activate`).set(bearer(admin)).expect(200);
    expect((await reloadUser(t.db, olga.user.id)).gettingFilter).toBe(0);
    const [contact] = await t.db.select().from(contacts).where(eq(contacts.id, lead.body.id));
    expect(contact.heldBy).toBeNull();
    await t.request.delete(`/api/v1/filters/${created.body.id}`).set(bearer(admin)).expect(200);
  });
});

describe("contact limits in the topic form (issue 43, JavaScript off)", () => {
  it("picks 230-FZ with one choice and shows it as such, saves own numbers, and says a bad one next to its field", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Лимиты в форме" }));
    const page = `/loadedbases/filters/${created.body.id}`;
    const form = await getPage(t, page, cookie);
    expect(form.text).toContain("Сколько раз звонить одному клиенту");
    // React writes a radio's checked before its value.
    const chosen = (html: string, value: string) =>
      new RegExp(`<input[^>]*name="contactLimits.preset"[^>]*checked=""[^>]*value="${value}"`).test(html);
    expect(chosen(form.text, "none")).toBe(true);
    const post = (fields: string[][]) => postPlainForm(page, cookie, fields);
    const topic = [
      ["intent", "save"],
      ["name", "Лимиты в форме"],
      ["managers", String(olga.user.id)],
      ["databases", String(baseA)],
      ["statuses", String(callBack)],
    ];
    const shown = async () => (await t.request.get("/api/v1/filters").set(bearer(admin))).body.find((f: { id: number }) => f.id === created.body.id);

    expect((await post([...topic, ["contactLimits.preset", "law230"]])).status).toBe(302);
    expect((await shown()).contactLimits).toEqual({ day: 1, week: 2, month: 8, counts: "connected" });
    const law = (await getPage(t, page, cookie)).text;
    expect(chosen(law, "law230")).toBe(true);
    expect(chosen(law, "none")).toBe(false);
    expect(law).toContain("по 230-ФЗ: 1 в день, 2 в неделю, 8 в месяц (разговоры)");

    const own = await post([...topic, ["contactLimits.preset", "custom"], ["contactLimits.week", "3"], ["contactLimits.counts", "attempts"]]);
    expect(own.status).toBe(302);
    expect((await shown()).contactLimits).toEqual({ day: null, week: 3, month: null, counts: "attempts" });
    expect((await getPage(t, page, cookie)).text).toContain("3 в неделю (попытки)");

    const bad = await post([...topic, ["contactLimits.preset", "custom"], ["contactLimits.day", "0"]]);
    expect(bad.status).toBe(400);
    expect(field(bad.text, "contactLimits.day")).toMatchObject({
      invalid: true,
      value: "0",
      message: "Звонков клиенту в день: целое число от 1 до 1000 (пусто: без ограничения)",
    });
    // Nothing was saved.
    expect((await shown()).contactLimits.week).toBe(3);

    expect((await post([...topic, ["contactLimits.preset", "none"]])).status).toBe(302);
    expect((await shown()).contactLimits).toEqual({ day: null, week: null, month: null, counts: "connected" });

    // «Только с согласием» is a box of the same form.
    expect((await post([...topic, ["requiresConsent", "on"]])).status).toBe(302);
    expect((await shown()).requiresConsent).toBe(true);
    const consent = (await getPage(t, page, cookie)).text;
    expect(consent).toMatch(/<input type="checkbox" name="requiresConsent" checked=""/);
    expect(consent).toContain("звонить только клиентам с согласием на звонки");
    expect((await post(topic)).status).toBe(302);
    expect((await shown()).requiresConsent).toBe(false);
  });
});

describe("a topic's trunk number for calls in (issue 42, decision 077)", () => {
  const TAKEN = "Номер линии +380441230077 уже у активной тематики «Линия один»: у одного номера может быть только одна тематика";
  const shownOf = async (id: number) => (await t.request.get("/api/v1/filters").set(bearer(admin))).body.find((f: { id: number }) => f.id === id);

  it("API: saved as the region reads it and answered with its plus; refused in Russian when no valid number or another active topic's; 403 for a manager", async () => {
    const one = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Линия один", inboundNumber: "044 123 00 77" }));
    expect(one.status).toBe(200);
    expect(one.body.inboundNumber).toBe("+380441230077");
    // An update that leaves it out keeps it; the list shows it.
    expect(
      (
        await t.request
          .put(`/api/v1/filters/${one.body.id}`)
          .set(bearer(admin))
          .send(body({ name: "Линия один" }))
      ).body.inboundNumber,
    ).toBe("+380441230077");
    expect((await shownOf(one.body.id)).inboundNumber).toBe("+380441230077");

    for (const typed of ["12345", "+38044", "044 123 00 7x", "кредиты"]) {
      const bad = await t.request
        .post("/api/v1/filters")
        .set(bearer(admin))
        .send(body({ name: "Кривой номер", inboundNumber: typed }));
      expect({ typed, status: bad.status }).toEqual({ typed, status: 400 });
      expect(bad.body.message).toMatch(
        /^Номер линии \(входящие и номер, который видят клиенты\): «.+» — неполный или несуществующий номер телефона \(пример: /,
      );
    }
    const long = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Длинный", inboundNumber: "1".repeat(40) }));
    expect(long.status).toBe(400);
    expect(long.body.message).toBe(
      "Номер линии (входящие и номер, который видят клиенты): укажите номер телефона (не длиннее 32 символов) или оставьте поле пустым",
    );

    // The same number written otherwise is the same number: another active topic may not have it.
    const two = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Линия два", inboundNumber: "+380441230077" }));
    expect(two.status).toBe(409);
    expect(two.body).toEqual({ error: "inbound_number_taken", message: TAKEN });
    const other = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Линия два", inboundNumber: "" }));
    expect(other.status).toBe(200);
    expect(other.body.inboundNumber).toBe("");
    expect(
      (
        await t.request
          .put(`/api/v1/filters/${other.body.id}`)
          .set(bearer(admin))
          .send(body({ name: "Линия два", inboundNumber: "380441230077" }))
      ).status,
    ).toBe(409);

    // A deactivated topic frees it; activating it again while another has it is refused, and it stays off.
    expect((await t.request.put(`/api/v1/filters/${one.body.id}/activate`).set(bearer(admin))).body.isActive).toBe(false);
    const moved = await t.request
      .put(`/api/v1/filters/${other.body.id}`)
      .set(bearer(admin))
      .send(body({ name: "Линия два", inboundNumber: "0441230077" }));
    expect(moved.status).toBe(200);
    expect(moved.body.inboundNumber).toBe("+380441230077");
    const back = await t.request.put(`/api/v1/filters/${one.body.id}/activate`).set(bearer(admin));
    expect(back.status).toBe(409);
    expect(back.body.message).toBe(TAKEN.replace("Линия один", "Линия два"));
    expect((await shownOf(one.body.id)).isActive).toBe(false);
    // Cleared, the number is free again.
    expect(
      (
        await t.request
          .put(`/api/v1/filters/${other.body.id}`)
          .set(bearer(admin))
          .send(body({ name: "Линия два", inboundNumber: "" }))
      ).body.inboundNumber,
    ).toBe("");
    expect((await t.request.put(`/api/v1/filters/${one.body.id}/activate`).set(bearer(admin))).body.isActive).toBe(true);

    const byManager = await t.request
      .put(`/api/v1/filters/${one.body.id}`)
      .set(bearer(olgaToken))
      .send(body({ name: "Линия один", inboundNumber: "+380441230088" }));
    expect(byManager.status).toBe(403);
    expect((await shownOf(one.body.id)).inboundNumber).toBe("+380441230077");
  });

  it("the topic form without JavaScript: shows the number, saves it, says a refusal under its field and saves nothing", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const created = await t.request
      .post("/api/v1/filters")
      .set(bearer(admin))
      .send(body({ name: "Линия в форме" }));
    const page = `/loadedbases/filters/${created.body.id}`;
    const topic = [
      ["intent", "save"],
      ["name", "Линия в форме"],
      ["managers", String(olga.user.id)],
      ["databases", String(baseA)],
      ["statuses", String(callBack)],
    ];
    const post = (number: string) => postPlainForm(page, cookie, [...topic, ["inboundNumber", number]]);
    expect(field((await getPage(t, page, cookie)).text, "inboundNumber")).toMatchObject({ invalid: false, value: null });

    expect((await post("044 123 00 55")).status).toBe(302);
    expect((await shownOf(created.body.id)).inboundNumber).toBe("+380441230055");
    const form = (await getPage(t, page, cookie)).text;
    expect(field(form, "inboundNumber").value).toBe("+380441230055");
    expect(form).toContain("Номер может быть только у одной активной тематики");
    // Decision 083: the field is both the number calls in reach and the one the topic's calls out show.
    expect(form).toMatch(/<legend[^>]*>Входящие и исходящие звонки<\/legend>/);

    const bad = await post("12345");
    expect(bad.status).toBe(400);
    expect(field(bad.text, "inboundNumber")).toMatchObject({ invalid: true, value: "12345" });
    expect(field(bad.text, "inboundNumber").message).toMatch(
      /^Номер линии \(входящие и номер, который видят клиенты\): «12345» — неполный или несуществующий номер телефона/,
    );

    const taken = await post("+380441230077");
    expect(taken.status).toBe(409);
    expect(field(taken.text, "inboundNumber")).toMatchObject({ invalid: true, value: "+380441230077", message: TAKEN });
    expect((await shownOf(created.body.id)).inboundNumber).toBe("+380441230055");

    // Emptied: none.
    expect((await postPlainForm(page, cookie, topic)).status).toBe(302);
    expect((await shownOf(created.body.id)).inboundNumber).toBe("");
  });
});
