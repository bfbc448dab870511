import { beforeAll, describe, expect, it } from "vitest";
import { bearer, createUser, useTestApp } from "../helpers/app";

let admin: string;
let manager: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
  manager = await t.tokenFor(await createUser(t.db, { login: "link-manager" }));
});

async function create(name: string, link = "https://example.com/", isActive = true) {
  const res = await t.request.post("/api/v1/links").set(bearer(admin)).send({ name, link, isActive });
  expect(res.status).toBe(200);
  return res.body as { id: number; name: string; link: string; isActive: boolean };
}

describe("links", () => {
  it("creates links and lists them all sorted by id (admin), the active ones for a manager", async () => {
    const a = await create("Калькулятор", "https://calc.example.com/");
    const b = await create("Архив", "http://archive.example.com/x", false);
    const c = await create("Карта", "https://maps.example.com/");
    const all = await t.request.get("/api/v1/links").set(bearer(admin));
    expect(all.status).toBe(200);
    expect(all.body).toEqual([a, b, c]);
    expect(b).toEqual({ id: expect.any(Number), name: "Архив", link: "http://archive.example.com/x", isActive: false });

    const active = await t.request.get("/api/v1/links/allActive").set(bearer(manager));
    expect(active.status).toBe(200);
    expect(active.body).toEqual([a, c]);
    expect((await t.request.get("/api/v1/links").set(bearer(manager))).status).toBe(403);
    expect((await t.request.get("/api/v1/links")).status).toBe(401);
    expect((await t.request.get("/api/v1/links/allActive")).status).toBe(401);
  });

  it("updates, toggles and deletes a link", async () => {
    const { id } = await create("Старое");
    const put = await t.request.put(`/api/v1/links/${id}`).set(bearer(admin)).send({ name: "Новое", link: "https://new.example.com/" });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id, name: "Новое", link: "https://new.example.com/", isActive: true });
    const off = await t.request.put(`/api/v1/links/${id}/activate`).set(bearer(admin));
    expect(off.body).toMatchObject({ id, isActive: false });
    const del = await t.request.delete(`/api/v1/links/${id}`).set(bearer(admin));
    expect(del.status).toBe(200);
    expect(del.body.message).toBe("Ссылка удалена");
    expect((await t.request.delete(`/api/v1/links/${id}`).set(bearer(admin))).status).toBe(404);
  });

  it.each([
    [{ link: "https://x.example/" }, "Заполните имя ссылки"],
    [{ name: "  ", link: "https://x.example/" }, "Заполните имя ссылки"],
    [{ name: "Пусто" }, "Заполните URL ссылки"],
    [{ name: "Пусто", link: "" }, "Заполните URL ссылки"],
    [{ name: "JS", link: "javascript:alert(1)" }, "Ссылка должна быть адресом вида https://…"],
    [{ name: "Data", link: "data:text/html,<script>alert(1)</script>" }, "Ссылка должна быть адресом вида https://…"],
    [{ name: "Не адрес", link: "просто текст" }, "Ссылка должна быть адресом вида https://…"],
  ])("refuses %j with 400 and a message", async (body, message) => {
    const res = await t.request.post("/api/v1/links").set(bearer(admin)).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "validation", message });
  });

  it("answers 404 for an unknown id", async () => {
    const put = await t.request.put("/api/v1/links/999999").set(bearer(admin)).send({ name: "x", link: "https://x.example/" });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ error: "link_not_found", message: "Ссылка не найдена" });
    expect((await t.request.put("/api/v1/links/999999/activate").set(bearer(admin))).status).toBe(404);
  });

  it("keeps writes admin-only: 401 anonymous, 403 for a manager", async () => {
    const { id } = await create("Чужая");
    const calls = [
      () => t.request.post("/api/v1/links").send({ name: "x", link: "https://x.example/" }),
      () => t.request.put(`/api/v1/links/${id}`).send({ name: "x", link: "https://x.example/" }),
      () => t.request.delete(`/api/v1/links/${id}`),
      () => t.request.put(`/api/v1/links/${id}/activate`),
    ];
    for (const call of calls) {
      expect((await call()).status).toBe(401);
      expect((await call().set(bearer(manager))).status).toBe(403);
    }
  });
});
