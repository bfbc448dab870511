import { beforeAll, describe, expect, it } from "vitest";
import { bearer, createUser, useTestApp } from "../helpers/app";

let admin: string;
let manager: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
  manager = await t.tokenFor(await createUser(t.db, { login: "status-manager" }));
});

const json = { "Content-Type": "application/json" };

describe("GET /api/v1/status and /status/visible", () => {
  it("lists every seeded status for an admin, technical first and report last", async () => {
    const res = await t.request.get("/api/v1/status").set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.map((s: { text: string }) => s.text)).toEqual([
      "Не дозвонился",
      "Занято",
      "Перезвонить",
      "Не интересно",
      "Заявка",
    ]);
    expect(res.body[0]).toEqual({
      id: expect.any(Number),
      text: "Не дозвонился",
      buttonText: "Недозвон",
      color: "#6b7280",
      isHidden: false,
      description: "",
      order: 0,
      isReportStatus: false,
      isTechnical: true,
      isDoNotCall: false,
      asksCallback: false,
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
