import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { bearer, createTestApp, createUser, type TestApp, useTestApp } from "../helpers/app";

/**
 * GET /api/v1/telephony/sip-digest: what Kamailio asks before it lets a manager's browser register or call
 * (telephony/kamailio.cfg route[AUTH], decision 024). The users table is the only place SIP credentials live.
 */
const SECRET = "kamailio-shares-this-secret-0123";
const md5 = (text: string) => crypto.createHash("md5").update(text).digest("hex");
const ask = (t: TestApp, login: string, secret: string | null = SECRET, realm = "pbx.example.com") => {
  const request = t.request.get("/api/v1/telephony/sip-digest").query({ login, realm });
  return secret === null ? request : request.set("X-Sip-Auth-Secret", secret);
};

const t = useTestApp({ env: { SIP_AUTH_SECRET: SECRET } });

describe("GET /api/v1/telephony/sip-digest", () => {
  it("answers the HA1 of a manager created through POST /api/v1/auth/register, at once", async () => {
    const admin = await t.adminToken();
    const created = await t.request
      .post("/api/v1/auth/register")
      .set(bearer(admin))
      .send({ login: "sipnew", password: "Password-1x", displayName: "Новый", sipLogin: "7001", sipPassword: "s3cret-7001" });
    expect(created.status).toBe(201);
    const response = await ask(t, "7001");
    expect(response.status).toBe(200);
    expect(response.text).toBe(md5("7001:pbx.example.com:s3cret-7001"));
  });

  it("follows a changed SIP password and forgets a deleted manager", async () => {
    const admin = await t.adminToken();
    const { user } = await createUser(t.db, { sipLogin: "7002", sipPassword: "old-pass" });
    expect((await ask(t, "7002")).text).toBe(md5("7002:pbx.example.com:old-pass"));

    const changed = await t.request.patch(`/api/v1/users/${user.id}`).set(bearer(admin)).send({ sipPassword: "new-pass" });
    expect(changed.status).toBe(200);
    expect((await ask(t, "7002")).text).toBe(md5("7002:pbx.example.com:new-pass"));

    const deleted = await t.request.delete(`/api/v1/users/${user.id}`).set(bearer(admin));
    expect(deleted.status).toBe(200);
    const gone = await ask(t, "7002");
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe("Нет менеджера с таким SIP логином");
  });

  it("refuses without the shared secret or with a wrong one, so no manager can read another's", async () => {
    await createUser(t.db, { sipLogin: "7003", sipPassword: "p-7003" });
    const none = await ask(t, "7003", null);
    expect(none.status).toBe(403);
    expect(none.body.message).toBe("Неверный секрет SIP_AUTH_SECRET");
    expect(none.text).not.toContain(md5("7003:pbx.example.com:p-7003"));
    expect((await ask(t, "7003", "wrong")).status).toBe(403);

    // A logged-in manager's own token opens nothing here either.
    const manager = await createUser(t.db, { sipLogin: "7004", sipPassword: "p-7004" });
    const token = await t.tokenFor(manager);
    const withToken = await t.request.get("/api/v1/telephony/sip-digest").query({ login: "7003", realm: "pbx.example.com" }).set(bearer(token));
    expect(withToken.status).toBe(403);
  });

  it("answers 400 with a Russian message for a missing login", async () => {
    const response = await t.request.get("/api/v1/telephony/sip-digest").query({ realm: "pbx.example.com" }).set("X-Sip-Auth-Secret", SECRET);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/[а-я]/i);
  });

  it("is closed (404) on a server without SIP_AUTH_SECRET", async () => {
    const closed = await createTestApp();
    try {
      const response = await ask(closed, "7001");
      expect(response.status).toBe(404);
      expect(response.body.message).toBe("Проверка SIP паролей выключена: задайте SIP_AUTH_SECRET");
    } finally {
      await closed.close();
    }
  });
});
