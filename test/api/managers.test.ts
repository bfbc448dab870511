import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { ACCESS_KEY_LENGTH, generateAccessKey, generatePassword, PASSWORD_LENGTH } from "../../common/credentials";
import { ADMIN, bearer, createUser, reloadUser, useTestApp } from "../helpers/app";

let admin: string;
let managerToken: string;
const t = useTestApp();
beforeAll(async () => {
  admin = await t.adminToken();
  managerToken = await t.tokenFor(await createUser(t.db, { login: "plain-manager" }));
});

const newManager = (fields: Record<string, unknown> = {}) => ({
  login: "ivan",
  password: "Secret-pass-123",
  displayName: "Иван",
  accessKey: "ABCDEFGH12345678",
  telegram: "@ivan",
  sipLogin: "9001",
  sipPassword: "sippass",
  ...fields,
});

describe("POST /api/v1/auth/register", () => {
  it("creates a manager who can log in with his password and access key", async () => {
    const res = await t.request.post("/api/v1/auth/register").set(bearer(admin)).send(newManager());
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), login: "ivan", displayName: "Иван" });

    const login = await t.request.post("/api/v1/auth/login").send({ login: "ivan", password: "Secret-pass-123", accessKey: "ABCDEFGH12345678" });
    expect(login.status).toBe(200);
    expect(login.body.user).toMatchObject({ login: "ivan", isAdmin: false, sipLogin: "9001", sipPassword: "sippass" });

    const row = await reloadUser(t.db, res.body.id);
    expect(row.passwordHint).toBe("Secre");
    expect(row.passwordHash).not.toContain("Secret-pass-123");
    expect(row.telegram).toBe("@ivan");
  });

  it("refuses a taken login with 409 and a Russian message, spaces around it or not", async () => {
    const res = await t.request
      .post("/api/v1/auth/register")
      .set(bearer(admin))
      .send(newManager({ login: "  ivan " }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "login_taken", message: "Такой логин уже занят" });
    const adminTaken = await t.request
      .post("/api/v1/auth/register")
      .set(bearer(admin))
      .send(newManager({ login: ADMIN.login }));
    expect(adminTaken.status).toBe(409);
  });

  it("refuses an extension another manager already carries", async () => {
    const res = await t.request
      .post("/api/v1/auth/register")
      .set(bearer(admin))
      .send(newManager({ login: "petr", sipLogin: "9001" }));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "sip_taken", message: "Такой SIP логин уже занят" });
    const other = await createUser(t.db, { login: "sip-editor", sipLogin: "9002" });
    const edit = await t.request.patch(`/api/v1/users/${other.user.id}`).set(bearer(admin)).send({ sipLogin: "9001" });
    expect(edit.status).toBe(409);
    // Keeping his own extension is fine.
    expect((await t.request.patch(`/api/v1/users/${other.user.id}`).set(bearer(admin)).send({ sipLogin: "9002" })).status).toBe(200);
  });

  it.each([[{ login: "" }], [{ password: "" }], [{ displayName: "   " }], [{ login: undefined }]])(
    "answers Пожалуйста, заполните все поля for %j",
    async (fields) => {
      const res = await t.request
        .post("/api/v1/auth/register")
        .set(bearer(admin))
        .send(newManager({ login: "nobody", ...fields }));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "validation", message: "Пожалуйста, заполните все поля" });
    },
  );

  it("generates a 16-character alphanumeric access key when none is sent", async () => {
    const res = await t.request.post("/api/v1/auth/register").set(bearer(admin)).send({ login: "nokey", password: "p", displayName: "Без ключа" });
    expect(res.status).toBe(201);
    expect((await reloadUser(t.db, res.body.id)).accessKey).toMatch(/^[A-Za-z0-9]{16}$/);
  });

  it("is for admins only: 401 without a token, 403 for a manager", async () => {
    expect((await t.request.post("/api/v1/auth/register").send(newManager({ login: "x1" }))).status).toBe(401);
    const res = await t.request
      .post("/api/v1/auth/register")
      .set(bearer(managerToken))
      .send(newManager({ login: "x1" }));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe("Недостаточно прав для этого действия");
  });
});

describe("GET /api/v1/users", () => {
  it("lists every user with the password shown as its first 5 characters", async () => {
    const res = await t.request.get("/api/v1/users").set(bearer(admin));
    expect(res.status).toBe(200);
    const ivan = res.body.find((u: { login: string }) => u.login === "ivan");
    expect(ivan).toMatchObject({ password: "Secre", accessKey: "ABCDEFGH12345678", telegram: "@ivan", isAdmin: false });
    expect(ivan).not.toHaveProperty("passwordHash");
    expect(res.body.map((u: { id: number }) => u.id)).toEqual([...res.body.map((u: { id: number }) => u.id)].sort((a, b) => a - b));
  });

  it("is for admins only", async () => {
    expect((await t.request.get("/api/v1/users")).status).toBe(401);
    expect((await t.request.get("/api/v1/users").set(bearer(managerToken))).status).toBe(403);
  });
});

