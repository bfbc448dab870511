import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createTelephony } from "../../server/telephony/provider";
import { bearer, createTestApp, createUser, reloadUser, type TestApp } from "../helpers/app";

/**
 * The telephony provider is the one external system we cannot reach: a fake that speaks real HTTP on loopback
 * stands in for it. It records every request and answers as the test tells it to.
 */
type Mode = "ok" | "error-status" | "error-answer" | "garbage" | "hang";
interface FakeProvider {
  url: string;
  mode: Mode;
  requests: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

async function startFakeProvider(): Promise<FakeProvider> {
  let next = 100;
  const hanging = new Set<http.ServerResponse>();
  const fake: FakeProvider = {
    url: "",
    mode: "ok",
    requests: [],
    close: async () => {
      for (const res of hanging) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const parsed = JSON.parse(body || "{}");
      fake.requests.push({ method: req.method, contentType: req.headers["content-type"], ...parsed });
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (fake.mode === "hang") return void hanging.add(res);
      if (fake.mode === "error-status") return json(500, { message: "internal" });
      if (fake.mode === "error-answer") return json(200, { status: "error", message: "limit reached" });
      if (fake.mode === "garbage") {
        res.writeHead(200, { "Content-Type": "text/html" });
        return res.end("<html>gateway</html>");
      }
      if (parsed.command === "createNew") {
        next += 1;
        return json(200, { status: "success", data: { extension: `${parsed.prefix + next}`, password: `pw${next}` } });
      }
      return json(200, { status: "success", data: {} });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
  return fake;
}

const providerConfig = (url: string, timeoutMs = 1000) => ({
  apiUrl: url,
  callerId: "CALLER-7",
  login: "desk-login",
  apiKey: "secret-api-key",
  timeoutMs,
});

let fake: FakeProvider;
let t: TestApp;
let admin: string;
beforeAll(async () => {
  fake = await startFakeProvider();
  t = await createTestApp({
    env: {
      TELEPHONY_API_URL: fake.url,
      TELEPHONY_CALLER_ID: "CALLER-7",
      TELEPHONY_LOGIN: "desk-login",
      TELEPHONY_API_KEY: "secret-api-key",
      TELEPHONY_TIMEOUT_MS: "500",
    },
  });
  admin = await t.adminToken();
});
afterAll(async () => {
  await t?.close();
  await fake?.close();
});
beforeEach(() => {
  fake.mode = "ok";
  fake.requests.length = 0;
});

describe("the provider client (SPEC §7 Other calls)", () => {
  it("creates an account with createNew, the caller id, login and API key, and reads data.extension and data.password", async () => {
    const telephony = createTelephony(t.db, providerConfig(fake.url));
    expect(telephony.kind).toBe("proxy");
    const account = await telephony.createAccount({ prefix: 9000, name: "ivan" });
    expect(account).toEqual({ extension: "9101", password: "pw101" });
    expect(fake.requests).toEqual([
      {
        method: "POST",
        contentType: "application/json",
        command: "createNew",
        callerId: "CALLER-7",
        login: "desk-login",
        apiKey: "secret-api-key",
        prefix: 9000,
        name: "ivan",
      },
    ]);
  });

  it("deletes an account with deletePeer", async () => {
    await createTelephony(t.db, providerConfig(fake.url)).deleteAccount("9101");
    expect(fake.requests).toEqual([
      expect.objectContaining({ command: "deletePeer", callerId: "CALLER-7", apiKey: "secret-api-key", extension: "9101" }),
    ]);
  });

  it.each<[Mode]>([["error-status"], ["error-answer"], ["garbage"]])("turns a provider error (%s) into Proxy API error", async (mode) => {
    fake.mode = mode;
    const telephony = createTelephony(t.db, providerConfig(fake.url));
    await expect(telephony.createAccount({ prefix: 9000, name: "x" })).rejects.toMatchObject({
      status: 502,
      message: "Proxy API error",
    });
  });

  it("turns no answer within the timeout into Fetch error", async () => {
    fake.mode = "hang";
    const telephony = createTelephony(t.db, providerConfig(fake.url, 300));
    const started = Date.now();
    await expect(telephony.createAccount({ prefix: 9000, name: "x" })).rejects.toMatchObject({
      status: 502,
      message: "Fetch error",
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("turns an unreachable provider into Fetch error", async () => {
    const telephony = createTelephony(t.db, providerConfig("http://127.0.0.1:1/api"));
    await expect(telephony.deleteAccount("9001")).rejects.toMatchObject({ message: "Fetch error" });
  });
});

describe("the built-in allocator (no provider configured)", () => {
  it("hands out the lowest free extension under the chosen prefix, with a random password", async () => {
    const telephony = createTelephony(t.db, providerConfig(""));
    expect(telephony.kind).toBe("builtin");
    const first = await telephony.createAccount({ prefix: 3000, name: "a" });
    expect(first.extension).toBe("3001");
    expect(first.password).toMatch(/^[A-Za-z0-9]{12}$/);
    await createUser(t.db, { login: "has3001", sipLogin: "3001" });
    await createUser(t.db, { login: "has3003", sipLogin: "3003" });
    expect((await telephony.createAccount({ prefix: 3000, name: "b" })).extension).toBe("3002");
    await createUser(t.db, { login: "has3002", sipLogin: "3002" });
    expect((await telephony.createAccount({ prefix: 3000, name: "c" })).extension).toBe("3004");
    // Another prefix is its own range.
    expect((await telephony.createAccount({ prefix: 11000, name: "d" })).extension).toBe("11001");
  });
});

describe("deleting a manager deletes his SIP account", () => {
  it("calls deletePeer with his extension, then removes him", async () => {
    const m = await createUser(t.db, { login: "sipper", sipLogin: "9555", sipPassword: "x" });
    const res = await t.request.delete(`/api/v1/users/${m.user.id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(fake.requests).toEqual([expect.objectContaining({ command: "deletePeer", extension: "9555" })]);
    expect(await reloadUser(t.db, m.user.id)).toBeUndefined();
  });

  it("changes nothing when the provider answers an error or does not answer", async () => {
    const m = await createUser(t.db, { login: "keeper", sipLogin: "9556", sipPassword: "x" });
    fake.mode = "error-answer";
    const refused = await t.request.delete(`/api/v1/users/${m.user.id}`).set(bearer(admin));
    expect(refused.status).toBe(502);
    expect(refused.body).toEqual({ error: "proxy_api_error", message: "Proxy API error" });
    fake.mode = "hang";
    const timedOut = await t.request.delete(`/api/v1/users/${m.user.id}`).set(bearer(admin));
    expect(timedOut.status).toBe(502);
    expect(timedOut.body).toEqual({ error: "fetch_error", message: "Fetch error" });
    expect((await reloadUser(t.db, m.user.id)).login).toBe("keeper");
  });

  it("does not call the provider for a manager without a SIP account", async () => {
    const m = await createUser(t.db, { login: "nosip" });
    expect((await t.request.delete(`/api/v1/users/${m.user.id}`).set(bearer(admin))).status).toBe(200);
    expect(fake.requests).toEqual([]);
  });
});
