import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { users } from "../../db/schema";
import { loadLeadPanel } from "../../server/core/leads/panel";
import { getTemplate } from "../../server/core/templates/templates";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

let admin: string;
let manager: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
  manager = await t.tokenFor(await createUser(t.db, { login: "template-manager" }));
});

const FIELDS = JSON.stringify([
  { label: "Паспорт", type: "text" },
  { label: "Комментарий", type: "textarea" },
]);

async function create(name = "Кредит", templateFields = FIELDS) {
  const res = await t.request.post("/api/v1/templates").set(bearer(admin)).send({ name, isActive: true, templateFields });
  expect(res.status).toBe(200);
  return res.body as { id: number; name: string; isActive: boolean; templateFields: string };
}

describe("templates", () => {
  it("creates a template with fields as JSON text, and anyone logged in can list it", async () => {
    const created = await create();
    expect(created).toEqual({ id: expect.any(Number), name: "Кредит", isActive: true, templateFields: FIELDS });
    const asManager = await t.request.get("/api/v1/templates").set(bearer(manager));
    expect(asManager.status).toBe(200);
    expect(asManager.body).toContainEqual(created);
    expect((await t.request.get("/api/v1/templates")).status).toBe(401);
  });

  it("updates name and fields, keeping isActive when it is not sent", async () => {
    const { id } = await create("Старое имя");
    const fields = JSON.stringify([{ label: "Город", type: "text" }]);
    const res = await t.request.put(`/api/v1/templates/${id}`).set(bearer(admin)).send({ name: "Новое имя", templateFields: fields });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id, name: "Новое имя", isActive: true, templateFields: fields });
  });

  it("drops anything but label and type from the stored fields", async () => {
    const created = await create("С value", JSON.stringify([{ label: "Имя", type: "text", value: "Иван", extra: 1 }]));
    expect(JSON.parse(created.templateFields)).toEqual([{ label: "Имя", type: "text" }]);
  });

  it("toggles activation", async () => {
    const { id } = await create("Переключатель");
    const off = await t.request.put(`/api/v1/templates/${id}/activate`).set(bearer(admin));
    expect(off.status).toBe(200);
    expect(off.body.isActive).toBe(false);
    const on = await t.request.put(`/api/v1/templates/${id}/activate`).set(bearer(admin));
    expect(on.body.isActive).toBe(true);
  });

  it("gives managers only an active template: a new one is active, a deactivated one is neither listed nor on the panel", async () => {
    // A fresh install: the admin creates a template without touching activation, and managers get it.
    const res = await t.request
      .post("/api/v1/templates")
      .set(bearer(admin))
      .send({ name: "Новый по умолчанию", templateFields: JSON.stringify([{ label: "Сумма", type: "text" }]) });
    expect(res.body.isActive).toBe(true);
    const id = res.body.id as number;
    const worker = await createUser(t.db, { login: "template-worker" });
    const workerToken = await t.tokenFor(worker);
    const { base } = await createBase(t.db, { count: 2 });
    const statuses = await statusesByText(t.db);
    const filter = await createFilterRow(t.db, {
      managerIds: [worker.user.id],
      databaseIds: [base.id],
      statusIds: [statuses["Заявка"].id],
      templateId: id,
    });
    await t.db.update(users).set({ gettingFilter: filter.id }).where(eq(users.id, worker.user.id));
    const actor = { id: worker.user.id, login: "template-worker", isAdmin: false };
    expect((await loadLeadPanel(t.db, actor, 30, "UA")).template).toEqual({ name: "Новый по умолчанию", fields: [{ label: "Сумма", type: "text" }] });
    expect((await getTemplate(t.db, actor, id)).name).toBe("Новый по умолчанию");

    // Deactivated: not given to managers (panel, list, one by id); the admin still sees and edits it.
    expect((await t.request.put(`/api/v1/templates/${id}/activate`).set(bearer(admin))).body.isActive).toBe(false);
    expect((await loadLeadPanel(t.db, actor, 30, "UA")).template).toBeNull();
    const listed = await t.request.get("/api/v1/templates").set(bearer(workerToken));
    expect(listed.body.map((x: { id: number }) => x.id)).not.toContain(id);
    await expect(getTemplate(t.db, actor, id)).rejects.toThrow("Шаблон не найден");
    const asAdmin = await t.request.get("/api/v1/templates").set(bearer(admin));
    expect(asAdmin.body.find((x: { id: number }) => x.id === id)).toMatchObject({ isActive: false });

    // Activated again: back on the panel.
    await t.request.put(`/api/v1/templates/${id}/activate`).set(bearer(admin));
    expect((await loadLeadPanel(t.db, actor, 30, "UA")).template?.name).toBe("Новый по умолчанию");
  });

  it("deletes a template; a second delete is 404", async () => {
    const { id } = await create("Удаляемый");
    const res = await t.request.delete(`/api/v1/templates/${id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body.message).toBe("Шаблон удален");
    const again = await t.request.delete(`/api/v1/templates/${id}`).set(bearer(admin));
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ status: "error", error: "template_not_found", message: "Шаблон не найден" });
  });

  it.each([
    [{ templateFields: "[]" }, "Введите имя шаблона"],
    [{ name: " ", templateFields: "[]" }, "Введите имя шаблона"],
    [{ name: "x", templateFields: "[{label:" }, "Поля шаблона: некорректный JSON"],
    [{ name: "x", templateFields: '{"label":"a"}' }, "Поля шаблона должны быть списком"],
    [{ name: "x", templateFields: '[{"label":"a","type":"select"}]' }, "Тип поля шаблона должен быть text или textarea"],
    [{ name: "x", templateFields: '[{"label":"","type":"text"}]' }, "У каждого поля шаблона должно быть имя"],
    [{ name: "x", templateFields: 12 }, "Поля шаблона должны быть JSON-списком"],
  ])("refuses %j with 400, status error and a message", async (body, message) => {
    const res = await t.request.post("/api/v1/templates").set(bearer(admin)).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ status: "error", error: "validation", message });
  });

  it("answers 404 for an unknown id on update and activate", async () => {
    const put = await t.request.put("/api/v1/templates/999999").set(bearer(admin)).send({ name: "x", templateFields: "[]" });
    expect(put.status).toBe(404);
    expect((await t.request.put("/api/v1/templates/999999/activate").set(bearer(admin))).status).toBe(404);
  });

  it("keeps writes admin-only: 401 anonymous, 403 for a manager", async () => {
    const { id } = await create("Чужой");
    const calls = [
      () => t.request.post("/api/v1/templates").send({ name: "x", templateFields: "[]" }),
      () => t.request.put(`/api/v1/templates/${id}`).send({ name: "x", templateFields: "[]" }),
      () => t.request.delete(`/api/v1/templates/${id}`),
      () => t.request.put(`/api/v1/templates/${id}/activate`),
    ];
    for (const call of calls) {
      expect((await call()).status).toBe(401);
      const res = await call().set(bearer(manager));
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ status: "error", error: "forbidden", message: "Недостаточно прав для этого действия" });
    }
  });
});
