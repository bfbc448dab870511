import { describe, expect, it } from "vitest";
import { ADMIN, createUser, getPage, reloadUser, useTestApp } from "../helpers/app";

const t = useTestApp({ web: true });
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function loginCookie(credentials: { login: string; password: string; accessKey: string }) {
  const res = await t.request.post("/auth?index").set("Content-Type", "application/x-www-form-urlencoded").send(form(credentials));
  expect(res.status).toBe(302);
  const cookies = ([] as string[]).concat(res.headers["set-cookie"] ?? []);
  const session = cookies.find((c) => c.startsWith("session="))!;
  return { res, session: session.split(";")[0], cookies };
}

describe("pages with a cookie session", () => {
  it("sends an anonymous visitor from / to /auth", async () => {
    const res = await t.request.get("/");
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/auth");
  });

  it("logs in through the form: an httpOnly SameSite=Lax cookie, then /leadpanel with the layout", async () => {
    const { res, session, cookies } = await loginCookie(ADMIN);
    expect(res.headers.location).toBe("/leadpanel");
    const sessionCookie = cookies.find((c) => c.startsWith("session="))!;
    expect(sessionCookie).toMatch(/HttpOnly/);
    expect(sessionCookie).toMatch(/SameSite=Lax/);

    const page = await getPage(t, "/leadpanel", session);
    expect(page.status).toBe(200);
    expect(page.text).toContain("ДЛЯ РАБОТЫ");
    expect(page.text).toContain("УПРАВЛЕНИЕ");
    expect(page.text).toContain("Администратор");
    // React 18 streaming can leak NUL bytes next to Cyrillic at its 2 KB buffer edge; entry.server drops them.
    expect(page.text).not.toContain("\u0000");
  });

  it("answers the form's own message when a field is empty (JavaScript off)", async () => {
    const res = await t.request
      .post("/auth?index")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(form({ login: "admin", password: "", accessKey: "x" }));
    expect(res.status).toBe(400);
    expect(res.text).toContain("Укажите пароль");
  });

  it("refuses a cookie-authenticated post from another site", async () => {
    const { session } = await loginCookie(ADMIN);
    const res = await t.request
      .post("/logout")
      .set("Cookie", session)
      .set("Origin", "https://evil.example")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send("");
    expect(res.status).toBe(403);
    // Still logged in.
    expect((await t.request.get("/leadpanel").set("Cookie", session)).status).toBe(200);
  });

  it("hides admin pages and the admin menu from a manager", async () => {
    const manager = await createUser(t.db, { login: "page-manager" });
    const { session } = await loginCookie(manager);
    const home = await getPage(t, "/leadpanel", session);
    expect(home.text).not.toContain("УПРАВЛЕНИЕ");
    const admin = await t.request.get("/managers").set("Cookie", session);
    expect(admin.status).toBe(403);
  });

  it("ends the page session when the user's isOnline turns false (logout elsewhere)", async () => {
    const manager = await createUser(t.db, { login: "elsewhere" });
    const { session } = await loginCookie(manager);
    const token = await t.tokenFor(manager);
    await t.request.post(`/api/v1/users/logout/${manager.user.id}`).set("Authorization", `Bearer ${token}`);
    const res = await t.request.get("/leadpanel").set("Cookie", session);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/auth");
    expect((await reloadUser(t.db, manager.user.id)).isOnline).toBe(false);
  });

  it("a new password from the /managers edit form ends the manager's page and API sessions", async () => {
    const manager = await createUser(t.db, { login: "page-reset" });
    const { session } = await loginCookie(manager);
    const token = await t.tokenFor(manager);
    const { session: adminSession } = await loginCookie(ADMIN);
    const res = await t.request
      .post("/managers")
      .set("Cookie", adminSession)
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(form({ intent: "updateRow", id: String(manager.user.id), displayName: "Сброшен", password: "Form-new-pass-1" }));
    expect(res.status).toBe(302);
    const page = await t.request.get("/leadpanel").set("Cookie", session);
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe("/auth");
    expect((await t.request.get(`/api/v1/users/${manager.user.id}`).set("Authorization", `Bearer ${token}`)).status).toBe(401);
    // The admin who did it is still in.
    expect((await t.request.get("/managers").set("Cookie", adminSession)).status).toBe(200);
  });

  it("logs out with a same-origin post and lands on /auth", async () => {
    const { session } = await loginCookie(ADMIN);
    const res = await t.request
      .post("/logout")
      .set("Cookie", session)
      .set("Origin", `http://${"127.0.0.1"}`)
      .set("Host", "127.0.0.1")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send("");
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe("/auth");
    expect((await t.request.get("/leadpanel").set("Cookie", session)).status).toBe(302);
  });

  it("renders the 404 page with the SPEC text", async () => {
    const res = await getPage(t, "/definitely/not/here");
    expect(res.status).toBe(404);
    expect(res.text).toContain("Страница не найдена");
    expect(res.text).toContain("Извините, запрашиваемая страница не существует");
  });

  it("serves built assets with a long-lived cache header", async () => {
    const page = await t.request.get("/auth");
    const asset = /href="(\/build\/[^"]+\.css)"/.exec(page.text)?.[1];
    expect(asset).toBeDefined();
    const res = await t.request.get(asset!);
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toMatch(/max-age=31536000/);
  });

  it("sends security headers, and every inline script carries this response's CSP nonce", async () => {
    const res = await getPage(t, "/auth");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("same-origin");
    const csp = res.headers["content-security-policy"] as string;
    expect(csp).toContain("frame-ancestors 'none'");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeTruthy();
    const inlineScripts = [...res.text.matchAll(/<script(?![^>]*\bsrc=)([^>]*)>/g)];
    expect(inlineScripts.length).toBeGreaterThan(0);
    for (const [, attributes] of inlineScripts) expect(attributes).toContain(`nonce="${nonce}"`);
    // A new nonce for every response.
    const again = await getPage(t, "/auth");
    expect(again.headers["content-security-policy"]).not.toBe(csp);
  });

  it("sends the same headers on API answers", async () => {
    const res = await t.request.get("/api/v1/health");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["content-security-policy"]).toContain("default-src 'self'");
  });
});
