import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { bearer, createUser, reloadUser, useTestApp } from "../helpers/app";

let admin: string;
let wsUrl: string;
const t = useTestApp();
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  wsUrl = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/realtime`;
  admin = await t.adminToken();
});

/** A realtime socket that has said updateStatus once the promise resolves. */
async function present(token: string): Promise<WebSocket> {
  const ws = new WebSocket(wsUrl, { headers: bearer(token) });
  await new Promise((resolve, reject) => {
    ws.on("open", resolve);
    ws.on("unexpected-response", (_q, res) => reject(new Error(String(res.statusCode))));
  });
  ws.send(JSON.stringify({ event: "updateStatus" }));
  return ws;
}

async function onlineLogins(): Promise<string[]> {
  const res = await t.request.get("/api/v1/users/online").set(bearer(admin));
  expect(res.status).toBe(200);
  return res.body.map((u: { login: string }) => u.login);
}

async function eventually(check: () => Promise<boolean>) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("condition not met in time");
}

describe("POST /api/v1/auth/force-logout/{id}", () => {
  it("ends every session of the user, turns isOnline false and answers Сессия пользователя закрыта", async () => {
    const m = await createUser(t.db, { login: "kicked" });
    const phone = await t.tokenFor(m);
    const laptop = await t.tokenFor(m);
    expect((await reloadUser(t.db, m.user.id)).isOnline).toBe(true);

    const res = await t.request.post(`/api/v1/auth/force-logout/${m.user.id}`).set(bearer(admin));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, message: "Сессия пользователя закрыта" });
    for (const token of [phone, laptop]) {
      expect((await t.request.get(`/api/v1/users/${m.user.id}`).set(bearer(token))).status).toBe(401);
    }
    expect((await reloadUser(t.db, m.user.id)).isOnline).toBe(false);
    // He can log in again afterwards.
    expect((await t.request.post("/api/v1/auth/login").send(m)).status).toBe(200);
  });

  it("is for admins only: 401 anonymously, 403 for a manager, and the target keeps his session", async () => {
    const target = await createUser(t.db, { login: "protected" });
    const targetToken = await t.tokenFor(target);
    const manager = await t.tokenFor(await createUser(t.db, { login: "rogue" }));
    expect((await t.request.post(`/api/v1/auth/force-logout/${target.user.id}`)).status).toBe(401);
    const refused = await t.request.post(`/api/v1/auth/force-logout/${target.user.id}`).set(bearer(manager));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("Недостаточно прав для этого действия");
    expect((await t.request.get(`/api/v1/users/${target.user.id}`).set(bearer(targetToken))).status).toBe(200);
  });

  it("answers 404 for an unknown user, 400 for a bad id and for oneself", async () => {
    const unknown = await t.request.post("/api/v1/auth/force-logout/99999").set(bearer(admin));
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Пользователь не найден");
    const bad = await t.request.post("/api/v1/auth/force-logout/abc").set(bearer(admin));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Неверный идентификатор");
    const self = await t.request.post("/api/v1/auth/force-logout/1").set(bearer(admin));
    expect(self.status).toBe(400);
    expect(self.body.message).toBe("Свою сессию завершите кнопкой выхода");
  });
});

/** A realtime socket recording its events and its close code. */
async function watchedSocket(token: string) {
  const ws = await present(token);
  const events: string[] = [];
  ws.on("message", (raw) => events.push(JSON.parse(raw.toString()).event));
  const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)));
  return { ws, events, closed };
}

describe("PATCH /api/v1/users/{id} by a manager", () => {
  it("is refused for the role (403) whatever the body, never checked for its fields first", async () => {
    const m = await createUser(t.db, { login: "patching-manager" });
    const token = await t.tokenFor(m);
    for (const body of [{ isAdmin: "да" }, { displayName: "Сам себе админ", isAdmin: true }]) {
      const res = await t.request.patch(`/api/v1/users/${m.user.id}`).set(bearer(token)).send(body);
      expect(res.status, JSON.stringify(body)).toBe(403);
    }
    expect((await reloadUser(t.db, m.user.id)).isAdmin).toBe(false);
  });
});

describe("PATCH /api/v1/users/{id} with a new password", () => {
  it("ends the manager's sessions and closes his open pages, like a forced logout", async () => {
    const m = await createUser(t.db, { login: "password-reset" });
    const phone = await t.tokenFor(m);
    const laptop = await t.tokenFor(m);
    const page = await watchedSocket(laptop);

    // Other edits leave the sessions alone.
    const renamed = await t.request.patch(`/api/v1/users/${m.user.id}`).set(bearer(admin)).send({ displayName: "Новое имя" });
    expect(renamed.status).toBe(200);
    expect((await t.request.get(`/api/v1/users/${m.user.id}`).set(bearer(phone))).status).toBe(200);

    const res = await t.request.patch(`/api/v1/users/${m.user.id}`).set(bearer(admin)).send({ password: "Changed-by-admin-1" });
    expect(res.status).toBe(200);
    expect(await page.closed).toBe(4001);
    expect(page.events).toContain("forceLogout");
    for (const token of [phone, laptop]) {
      expect((await t.request.get(`/api/v1/users/${m.user.id}`).set(bearer(token))).status).toBe(401);
    }
    expect((await reloadUser(t.db, m.user.id)).isOnline).toBe(false);
    expect((await t.request.post("/api/v1/auth/login").send({ ...m, password: "Changed-by-admin-1" })).status).toBe(200);
  });

  it("an admin changing his own password keeps the session he did it from; his other ones end", async () => {
    const second = await createUser(t.db, { login: "second-admin", isAdmin: true });
    const here = await t.tokenFor(second);
    const there = await t.tokenFor(second);
    const herePage = await watchedSocket(here);
    const therePage = await watchedSocket(there);

    const res = await t.request.patch(`/api/v1/users/${second.user.id}`).set(bearer(here)).send({ password: "My-own-new-1" });
    expect(res.status).toBe(200);
    expect(await therePage.closed).toBe(4001);
    expect((await t.request.get(`/api/v1/users/${second.user.id}`).set(bearer(there))).status).toBe(401);
    expect((await t.request.get(`/api/v1/users/${second.user.id}`).set(bearer(here))).status).toBe(200);
    expect(herePage.events).not.toContain("forceLogout");
    expect(herePage.ws.readyState).toBe(WebSocket.OPEN);
    expect((await reloadUser(t.db, second.user.id)).isOnline).toBe(true);
    herePage.ws.close();
  });
});

describe("GET /api/v1/users/online", () => {
  it("lists users with a live socket and a live session, not those merely logged in", async () => {
    const withSocket = await createUser(t.db, { login: "socketed", displayName: "Ника" });
    const withoutSocket = await createUser(t.db, { login: "tokenonly" });
    const ws = await present(await t.tokenFor(withSocket));
    await t.tokenFor(withoutSocket);
    await eventually(async () => (await onlineLogins()).includes("socketed"));
    const list = await t.request.get("/api/v1/users/online").set(bearer(admin));
    expect(list.body.find((u: { login: string }) => u.login === "socketed")).toEqual({
      id: withSocket.user.id,
      login: "socketed",
      displayName: "Ника",
      isAdmin: false,
      lastSeen: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      state: "idle",
      stateSince: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      callId: null,
      ringing: false,
    });
    expect(await onlineLogins()).not.toContain("tokenonly");

    // A forced logout takes him off the list at once, without waiting for the grace period.
    await t.request.post(`/api/v1/auth/force-logout/${withSocket.user.id}`).set(bearer(admin));
    expect(await onlineLogins()).not.toContain("socketed");
    ws.close();
  });

  it("is for admins only", async () => {
    const manager = await t.tokenFor(await createUser(t.db, { login: "peeker" }));
    expect((await t.request.get("/api/v1/users/online")).status).toBe(401);
    expect((await t.request.get("/api/v1/users/online").set(bearer(manager))).status).toBe(403);
  });
});
