import crypto from "node:crypto";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config";
import { SECRET_FAILURE_LIMIT } from "../../server/core/telephony/shared-secret";
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

// As if behind one proxy of ours: X-Forwarded-For names the client (requests without it come from 127.0.0.1).
const t = useTestApp({ env: { SIP_AUTH_SECRET: SECRET, TRUST_PROXY: "1" } });
const statusCounts = (answers: Array<{ status: number }>) =>
  answers.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

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

  it("refuses to start with a SIP_AUTH_SECRET shorter than 32 characters, naming the variable", () => {
    expect(SECRET).toHaveLength(32);
    expect(() => loadConfig({ SIP_AUTH_SECRET: SECRET.slice(1) })).toThrow(
      "Неверная переменная окружения SIP_AUTH_SECRET: нужно не меньше 32 символов (openssl rand -hex 32)",
    );
    expect(loadConfig({ SIP_AUTH_SECRET: SECRET }).sipAuthSecret).toBe(SECRET);
    expect(loadConfig({}).sipAuthSecret).toBe("");
  });

  it("stops an address after a few wrong secrets (429, the right one too), while another address is still answered", async () => {
    await createUser(t.db, { sipLogin: "7005", sipPassword: "p-7005" });
    const from = (address: string, secret: string) => ask(t, "7005", secret).set("X-Forwarded-For", address);
    // 200 guesses at once from one address: only the first few are even told 403.
    const guesses = await Promise.all(Array.from({ length: 200 }, (_, i) => from("203.0.113.9", `kamailio-shares-this-secret-${1000 + i}`)));
    expect(statusCounts(guesses)).toEqual({ 403: SECRET_FAILURE_LIMIT, 429: 200 - SECRET_FAILURE_LIMIT });
    const refused = guesses.find((answer) => answer.status === 429)!;
    expect(refused.body.message).toMatch(/^Слишком много неверных секретов SIP_AUTH_SECRET с этого адреса\. Попробуйте через 1[45] мин\.$/);
    expect(refused.text).not.toContain(md5("7005:pbx.example.com:p-7005"));

    // The right secret from that address is refused as well, on every question Kamailio asks with it.
    const right = await from("203.0.113.9", SECRET);
    expect(right.status).toBe(429);
    expect(right.text).not.toContain(md5("7005:pbx.example.com:p-7005"));
    const call = await t.request
      .post("/api/v1/telephony/calls")
      .type("form")
      .set({ "X-Sip-Auth-Secret": SECRET, "X-Forwarded-For": "203.0.113.9" })
      .send({ login: "7005", number: "+380501234567", sipCallId: "throttled@browser" });
    expect(call.status).toBe(429);

    // Kamailio at its own address is answered, a wrong secret of its own notwithstanding.
    expect((await from("198.51.100.4", "a-wrong-secret-of-kamailio-0123456")).status).toBe(403);
    const kamailio = await from("198.51.100.4", SECRET);
    expect(kamailio.status).toBe(200);
    expect(kamailio.text).toBe(md5("7005:pbx.example.com:p-7005"));
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
