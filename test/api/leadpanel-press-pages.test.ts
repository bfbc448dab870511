import { eq, sql } from "drizzle-orm";
import { databases, templates } from "../../db/schema";
import { field } from "../helpers/form-fields";
import { describe, expect, it } from "vitest";
import { queryRows } from "../../db/client";
import { createUser, getPage, pageSessionCookie, postPageForm, useTestApp, flashCookie } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

/**
 * A status press on /leadpanel without JavaScript (a plain post of the panel's form): what a refused press says,
 * and the message a recorded one leaves for the next page (the report's forward, the scheduled callback).
 * The forwarding endpoint is a closed port: every forward fails.
 */
const t = useTestApp({ web: true, env: { APPLICATION_FORWARD_URL: "http://127.0.0.1:1/applications" } });

/** A manager holding the first lead of a fresh topic with the seeded statuses, and that lead's id. */
async function managerOnPanel() {
  const s = await statusesByText(t.db);
  const { base } = await createBase(t.db, { count: 2 });
  const manager = await createUser(t.db);
  const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: Object.values(s).map((x) => x.id) });
  await t.db.execute(sql`update users set getting_filter = ${filter.id} where id = ${manager.user.id}`);
  const cookie = await pageSessionCookie(t, manager);
  const panel = await getPage(t, "/leadpanel", cookie);
  expect(panel.status).toBe(200);
  return { s, cookie, managerId: manager.user.id, contactId: /name="contactId" value="(\d+)"/.exec(panel.text)![1] };
}

const eventsOf = (contactId: string) => queryRows(t.db, sql`select id from lead_events where contact_id = ${contactId}`);

/** The page a plain post is redirected to, with the message the redirect left (its flash cookie). */
async function pageAfter(res: { status: number; headers: Record<string, string | string[] | undefined> }, cookie: string) {
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe("/leadpanel");
  return getPage(t, "/leadpanel", [cookie, flashCookie(res)].filter(Boolean).join("; "));
}

describe("the client card (issue 41)", () => {
  it("starts a template field named as a base column with the client's value: «ФИО клиента», an import header; others empty", async () => {
    const { base, contacts } = await createBase(t.db, { count: 1 });
    await t.db
      .update(databases)
      .set({ extraLabels: ["Сумма долга", "", "", ""] })
      .where(eq(databases.id, base.id));
    const fields = [
      { label: "ФИО клиента", type: "text" },
      { label: "Сумма долга:", type: "text" },
      { label: "Комментарий", type: "textarea" },
    ];
    const [template] = await t.db
      .insert(templates)
      .values({ name: "Долги", templateFields: JSON.stringify(fields) })
      .returning();
    const manager = await createUser(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [], templateId: template.id });
    await t.db.execute(sql`update users set getting_filter = ${filter.id} where id = ${manager.user.id}`);
    const panel = await getPage(t, "/leadpanel", await pageSessionCookie(t, manager));
    expect(field(panel.text, "cardValue")).toMatchObject({ value: contacts[0].name });
    const values = [...panel.text.matchAll(/<(input|textarea)\b[^>]*\bid="card-(\d)"[^>]*>([^<]*)/g)].map((m) =>
      m[1] === "input" ? (/\bvalue="([^"]*)"/.exec(m[0])?.[1] ?? "") : m[3],
    );
    expect(values).toEqual([contacts[0].name, contacts[0].additionalInfo1, ""]);
  });
});

