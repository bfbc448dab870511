import { execFileSync } from "node:child_process";
import fs from "node:fs";
import supertest from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer, createTestApp, createUser, reloadUser, useTestApp } from "../helpers/app";
import { startInstance, type Instance } from "../helpers/instance";
import { argon2Passwords, hashPassword } from "../../server/auth/password";

// As if behind one proxy of ours: X-Forwarded-For names the client (requests without it come from 127.0.0.1).
// The app's own argon2 costs (not the suite's cheaper ones): a test below times a login.
const t = useTestApp({ env: { TRUST_PROXY: "1" }, passwords: argon2Passwords });

type Credentials = { login: string; password: string; accessKey: string };
const loginFrom = (address: string, { login, password, accessKey }: Credentials) =>
  t.request.post("/api/v1/auth/login").set("X-Forwarded-For", address).send({ login, password, accessKey });
const statusCounts = (answers: Array<{ status: number }>) =>
  answers.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

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

  it("answers a wrong password, a wrong access key and an unknown login alike", async () => {
    const { login, password } = await createUser(t.db, { login: "wrongs" });
    const wrongPassword = await t.request.post("/api/v1/auth/login").send({ login, password: "nope", accessKey: "whatever" });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body).toEqual({ error: "invalid_credentials", message: "Неверный логин или пароль" });

    const wrongKey = await t.request.post("/api/v1/auth/login").send({ login, password, accessKey: "WRONGKEY" });
    expect(wrongKey.status).toBe(401);
    // The right password with a wrong key must not confirm the password.
    expect(wrongKey.body).toEqual({ error: "invalid_credentials", message: "Неверный логин или пароль" });

    const unknown = await t.request.post("/api/v1/auth/login").send({ login: "ghost", password, accessKey: "k" });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toEqual({ error: "invalid_credentials", message: "Неверный логин или пароль" });
  });

  it("takes about as long for an unknown login as for a known one (argon2 runs for both)", async () => {
    const known = await createUser(t.db, { login: "timed", passwordHash: await hashPassword("Timed-password-1") });
    const timed = async (address: string, body: Credentials) => {
      const started = performance.now();
      const res = await loginFrom(address, body);
      expect(res.body).toEqual({ error: "invalid_credentials", message: "Неверный логин или пароль" });
      return performance.now() - started;
    };
    await timed("192.0.2.30", { login: "warm-up", password: "x", accessKey: "y" });
    const knownTimes: number[] = [];
    const unknownTimes: number[] = [];
    // Alternating, so a busy moment of the machine falls on both; four each stays under the limit of five.
    for (let i = 0; i < 4; i++) {
      knownTimes.push(await timed("192.0.2.31", { login: known.login, password: `wrong-${i}`, accessKey: known.accessKey }));
      unknownTimes.push(await timed("192.0.2.32", { login: `nobody-${i}`, password: `wrong-${i}`, accessKey: "k" }));
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    // Without the dummy hash an unknown login answered some 20 times faster; a factor of 4 leaves room for noise.
    expect(median(unknownTimes) * 4).toBeGreaterThan(median(knownTimes));
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

  it("lets at most five of 150 parallel wrong passwords reach the check; the rest get 429", async () => {
    const { login, accessKey, password } = await createUser(t.db, { login: "parallel-guesses" });
    const answers = await Promise.all(Array.from({ length: 150 }, (_, i) => loginFrom("203.0.113.7", { login, password: `guess-${i}`, accessKey })));
    const counts = statusCounts(answers);
    expect(counts[401] ?? 0).toBeLessThanOrEqual(5);
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(150);
    expect((await loginFrom("203.0.113.7", { login, password, accessKey })).status).toBe(429);
  });

  it("locks a login only for the address the failures came from", async () => {
    const victim = await createUser(t.db, { login: "locked-elsewhere" });
    for (let i = 0; i < 5; i++) {
      expect((await loginFrom("198.51.100.66", { ...victim, password: `bad-${i}` })).status).toBe(401);
    }
    const attacker = await loginFrom("198.51.100.66", victim);
    expect(attacker.status).toBe(429);
    expect(attacker.body.message).toMatch(/^Слишком много неудачных попыток входа\. Попробуйте через \d+ мин\.$/);
    // The manager at his own desk still gets in, and his success does not unlock the attacker.
    expect((await loginFrom("198.51.100.10", victim)).status).toBe(200);
    expect((await loginFrom("198.51.100.66", victim)).status).toBe(429);
  });

  it("refuses an address after 50 failures across logins, and only that address", async () => {
    const user = await createUser(t.db, { login: "sprayed" });
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => loginFrom("2001:db8:5::1", { login: `spray-${i}`, password: "x", accessKey: "y" })),
    );
    expect(statusCounts(answers)).toEqual({ 401: 50 });
    // Another host in the same /64 is the same sprayer; another network is not.
    expect((await loginFrom("2001:db8:5::ffff", user)).status).toBe(429);
    expect((await loginFrom("2001:db8:6::1", user)).status).toBe(200);
  });

  it("ignores X-Forwarded-For unless TRUST_PROXY says a proxy is in front", async () => {
    const direct = await createTestApp();
    try {
      const user = await createUser(direct.db, { login: "no-proxy" });
      for (let i = 0; i < 5; i++) {
        const res = await direct.request
          .post("/api/v1/auth/login")
          .set("X-Forwarded-For", `10.0.0.${i}`)
          .send({ ...user, password: `bad-${i}` });
        expect(res.status).toBe(401);
      }
      const spoofed = await direct.request.post("/api/v1/auth/login").set("X-Forwarded-For", "10.9.9.9").send(user);
      expect(spoofed.status).toBe(429);
    } finally {
      await direct.close();
    }
  });

  it("gives a fresh token at every login", async () => {
    const a = await t.adminToken();
    const b = await t.adminToken();
    expect(a).not.toBe(b);
  });

  it("answers bad JSON and a wrong content type with { error, message }, not a 500", async () => {
    const badJson = await t.request.post("/api/v1/auth/login").set("Content-Type", "application/json").send('{"login": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body.message).toBe("Некорректный JSON в теле запроса");

    const wrongType = await t.request.post("/api/v1/auth/login").set("Content-Type", "application/xml").send("<a/>");
    expect(wrongType.status).toBe(415);
    expect(wrongType.body).toMatchObject({ message: "Неподдерживаемый тип содержимого запроса" });
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)("login throttling across two app instances on one Postgres", () => {
  let instances: Instance[] = [];
  beforeAll(async () => {
    const url = (t.handle as { url?: string }).url!;
    // Behind a proxy, like `t`: the guesses come from their own address, not this file's 127.0.0.1.
    instances = await Promise.all([startInstance(url, { TRUST_PROXY: "1" }), startInstance(url, { TRUST_PROXY: "1" })]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
  });

  it("lets at most five of 150 parallel wrong passwords, split between the instances, reach the check", async () => {
    const { login, accessKey } = await createUser(t.db, { login: "two-instance-guesses" });
    const apis = instances.map((instance) => supertest(`http://${instance.base}`));
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        apis[i % 2]
          .post("/api/v1/auth/login")
          .set("X-Forwarded-For", "203.0.113.77")
          .send({ login, password: `guess-${i}`, accessKey }),
      ),
    );
    const counts = statusCounts(answers);
    expect(counts[401] ?? 0).toBeLessThanOrEqual(5);
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(150);
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
    const res = await t.request.post(`/api/v1/users/logout/${manager.user.id}`).set(bearer(token)).set("Content-Type", "application/json");
    expect(res.status).toBe(200);
    expect((await t.request.get(`/api/v1/users/${manager.user.id}`).set(bearer(token))).status).toBe(401);
    expect((await reloadUser(t.db, manager.user.id)).isOnline).toBe(false);
  });
});

describe("health and OpenAPI", () => {
  it("reports the database kind and the app's version (package.json, and the git commit in a checkout)", async () => {
    const res = await t.request.get("/api/v1/health");
    expect(res.status).toBe(200);
    const { version } = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
    const commit = execFileSync("git", ["rev-parse", "--short=12", "HEAD"]).toString().trim();
    expect(res.body).toEqual({ status: "ok", database: process.env.TEST_DATABASE_URL ? "postgres" : "pglite", version, commit });
  });

  it("is ready while the database answers", async () => {
    const res = await t.request.get("/api/v1/health/ready");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", database: process.env.TEST_DATABASE_URL ? "postgres" : "pglite" });
  });

  it("serves the OpenAPI description with the login route", async () => {
    const res = await t.request.get("/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.paths["/api/v1/auth/login"].post).toBeDefined();
  });

  it("documents every JSON body field by field, so a tester reads the real contract", async () => {
    type Operation = { requestBody?: { content: Record<string, { schema?: { properties?: object; type?: string } }> } };
    const paths = (await t.request.get("/api/v1/openapi.json")).body.paths as Record<string, Record<string, Operation>>;
    const bodies = Object.entries(paths).flatMap(([path, operations]) =>
      Object.entries(operations).flatMap(([method, operation]) => {
        const schema = operation.requestBody?.content["application/json"]?.schema;
        return schema ? [{ route: `${method.toUpperCase()} ${path}`, schema }] : [];
      }),
    );
    expect(bodies.filter(({ schema }) => !schema.properties).map(({ route }) => route)).toEqual([]);
    // The check sees bodies at all, among them the ones declared last (issue 30 §2).
    expect(bodies.map(({ route }) => route)).toEqual(
      expect.arrayContaining([
        "PUT /api/v1/callbacks/{id}",
        "POST /api/v1/calls",
        "POST /api/v1/calls/{id}/end",
        "POST /api/v1/status",
        "PUT /api/v1/status/{id}",
        "PUT /api/v1/status/update-and-get-lead",
        "POST /api/v1/filters",
        "PUT /api/v1/filters/{id}",
        "POST /api/v1/payments/process",
        "PUT /api/v1/payments/rates",
        "POST /api/v1/payments/history/{workerId}/history",
      ]),
    );
    // Core's own schemas, so the fields have their types: a topic's managers are a list of ids.
    const topic = bodies.find(({ route }) => route === "POST /api/v1/filters")!.schema as { properties: Record<string, { type?: string }> };
    expect(topic.properties.managers.type).toBe("array");
  });

  it("answers an unknown API path with a JSON 404", async () => {
    const token = await t.adminToken();
    const res = await t.request.get("/api/v1/nothing-here").set(bearer(token));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found", message: "Такого адреса API нет" });
  });
});
