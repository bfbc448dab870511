import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer, createUser, pageSessionCookie, postPageForm, useTestApp } from "../helpers/app";

let admin: string;
let manager: string;
const t = useTestApp({ web: true });
beforeAll(async () => {
  admin = await t.adminToken();
  manager = await t.tokenFor(await createUser(t.db, { login: "status-manager" }));
});

const json = { "Content-Type": "application/json" };

describe("GET /api/v1/status and /status/visible", () => {
  it("lists every seeded status for an admin, technical first and report last", async () => {
    const res = await t.request.get("/api/v1/status").set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.map((s: { text: string }) => s.text)).toEqual(["Недозвон", "Занято", "Перезвонить", "Отказ", "Заявка"]);
    expect(res.body[0]).toEqual({
      id: expect.any(Number),
      text: "Недозвон",
      buttonText: "Недозвон",
      color: "#6b7280",
      isHidden: false,
      description: "",
      order: 0,
      isReportStatus: false,
      isTechnical: true,
      isDoNotCall: false,
      asksCallback: false,
      hotkey: null,
    });
  });

  it("answers 401 without a token and 403 for a manager on the full list", async () => {
    expect((await t.request.get("/api/v1/status")).status).toBe(401);
    expect((await t.request.get("/api/v1/status/visible")).status).toBe(401);
    const res = await t.request.get("/api/v1/status").set(bearer(manager));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Недостаточно прав для этого действия");
  });

  it("lets a manager read the visible statuses, and hides a hidden one from him", async () => {
    const created = await t.request
      .post("/api/v1/status")
      .set(bearer(admin))
      .send({ text: "Скрытый для менеджера", color: "#123456", isHidden: true, description: "", order: 50 });
    expect(created.status).toBe(200);
    const res = await t.request.get("/api/v1/status/visible").set(bearer(manager));
    expect(res.status).toBe(200);
    const texts = res.body.map((s: { text: string }) => s.text);
    expect(texts).toContain("Заявка");
    expect(texts).not.toContain("Скрытый для менеджера");
  });
});

describe("POST /api/v1/status", () => {
  it("creates a status with order = count of all statuses when none is given", async () => {
    const all = await t.request.get("/api/v1/status").set(bearer(admin));
    const res = await t.request.post("/api/v1/status").set(bearer(admin)).send({ text: "Новый статус", color: "#F59E0B" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      text: "Новый статус",
      buttonText: "Новый статус",
      color: "#f59e0b",
      isHidden: false,
      description: "",
      order: all.body.length,
      isReportStatus: false,
      isTechnical: false,
    });
  });

  it.each([
    [{ color: "#ffffff" }, "Введите текст статуса"],
    [{ text: "   ", color: "#ffffff" }, "Введите текст статуса"],
    [{ text: "Цвет", color: "red" }, "Неверный цвет: ожидается вид #rrggbb"],
    [{ text: "Цвет", color: "#fff" }, "Неверный цвет: ожидается вид #rrggbb"],
    [{ text: "Флаг", isHidden: "yes" }, "Ожидается true или false"],
  ])("refuses %j with 400 and a Russian message", async (body, message) => {
    const res = await t.request.post("/api/v1/status").set(bearer(admin)).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "validation", message });
  });

  it("answers 401 without a token and 403 for a manager", async () => {
    expect((await t.request.post("/api/v1/status").send({ text: "x" })).status).toBe(401);
    const res = await t.request.post("/api/v1/status").set(bearer(manager)).send({ text: "x" });
    expect(res.status).toBe(403);
  });
});

