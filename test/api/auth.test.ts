import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer, createTestApp, createUser, reloadUser, type TestApp } from "../helpers/app";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t?.close();
});

describe("POST /api/v1/auth/login", () => {
  it("answers a token and the session user for the right login, password and access key", async () => {
    const res = await t.request.post("/api/v1/auth/login").send(ADMIN);
    expect(res.status).toBe(200);
    expect(res.body.access_token).toEqual(expect.any(String));
    expect(res.body.user).toMatchObject({ login: "admin", isAdmin: true, isOnline: true, gettingFilter: 0 });
    expect(res.body.user).not.toHaveProperty("passwordHash");
  });

  it.each([
    [{ login: "", password: "x", accessKey: "y" }, "Укажите логин"],
    [{ login: "   ", password: "x", accessKey: "y" }, "Укажите логин"],
    [{ password: "x", accessKey: "y" }, "Укажите логин"],
    [{ login: "admin", password: "", accessKey: "y" }, "Укажите пароль"],
    [{ login: "admin", password: "x", accessKey: "" }, "Укажите ключ доступа"],
    [{ login: "admin", password: "x" }, "Укажите ключ доступа"],
  ])("refuses %j with the SPEC message", async (body, message) => {
    const res = await t.request.post("/api/v1/auth/login").send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "validation", message });
  });

  it("refuses a wrong password and a wrong access key with Russian messages", async () => {
    const { login, password } = await createUser(t.db, { login: "wrongs" });
    const wrongPassword = await t.request
      .post("/api/v1/auth/login")
      .send({ login, password: "nope", accessKey: "whatever" });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body).toEqual({ error: "invalid_credentials", message: "Неверный логин или пароль" });

    const wrongKey = await t.request.post("/api/v1/auth/login").send({ login, password, accessKey: "WRONGKEY" });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body).toEqual({ error: "invalid_access_key", message: "Неверный ключ доступа" });

    const unknown = await t.request.post("/api/v1/auth/login").send({ login: "ghost", password, accessKey: "k" });
    expect(unknown.status).toBe(401);
    expect(unknown.body.message).toBe("Неверный логин или пароль");
  });

  it("refuses a login after five failures with 429, even with the right password", async () => {
    const { login, password, accessKey } = await createUser(t.db, { login: "throttled" });
    for (let i = 0; i < 5; i++) {
      const res = await t.request.post("/api/v1/auth/login").send({ login, password: `bad${i}`, accessKey });
      expect(res.status).toBe(401);
    }
    const locked = await t.request.post("/api/v1/auth/login").send({ login, password, accessKey });
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(/^Слишком много неудачных попыток входа/);
  });

  it("gives a fresh token at every login", async () => {
    const a = await t.adminToken();
    const b = await t.adminToken();
    expect(a).not.toBe(b);
  });

  it("answers bad JSON and a wrong content type with { error, message }, not a 500", async () => {
    const badJson = await t.request
      .post("/api/v1/auth/login")
      .set("Content-Type", "application/json")
      .send('{"login": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.message).toBe("Некорректный JSON в теле запроса");

    const wrongType = await t.request.post("/api/v1/auth/login").set("Content-Type", "application/xml").send("<a/>");
    expect(wrongType.status).toBe(415);
    expect(wrongType.body).toMatchObject({ message: "Неподдерживаемый тип содержимого запроса" });
  });
});

describe("the bearer token", () => {
  it("is required: 401 with a message without it or with a made-up one", async () => {
    const none = await t.request.get("/api/v1/users/1");
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ error: "unauthorized", message: "Требуется вход в систему" });
    const madeUp = await t.request.get("/api/v1/users/1").set(bearer("not-a-session"));
    expect(madeUp.status).toBe(401);
  });

  it("is the only credential the API reads: a session cookie alone is refused", async () => {
    const token = await t.adminToken();
    const res = await t.request.get("/api/v1/users/1").set("Cookie", `session=${token}`);
    expect(res.status).toBe(401);
  });
});

describe("GET /api/v1/users/{id} and POST /api/v1/users/logout/{id}", () => {
  it("lets a manager read himself but not another user", async () => {
    const manager = await createUser(t.db, { login: "reader", displayName: "Ирина" });
    const token = await t.tokenFor(manager);
    const own = await t.request.get(`/api/v1/users/${manager.user.id}`).set(bearer(token));
    expect(own.status).toBe(200);
    expect(own.body).toMatchObject({ id: manager.user.id, login: "reader", displayName: "Ирина", isAdmin: false, isOnline: true });

    const other = await t.request.get("/api/v1/users/1").set(bearer(token));
    expect(other.status).toBe(403);
    expect(other.body.message).toEqual(expect.any(String));
  });

  it("answers 404 for an unknown user and 400 for a bad id", async () => {
    const token = await t.adminToken();
    expect((await t.request.get("/api/v1/users/99999").set(bearer(token))).status).toBe(404);
    const bad = await t.request.get("/api/v1/users/abc").set(bearer(token));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Неверный идентификатор");
  });

  it("logs out: the token stops working and isOnline turns false", async () => {
    const manager = await createUser(t.db, { login: "leaver" });
    const token = await t.tokenFor(manager);
    const res = await t.request
      .post(`/api/v1/users/logout/${manager.user.id}`)
      .set(bearer(token))
      .set("Content-Type", "application/json");
    expect(res.status).toBe(200);
    expect((await t.request.get(`/api/v1/users/${manager.user.id}`).set(bearer(token))).status).toBe(401);
    expect((await reloadUser(t.db, manager.user.id)).isOnline).toBe(false);
  });
});

describe("health and OpenAPI", () => {
  it("reports the database kind", async () => {
    const res = await t.request.get("/api/v1/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", database: process.env.TEST_DATABASE_URL ? "postgres" : "pglite" });
  });

  it("serves the OpenAPI description with the login route", async () => {
    const res = await t.request.get("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.paths["/api/v1/auth/login"].post).toBeDefined();
  });

  it("answers an unknown API path with a JSON 404", async () => {
    const token = await t.adminToken();
    const res = await t.request.get("/api/v1/nothing-here").set(bearer(token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found", message: "Такого адреса API нет" });
  });
});