describe("a press without JavaScript", () => {
  it("answers a status id that names no status «Такого статуса нет» (400), and records nothing", async () => {
    const { cookie, contactId } = await managerOnPanel();
    for (const statusId of [null, "", "abc", "0", "-3", "1.5", "99999999999", "987654"]) {
      const res = await postPageForm(t, "/leadpanel", cookie, {
        intent: "status",
        contactId,
        passport: "",
        ...(statusId === null ? {} : { statusId }),
      });
      expect({ statusId, status: res.status }).toEqual({ statusId, status: 400 });
      expect(res.text).toContain("Такого статуса нет");
    }
    expect(await eventsOf(contactId)).toHaveLength(0);
  });

  it("answers a callback time it does not know «Неверное время перезвона» (400), with the question again", async () => {
    const { s, cookie, contactId } = await managerOnPanel();
    await t.db.execute(sql`update statuses set asks_callback = true where id = ${s["Перезвонить"].id}`);
    const statusId = String(s["Перезвонить"].id);
    const res = await postPageForm(t, "/leadpanel", cookie, { intent: "status", statusId, contactId, passport: "", callbackPreset: "someday" });
    expect(res.status).toBe(400);
    expect(res.text).toContain("Неверное время перезвона");
    expect(res.text).toContain("Когда перезвонить? Время киевское.");
    expect(await eventsOf(contactId)).toHaveLength(0);

    // A quick choice it knows: recorded, and the next page says when.
    const done = await postPageForm(t, "/leadpanel", cookie, { intent: "status", statusId, contactId, passport: "", callbackPreset: "15m" });
    expect((await pageAfter(done, cookie)).text).toMatch(/Перезвон запланирован на \d\d\.\d\d\.\d{4}, \d\d:\d\d/);
    expect(await eventsOf(contactId)).toHaveLength(1);
  });

  it("records a confirmed report at once, «Данные отправлены», with its forward queued for APPLICATION_FORWARD_URL's webhook", async () => {
    const { s, cookie, contactId } = await managerOnPanel();
    const report = {
      intent: "status",
      statusId: String(s["Заявка"].id),
      contactId,
      passport: "",
      cardLabel: "Комментарий",
      cardValue: "Хочет тариф",
    };
    const asked = await postPageForm(t, "/leadpanel", cookie, report);
    expect(asked.status).toBe(200);
    expect(await eventsOf(contactId)).toHaveLength(0);
    const done = await postPageForm(t, "/leadpanel", cookie, { ...report, confirmed: "1" });
    expect((await pageAfter(done, cookie)).text).toContain("Данные отправлены");
    const stored = await queryRows<{ text: string }>(t.db, sql`select application_text as text from applications where contact_id = ${contactId}`);
    expect(stored.map((a) => a.text)).toEqual([expect.stringContaining("Хочет тариф")]);
    // The receiver (a closed port) never answers: the report waits in the queue of the URL's webhook, retried.
    const queued = await queryRows<{ url: string; state: string; client: number }>(
      t.db,
      sql`select w.url, d.state, d.order_key::int as client from webhook_deliveries d join webhooks w on w.id = d.webhook_id
          where w.from_env and d.event_type = 'report.sent' and d.order_key = ${contactId}`,
    );
    expect(queued).toEqual([{ url: "http://127.0.0.1:1/applications", state: "pending", client: Number(contactId) }]);
  });
});

/**
 * The press with JavaScript, POST /leadpanel/press: served by app/press.server.ts's `press` outside Remix's request handler
 * (decision 068), with the same answers as the pages' other posts.
 */