describe("PATCH /api/v1/users/{id}", () => {
  it("edits one field, and a new password replaces the old one", async () => {
    const m = await createUser(t.db, { login: "editme" });
    const name = await t.request.patch(`/api/v1/users/${m.user.id}`).set(bearer(admin)).send({ displayName: "Новое имя" });
    expect(name.status).toBe(200);
    expect(name.body).toMatchObject({ login: "editme", displayName: "Новое имя" });

    const pass = await t.request.patch(`/api/v1/users/${m.user.id}`).set(bearer(admin)).send({ password: "Brand-new-1" });
    expect(pass.body.password).toBe("Brand");
    const oldLogin = await t.request.post("/api/v1/auth/login").send({ login: "editme", password: m.password, accessKey: m.accessKey });
    expect(oldLogin.status).toBe(401);
    const newLogin = await t.request.post("/api/v1/auth/login").send({ login: "editme", password: "Brand-new-1", accessKey: m.accessKey });
    expect(newLogin.status).toBe(200);
  });

  it("toggles the admin flag, which takes effect on the user's next call", async () => {
    const m = await createUser(t.db, { login: "promoted" });
    const token = await t.tokenFor(m);
    expect((await t.request.get("/api/v1/users").set(bearer(token))).status).toBe(403);
    const res = await t.request.patch(`/api/v1/users/${m.user.id}`).set(bearer(admin)).send({ isAdmin: true });
    expect(res.status).toBe(200);
    expect(res.body.isAdmin).toBe(true);
    expect((await t.request.get("/api/v1/users").set(bearer(token))).status).toBe(200);
    await t.request.patch(`/api/v1/users/${m.user.id}`).set(bearer(admin)).send({ isAdmin: false });
    expect((await t.request.get("/api/v1/users").set(bearer(token))).status).toBe(403);
  });

  it("keeps the last admin: the only admin cannot drop his own flag", async () => {
    const res = await t.request.patch("/api/v1/users/1").set(bearer(admin)).send({ isAdmin: false });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("Нельзя снять права с последнего администратора");
    expect((await reloadUser(t.db, 1)).isAdmin).toBe(true);
  });

  it("refuses the access key, a taken login, an empty edit and blank required fields", async () => {
    const m = await createUser(t.db, { login: "strict" });
    const url = `/api/v1/users/${m.user.id}`;
    const key = await t.request.patch(url).set(bearer(admin)).send({ accessKey: "NEWKEY" });
    expect(key.status).toBe(400);
    expect(key.body.message).toBe("Ключ доступа нельзя изменить");
    const taken = await t.request.patch(url).set(bearer(admin)).send({ login: "ivan" });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe("Такой логин уже занят");
    const empty = await t.request.patch(url).set(bearer(admin)).send({});
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe("Нет изменений для сохранения");
    const blank = await t.request.patch(url).set(bearer(admin)).send({ displayName: " " });
    expect(blank.status).toBe(400);
    expect(blank.body.message).toBe("Пожалуйста, заполните все поля");
    expect((await reloadUser(t.db, m.user.id)).login).toBe("strict");
  });

  it("answers 404 for an unknown user, 403 for a manager and 401 anonymously", async () => {
    expect((await t.request.patch("/api/v1/users/99999").set(bearer(admin)).send({ telegram: "x" })).status).toBe(404);
    expect((await t.request.patch("/api/v1/users/1").set(bearer(managerToken)).send({ telegram: "x" })).status).toBe(403);
    expect((await t.request.patch("/api/v1/users/1").send({ telegram: "x" })).status).toBe(401);
  });
});

describe("DELETE /api/v1/users/{id}", () => {
  it("deletes a manager: he is gone from the list and his token stops working", async () => {
    const m = await createUser(t.db, { login: "doomed" });
    const token = await t.tokenFor(m);
    const res = await t.request.delete(`/api/v1/users/${m.user.id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Менеджер удалён" });
    const list = await t.request.get("/api/v1/users").set(bearer(admin));
    expect(list.body.some((u: { login: string }) => u.login === "doomed")).toBe(false);
    expect((await t.request.get(`/api/v1/users/${m.user.id}`).set(bearer(token))).status).toBe(401);
  });

  it("refuses deleting yourself, an unknown user, and a manager's attempt", async () => {
    const self = await t.request.delete("/api/v1/users/1").set(bearer(admin));
    expect(self.status).toBe(400);
    expect(self.body.message).toBe("Нельзя удалить самого себя");
    expect((await t.request.delete("/api/v1/users/99999").set(bearer(admin))).status).toBe(404);
    const m = await createUser(t.db, { login: "survivor" });
    expect((await t.request.delete(`/api/v1/users/${m.user.id}`).set(bearer(managerToken))).status).toBe(403);
    expect((await t.request.delete(`/api/v1/users/${m.user.id}`)).status).toBe(401);
    expect(await reloadUser(t.db, m.user.id)).toBeDefined();
  });
});

describe("the generators (SPEC §5)", () => {
  const passwordRules = (p: string) =>
    p.length === PASSWORD_LENGTH && /[A-Z]/.test(p) && /[a-z]/.test(p) && /[0-9]/.test(p) && /[^A-Za-z0-9]/.test(p);

  // One generator serves the add-manager form in the browser and the server (common/credentials.ts).
  it("a password always has 16 characters with upper, lower, digit and symbol", () => {
    fc.assert(
      fc.property(fc.integer(), () => passwordRules(generatePassword())),
      { numRuns: 2000 },
    );
  });

  it("an access key is always 16 alphanumeric characters", () => {
    fc.assert(
      fc.property(fc.integer(), () => new RegExp(`^[A-Za-z0-9]{${ACCESS_KEY_LENGTH}}$`).test(generateAccessKey())),
      { numRuns: 2000 },
    );
  });

  it("does not repeat itself", () => {
    const seen = new Set(Array.from({ length: 500 }, () => generatePassword()));
    expect(seen.size).toBe(500);
  });
});
