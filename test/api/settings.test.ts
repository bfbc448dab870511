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
    expect(res.body).toEqual({
      removeDuplicatesInBase: true,
      removeDuplicatesAcrossBases: false,
      defaultInfo: "",
      callbackGraceMinutes: 15,
      inboundRingSeconds: 20,
      inboundMaxManagers: 3,
    });
  });

  it("saves all three settings and reads them back", async () => {
    const body = {
      removeDuplicatesInBase: false,
      removeDuplicatesAcrossBases: true,
      defaultInfo: "Клиент из рекламы",
      callbackGraceMinutes: 25,
      inboundRingSeconds: 35,
      inboundMaxManagers: 5,
    };
    const res = await t.request.post("/api/v1/database/settings").set(bearer(admin)).send(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(body);
    expect((await t.request.get("/api/v1/database/settings").set(bearer(admin))).body).toEqual(body);
  });

  it.each([
    [{ removeDuplicatesAcrossBases: true }, "removeDuplicatesInBase: ожидается true или false"],
    [{ removeDuplicatesInBase: "да", removeDuplicatesAcrossBases: true }, "removeDuplicatesInBase: ожидается true или false"],
    [{ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true, defaultInfo: 1 }, "defaultInfo: ожидается текст"],
    ...[4, 61, 20.5, "20", null].map((inboundRingSeconds) => [
      { removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true, inboundRingSeconds },
      "Звонок одному менеджеру: целое число секунд от 5 до 60",
    ]),
    ...[0, 11, 2.5, "3"].map((inboundMaxManagers) => [
      { removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true, inboundMaxManagers },
      "Менеджеров на один входящий звонок: целое число от 1 до 10",
    ]),
  ] as Array<[Record<string, unknown>, string]>)("refuses %j with 400 and a message", async (body, message) => {
    const res = await t.request.post("/api/v1/database/settings").set(bearer(admin)).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "validation", message });
  });

  it("a post without the call-in settings keeps them (issue 42)", async () => {
    await t.request
      .post("/api/v1/database/settings")
      .set(bearer(admin))
      .send({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true, inboundRingSeconds: 15, inboundMaxManagers: 2 });
    const kept = await t.request
      .post("/api/v1/database/settings")
      .set(bearer(admin))
      .send({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: false });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ inboundRingSeconds: 15, inboundMaxManagers: 2 });
  });

  it("is admin-only: 401 anonymous, 403 for a manager, and nothing changes", async () => {
    const before = (await t.request.get("/api/v1/database/settings").set(bearer(admin))).body;
    expect((await t.request.get("/api/v1/database/settings")).status).toBe(401);
    expect((await t.request.post("/api/v1/database/settings").send({})).status).toBe(401);
    expect((await t.request.get("/api/v1/database/settings").set(bearer(manager))).status).toBe(403);
    const post = await t.request
      .post("/api/v1/database/settings")
      .set(bearer(manager))
      .send({ removeDuplicatesInBase: true, removeDuplicatesAcrossBases: true, defaultInfo: "взлом", inboundRingSeconds: 5, inboundMaxManagers: 1 });
    expect(post.status).toBe(403);
    expect((await t.request.get("/api/v1/database/settings").set(bearer(admin))).body).toEqual(before);
  });
});