describe("a press from the panel's script", () => {
  const press = (cookie: string | null, contactId: string, statusId: string) =>
    postPageForm(t, "/leadpanel/press", cookie, { intent: "status", statusId, contactId, passport: "", answer: "panel" });

  it("answers the next lead as JSON in one piece, with its length, not stored", async () => {
    const { s, cookie, contactId } = await managerOnPanel();
    const res = await press(cookie, contactId, String(s["Отказ"].id));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(Number(res.headers["content-length"])).toBe(Buffer.byteLength(res.text));
    expect(res.headers["cache-control"]).toBe("no-store, no-transform");
    expect(res.body.error).toBeNull();
    expect(String(res.body.next.lead.id)).not.toBe(contactId);
    expect(await eventsOf(contactId)).toHaveLength(1);
  });

  it("refuses a status that names none «Такого статуса нет» (400), as JSON", async () => {
    const { cookie, contactId } = await managerOnPanel();
    const res = await press(cookie, contactId, "999999");
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe("Такого статуса нет");
    expect(await eventsOf(contactId)).toHaveLength(0);
  });

  it("asks what a status needs when the press came without it, and records and claims nothing until then", async () => {
    const { s, cookie, contactId } = await managerOnPanel();
    await t.db.execute(sql`update statuses set asks_callback = true where id = ${s["Перезвонить"].id}`);
    const card = { cardLabel: "Сумма", cardValue: "15000" };
    const send = (statusId: number, extra: Record<string, string>) =>
      postPageForm(t, "/leadpanel/press", cookie, {
        intent: "status",
        statusId: String(statusId),
        contactId,
        passport: "",
        answer: "panel",
        ...extra,
      });
    // A report with an empty card: said, not asked.
    const empty = await send(s["Заявка"].id, { cardLabel: "Сумма", cardValue: " ", confirmed: "1" });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toEqual({ code: "client_card_empty", message: "Заполните карточку клиента" });
    // A report not confirmed (the page's dialog was skipped, or the status became a report since it was loaded).
    const report = await send(s["Заявка"].id, card);
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ error: null, next: null, confirm: { statusId: String(s["Заявка"].id), statusText: "Заявка", contactId } });
    // A callback status with no time: its question, with the press as it came.
    const callback = await send(s["Перезвонить"].id, card);
    expect(callback.body).toMatchObject({ error: null, next: null, callback: { statusText: "Перезвонить", contactId, confirmed: false } });
    expect(await eventsOf(contactId)).toHaveLength(0);
    const held = await queryRows<{ n: number }>(
      t.db,
      sql`select count(*)::int as n from contacts where held_by = (select held_by from contacts where id = ${contactId})`,
    );
    expect(held[0].n).toBe(1);
    // Confirmed, it is recorded and the next lead comes.
    const done = await send(s["Заявка"].id, { ...card, confirmed: "1" });
    expect(done.body.error).toBeNull();
    expect(String(done.body.next.lead.id)).not.toBe(contactId);
    expect(await eventsOf(contactId)).toHaveLength(1);
  });

  it("sends a press with no session to the login page, and one from another site away", async () => {
    const { s, cookie, contactId } = await managerOnPanel();
    const stranger = await press(null, contactId, String(s["Отказ"].id));
    expect(stranger.status).toBe(302);
    expect(stranger.headers.location).toBe("/auth");
    const forged = await t.request
      .post("/leadpanel/press")
      .set("Host", "127.0.0.1")
      .set("Origin", "https://evil.example")
      .set("Cookie", cookie)
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(`intent=status&statusId=${s["Отказ"].id}&contactId=${contactId}&answer=panel`);
    expect(forged.status).toBe(403);
    expect(await eventsOf(contactId)).toHaveLength(0);
  });

  it("checks the session in the press itself: an expired or ended one is sent to log in, and nothing is recorded", async () => {
    const { s, cookie, managerId, contactId } = await managerOnPanel();
    const statusId = String(s["Отказ"].id);
    const heldBy = async () =>
      (await queryRows<{ held_by: number | null }>(t.db, sql`select held_by from contacts where id = ${contactId}`))[0].held_by;
    const toLogin = (res: { status: number; headers: Record<string, string | string[] | undefined> }) => {
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe("/auth");
      expect(String(res.headers["set-cookie"])).toMatch(/session=;.*Max-Age=0/);
    };
    await t.db.execute(sql`update sessions set expires_at = now() - interval '1 minute' where user_id = ${managerId}`);
    toLogin(await press(cookie, contactId, statusId));
    // The plain post of a page without JavaScript is the same action.
    toLogin(await postPageForm(t, "/leadpanel", cookie, { intent: "status", statusId, contactId, passport: "" }));
    expect(await eventsOf(contactId)).toHaveLength(0);
    expect(await heldBy()).toBe(managerId);

    // «Завершить сессию» or a logout elsewhere deletes the session: the same.
    await t.db.execute(sql`update sessions set expires_at = now() + interval '1 day' where user_id = ${managerId}`);
    await t.db.execute(sql`delete from sessions where user_id = ${managerId}`);
    toLogin(await press(cookie, contactId, statusId));
    expect(await eventsOf(contactId)).toHaveLength(0);
    expect(await heldBy()).toBe(managerId);
  });

  it("presses with a live session only for its own user: another manager's lead is not his to press", async () => {
    const mine = await managerOnPanel();
    const other = await managerOnPanel();
    const res = await press(mine.cookie, other.contactId, String(mine.s["Отказ"].id));
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe("Этот клиент уже не закреплён за вами: обновите страницу, чтобы получить следующего");
    expect(await eventsOf(other.contactId)).toHaveLength(0);
    const own = await press(mine.cookie, mine.contactId, String(mine.s["Отказ"].id));
    expect(own.status).toBe(200);
    expect(await eventsOf(mine.contactId)).toHaveLength(1);
  });

  it("refuses a body over its limit «Слишком большой запрос» (413), and records nothing", async () => {
    const { s, cookie, contactId } = await managerOnPanel();
    const res = await postPageForm(t, "/leadpanel/press", cookie, {
      intent: "status",
      statusId: String(s["Отказ"].id),
      contactId,
      passport: "",
      answer: "panel",
      cardLabel: "Сумма",
      cardValue: "x".repeat(300_000),
    });
    expect(res.status).toBe(413);
    expect(res.text).toBe("Слишком большой запрос");
    expect(await eventsOf(contactId)).toHaveLength(0);
  });
});
