import { beforeAll, describe, expect, it } from "vitest";
import { bearer, createUser, useTestApp } from "../helpers/app";

let admin: string;
let manager: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
  manager = await t.tokenFor(await createUser(t.db, { login: "settings-manager" }));
});

describe("GET, POST /api/v1/database/settings", () => {
  it("starts from the defaults", async () => {
    const res = await t.request.get("/api/v1/database/settings").set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false, defaultInfo: "", callbackGraceMinutes: 15 });
  });

  it("saves all three settings and reads them back", async () => {
    const body = { removeDuplicatesInBase: false, removeDuplicatesAcrossBases: true, defaultInfo: "Клиент из рекламы", callbackGraceMinutes: 25 };
    const res = await t.request.post("/api/v1/database/settings").set(bearer(admin)).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expect((await t.request.get("/api/v1/database/settings").set(bearer(admin))).body).toEqual(body);
  });

  it.each([
    [{ removeDuplicatesAcrossBases: true }, "removeDuplicatesInBase: ожидается true или false"],
    [{ removeDuplicatesInBase: "да", removeDuplicatesAcrossBases: true }, "removeDuplicatesInBase: ожидается true или false"],
    [{ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true, defaultInfo: 1 }, "defaultInfo: ожидается текст"],
  ])("refuses %j with 400 and a message", async (body, message) => {
    const res = await t.request.post("/api/v1/database/settings").set(bearer(admin)).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "validation", message });
  });

  it("is admin-only: 401 anonymous, 403 for a manager, and nothing changes", async () => {
    const before = (await t.request.get("/api/v1/database/settings").set(bearer(admin))).body;
    expect((await t.request.get("/api/v1/database/settings")).status).toBe(401);
    expect((await t.request.post("/api/v1/database/settings").send({})).status).toBe(401);
    expect((await t.request.get("/api/v1/database/settings").set(bearer(manager))).status).toBe(403);
    const post = await t.request
      .post("/api/v1/database/settings")
      .set(bearer(manager))
      .send({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true, defaultInfo: "взлом" });
    expect(post.status).toBe(403);
    expect((await t.request.get("/api/v1/database/settings").set(bearer(admin))).body).toEqual(before);
  });
});