describe("PUT, DELETE and the toggles", () => {
  async function fresh(text: string) {
    const res = await t.request.post("/api/v1/status").set(bearer(admin)).send({ text, color: "#000000" });
    return res.body as { id: number };
  }

  it("updates every field of a status", async () => {
    const { id } = await fresh("Для правки");
    const res = await t.request.put(`/api/v1/status/${id}`).set(bearer(admin)).send({
      id,
      text: "Перезвонить завтра",
      buttonText: "Завтра",
      color: "#ABCDEF",
      isReportStatus: true,
      isHidden: false,
      description: "утром",
      order: 7,
      isDoNotCall: true,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id,
      text: "Перезвонить завтра",
      buttonText: "Завтра",
      color: "#abcdef",
      isHidden: false,
      description: "утром",
      order: 7,
      isReportStatus: true,
      isTechnical: false,
      isDoNotCall: true,
      asksCallback: false,
      hotkey: null,
    });
  });

  it("refuses a bad colour and a blank text on update, 404 for an unknown id, 400 for a bad id", async () => {
    const { id } = await fresh("Плохая правка");
    const badColor = await t.request.put(`/api/v1/status/${id}`).set(bearer(admin)).send({ color: "#12345g" });
    expect(badColor.status).toBe(400);
    expect(badColor.body.message).toBe("Неверный цвет: ожидается вид #rrggbb");
    const blank = await t.request.put(`/api/v1/status/${id}`).set(bearer(admin)).send({ text: "" });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe("Введите текст статуса");
    const unknown = await t.request.put("/api/v1/status/999999").set(bearer(admin)).send({ text: "x" });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: "status_not_found", message: "Статус не найден" });
    const badId = await t.request.put("/api/v1/status/abc").set(bearer(admin)).send({ text: "x" });
    expect(badId.status).toBe(400);
    expect(badId.body.message).toBe("Неверный идентификатор");
  });

  it("toggles visibility and answers the status with its new isHidden", async () => {
    const { id } = await fresh("Прятки");
    const hide = await t.request.put(`/api/v1/status/${id}/visibility`).set(bearer(admin)).set(json);
    expect(hide.status).toBe(200);
    expect(hide.body).toMatchObject({ id, isHidden: true });
    const visible = await t.request.get("/api/v1/status/visible").set(bearer(admin));
    expect(visible.body.some((s: { id: number }) => s.id === id)).toBe(false);
    const show = await t.request.put(`/api/v1/status/${id}/visibility`).set(bearer(admin));
    expect(show.body).toMatchObject({ id, isHidden: false });
  });

  it("toggles technical, which moves the status to the top of the list", async () => {
    const { id } = await fresh("Автоответчик");
    const res = await t.request.put(`/api/v1/status/${id}/technical`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, isTechnical: true });
    const all = await t.request.get("/api/v1/status").set(bearer(admin));
    const technical = all.body.filter((s: { isTechnical: boolean }) => s.isTechnical).map((s: { id: number }) => s.id);
    expect(all.body.slice(0, technical.length).map((s: { id: number }) => s.id)).toEqual(technical);
    expect(technical).toContain(id);
  });

  it("deletes a status: it is gone from the list, and a second delete is 404", async () => {
    const { id } = await fresh("Удаляемый");
    const res = await t.request.delete(`/api/v1/status/${id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    const all = await t.request.get("/api/v1/status").set(bearer(admin));
    expect(all.body.some((s: { id: number }) => s.id === id)).toBe(false);
    expect((await t.request.delete(`/api/v1/status/${id}`).set(bearer(admin))).status).toBe(404);
  });

  it("keeps every write admin-only: 401 anonymous, 403 for a manager", async () => {
    const { id } = await fresh("Чужой");
    const calls = [
      () => t.request.put(`/api/v1/status/${id}`).send({ text: "x" }),
      () => t.request.delete(`/api/v1/status/${id}`),
      () => t.request.put(`/api/v1/status/${id}/visibility`),
      () => t.request.put(`/api/v1/status/${id}/technical`),
    ];
    for (const call of calls) {
      expect((await call()).status).toBe(401);
      const res = await call().set(bearer(manager));
      expect(res.status).toBe(403);
      expect(res.body.message).toBe("Недостаточно прав для этого действия");
    }
    const all = await t.request.get("/api/v1/status").set(bearer(admin));
    expect(all.body.find((s: { id: number }) => s.id === id)).toMatchObject({ text: "Чужой", isHidden: false, isTechnical: false });
  });
});

describe("the lead panel's key of a status (issue 31)", () => {
  const create = async (text: string, hotkey?: number) =>
    (
      await t.request
        .post("/api/v1/status")
        .set(bearer(admin))
        .send({ text, color: "#123456", ...(hotkey ? { hotkey } : {}) })
    ).body as { id: number; hotkey: number | null };

  it("sets a digit, takes it from the status that had it, clears it with null, and refuses anything but 1-9", async () => {
    const first = await create("Клавиша один", 7);
    expect(first.hotkey).toBe(7);
    const second = await create("Клавиша два");
    const moved = await t.request.put(`/api/v1/status/${second.id}`).set(bearer(admin)).send({ hotkey: 7 });
    expect(moved.status).toBe(200);
    expect(moved.body.hotkey).toBe(7);
    const all = (await t.request.get("/api/v1/status").set(bearer(admin))).body as Array<{ id: number; hotkey: number | null }>;
    expect(all.filter((s) => s.hotkey === 7).map((s) => s.id)).toEqual([second.id]);
    const cleared = await t.request.put(`/api/v1/status/${second.id}`).set(bearer(admin)).send({ hotkey: null });
    expect(cleared.body.hotkey).toBeNull();
    for (const bad of [0, 10, 2.5, "x"]) {
      const res = await t.request.put(`/api/v1/status/${second.id}`).set(bearer(admin)).send({ hotkey: bad });
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.message).toBe("Клавиша — цифра от 1 до 9");
    }
  });
});

describe("/edit-statuses without JavaScript (issue 31)", () => {
  it("refuses an empty name with a Russian message and keeps the status's text", async () => {
    const cookie = await pageSessionCookie(t, ADMIN);
    const { id } = (await t.request.post("/api/v1/status").set(bearer(admin)).send({ text: "Не пустой", color: "#123456" })).body as { id: number };
    const res = await postPageForm(t, `/edit-statuses?edit=${id}`, cookie, {
      intent: "update",
      id: String(id),
      text: "  ",
      buttonText: "",
      color: "#123456",
      hotkey: "",
    });
    expect(res.status).toBe(400);
    expect(res.text).toContain("Введите текст статуса");
    const all = (await t.request.get("/api/v1/status").set(bearer(admin))).body as Array<{ id: number; text: string }>;
    expect(all.find((s) => s.id === id)?.text).toBe("Не пустой");
    const keyed = await postPageForm(t, "/edit-statuses", cookie, {
      intent: "update",
      id: String(id),
      text: "Не пустой",
      buttonText: "",
      color: "#123456",
      hotkey: "3",
    });
    expect(keyed.status).toBe(302);
    const after = (await t.request.get("/api/v1/status").set(bearer(admin))).body as Array<{ id: number; hotkey: number | null }>;
    expect(after.find((s) => s.id === id)?.hotkey).toBe(3);
  });
});
