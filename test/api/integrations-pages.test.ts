import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { webhookDeliveries, webhooks } from "../../db/schema";
import { ADMIN, bearer, createUser, getPage, pageSessionCookie, postPageForm, useTestApp, flashCookie } from "../helpers/app";

/** Issue 44: /integrations changes a webhook's address and events after it was made, as a plain form post (no JavaScript). */
let cookie: string;
let admin: string;
const t = useTestApp({ web: true });
beforeAll(async () => {
  cookie = await pageSessionCookie(t, ADMIN);
  admin = await t.adminToken();
});

const hookRow = async (id: number) => (await t.db.select().from(webhooks).where(eq(webhooks.id, id)))[0];
const fieldErrors = (html: string) => [...html.matchAll(/data-field-error=""[^>]*>([^<]*)</g)].map((m) => m[1]);

describe("/integrations without JavaScript: editing a webhook", () => {
  it("opens the form filled in, refuses a bad address and no event next to the fields, and saves a change", async () => {
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: "https://crm.example.com/old", events: ["report.sent"] });
    expect(made.status).toBe(200);
    const id: number = made.body.id;

    const list = await getPage(t, "/integrations", cookie);
    expect(list.status).toBe(200);
    expect(list.text).toContain(`href="/integrations?edit=${id}#webhook-${id}"`);
    expect(list.text).not.toContain('data-testid="webhook-edit"');

    const open = await getPage(t, `/integrations?edit=${id}`, cookie);
    expect(open.status).toBe(200);
    const form = open.text.slice(open.text.indexOf('data-testid="webhook-edit"'));
    expect(form).toContain('value="https://crm.example.com/old"');
    const ticked = [...form.matchAll(/<input type="checkbox" name="events"[^>]*>/g)].filter((m) => m[0].includes("checked")).map((m) => m[0]);
    expect(ticked).toHaveLength(1);
    expect(ticked[0]).toContain('value="report.sent"');
    expect(form).toContain("Сохранить");

    const bad = await postPageForm(t, `/integrations?edit=${id}`, cookie, { intent: "edit", id: String(id), url: "ftp://crm", enabled: "on" });
    expect(bad.status).toBe(400);
    expect(fieldErrors(bad.text)).toEqual(["Укажите адрес, начинающийся с http:// или https://", "Выберите хотя бы одно событие"]);
    // What was typed stays in the form to correct.
    expect(bad.text).toContain('value="ftp://crm"');
    expect(await hookRow(id)).toMatchObject({ url: "https://crm.example.com/old", events: ["report.sent"], enabled: true });

    // «Включён» unticked: the webhook is switched off with its new address and events.
    const saved = await postPageForm(t, `/integrations?edit=${id}`, cookie, {
      intent: "edit",
      id: String(id),
      url: " https://crm.example.com/new ",
      events: ["call.ended", "base.imported"],
    });
    expect(saved.status).toBe(302);
    expect(saved.headers.location).toBe(`/integrations?log=${id}`);
    expect(await hookRow(id)).toMatchObject({ url: "https://crm.example.com/new", events: ["call.ended", "base.imported"], enabled: false });
    // The toast rides in the flash cookie the redirect sets.
    const flash = flashCookie(saved);
    const after = await getPage(t, saved.headers.location, `${cookie}; ${flash}`);
    expect(after.text).toContain("Вебхук изменён");
    expect(after.text).toContain("https://crm.example.com/new");
    expect(after.text).toContain("Звонок завершён, База загружена");
  });

  it("refuses an unknown webhook with a Russian message, and a manager's post", async () => {
    const gone = await postPageForm(t, "/integrations", cookie, {
      intent: "edit",
      id: "999999",
      url: "https://crm.example.com/x",
      events: ["call.ended"],
      enabled: "on",
    });
    expect(gone.status).toBe(404);
    expect(gone.text).toContain("Вебхук не найден");

    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: "https://crm.example.com/kept", events: ["report.sent"] });
    const manager = await createUser(t.db);
    const managerCookie = await pageSessionCookie(t, manager);
    const refused = await postPageForm(t, "/integrations", managerCookie, {
      intent: "edit",
      id: String(made.body.id),
      url: "https://evil.example.com/",
      events: ["status.pressed"],
    });
    expect(refused.status).toBe(403);
    expect(await hookRow(made.body.id)).toMatchObject({ url: "https://crm.example.com/kept", enabled: true });
  });
});

describe("/integrations: the delivery log in pages", () => {
  it("shows 50 deliveries a page, newest first, with a pager (no JavaScript); the API pages with limit and offset", async () => {
    const made = await t.request
      .post("/api/v1/webhooks")
      .set(bearer(admin))
      .send({ url: "https://crm.example.com/paged", events: ["base.imported"], enabled: false });
    expect(made.status).toBe(200);
    const id: number = made.body.id;
    // 60 events delivered, the newest «msg_60».
    await t.db.insert(webhookDeliveries).values(
      Array.from({ length: 60 }, (_, i) => ({
        webhookId: id,
        messageId: `msg_${i + 1}`,
        eventType: "base.imported",
        payload: { type: "base.imported", timestamp: new Date().toISOString(), data: {} },
        state: "delivered",
      })),
    );
    const messages = (html: string) => [...html.matchAll(/<code[^>]*>(msg_\d+)<\/code>/g)].map((m) => m[1]);
    const first = await getPage(t, `/integrations?log=${id}`, cookie);
    expect(first.status).toBe(200);
    expect(messages(first.text)).toHaveLength(50);
    expect(messages(first.text)[0]).toBe("msg_60");
    expect(first.text).toMatch(/Всего: (<!-- -->)?60/);
    expect(first.text).toContain(`href="/integrations?log=${id}&amp;page=2#log"`);
    const second = await getPage(t, `/integrations?log=${id}&page=2`, cookie);
    expect(messages(second.text)).toEqual(["msg_10", "msg_9", "msg_8", "msg_7", "msg_6", "msg_5", "msg_4", "msg_3", "msg_2", "msg_1"]);
    // A page past the end shows the last one.
    expect(messages((await getPage(t, `/integrations?log=${id}&page=9`, cookie)).text)).toHaveLength(10);

    const api = await t.request.get(`/api/v1/webhooks/${id}/deliveries?limit=5&offset=56`).set(bearer(admin));
    expect(api.status).toBe(200);
    expect(api.headers["x-total-count"]).toBe("60");
    expect(api.body.map((d: { messageId: string }) => d.messageId)).toEqual(["msg_4", "msg_3", "msg_2", "msg_1"]);
    const bad = await t.request.get(`/api/v1/webhooks/${id}/deliveries?limit=500`).set(bearer(admin));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Неверный размер страницы журнала (от 1 до 200)");
  });
});
