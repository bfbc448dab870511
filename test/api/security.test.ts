import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { links, statuses } from "../../db/schema";
import { ADMIN, bearer, createTestApp, createUser, getPage, type TestApp, useTestApp } from "../helpers/app";

/**
 * Issue 9, Security: headers, session cookie, Origin checks, session rotation, login throttling, no internals in
 * any answer, secrets only from the environment. The authorization matrix is in authz-matrix.test.ts.
 */

/** The same app served as if behind an HTTPS proxy (COOKIE_SECURE, TRUST_PROXY) with a softphone configured. */
let secure: TestApp;

const t = useTestApp({ web: true });
beforeAll(async () => {
  secure = await createTestApp({
    web: true,
    env: { COOKIE_SECURE: "true", TRUST_PROXY: "1", SIP_WS_URL: "wss://pbx.example.com:8089/ws", SIP_DOMAIN: "pbx.example.com" },
  });
}, 180_000);

afterAll(async () => {
  await secure?.close();
});

const HOST = "app.example";
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const setCookies = (res: { headers: Record<string, unknown> }) => ([] as string[]).concat((res.headers["set-cookie"] as string[]) ?? []);
const sessionCookieOf = (res: { headers: Record<string, unknown> }) => setCookies(res).find((c) => c.startsWith("session="));
const cookiePair = (cookie: string) => cookie.split(";")[0];

/** Logs in through the page form (same origin); extra headers as given. */
function formLogin(app: TestApp, credentials: { login: string; password: string; accessKey: string }, headers: Record<string, string> = {}) {
  let req = app.request.post("/auth?index").set("Host", HOST).set("Content-Type", "application/x-www-form-urlencoded");
  for (const [name, value] of Object.entries(headers)) req = req.set(name, value);
  return req.send(form(credentials));
}

async function adminSession(app: TestApp = t): Promise<string> {
  const res = await formLogin(app, ADMIN);
  expect(res.status).toBe(302);
  return cookiePair(sessionCookieOf(res)!);
}

function cspOf(res: { headers: Record<string, unknown> }): Map<string, string> {
  const csp = String(res.headers["content-security-policy"] ?? "");
  return new Map(
    csp
      .split(";")
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const [name, ...values] = part.split(/\s+/);
        return [name, values.join(" ")] as [string, string];
      }),
  );
}

describe("security headers", () => {
  it("are on every kind of answer: page, API, API error, 404, refused post", async () => {
    const auth = await getPage(t, "/auth");
    const answers = {
      page: auth,
      api: await t.request.get("/api/v1/health"),
      apiError: await t.request.get("/api/v1/users"),
      apiUnknown: await t.request.get("/api/v1/no-such-route"),
      notFound: await getPage(t, "/no/such/page"),
      missingAsset: await getPage(t, "/build/no-such-file.js"),
      refused: await t.request.post("/logout").set("Origin", "https://evil.example").send(""),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect(res.headers["x-content-type-options"], what).toBe("nosniff");
      expect(res.headers["referrer-policy"], what).toBe("same-origin");
      expect(res.headers["x-frame-options"], what).toBe("DENY");
      expect(res.headers["x-powered-by"], what).toBeUndefined();
      const csp = cspOf(res);
      expect(csp.get("frame-ancestors"), what).toBe("'none'");
      expect(csp.get("default-src"), what).toBe("'self'");
      expect(csp.get("object-src"), what).toBe("'none'");
      expect(csp.get("base-uri"), what).toBe("'self'");
      expect(csp.get("form-action"), what).toBe("'self'");
      // Scripts: our own files and this response's nonce; never inline handlers, eval or other hosts.
      expect(csp.get("script-src"), what).toMatch(/^'self' 'nonce-[A-Za-z0-9+/=]{16,}'$/);
      // Over plain HTTP with COOKIE_SECURE unset: no HSTS (it would lock a LAN install out).
      expect(res.headers["strict-transport-security"], what).toBeUndefined();
    }
    expect(answers.refused.status).toBe(403);
  });

  it("on the build's scripts and stylesheets: only what a browser uses for them, a document's stay on documents (decisions 088, 091)", async () => {
    const auth = await getPage(t, "/auth");
    expect(auth.headers["x-request-id"]).toBeTruthy();
    const assets = [...auth.text.matchAll(/(?:src|href)="(\/build\/[^"]+\.(?:css|js))"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThan(1);
    for (const asset of assets) {
      const res = await t.request.get(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers["content-type"], asset).toBe(asset.endsWith(".js") ? "text/javascript" : "text/css; charset=utf-8");
      expect(res.headers["cache-control"], asset).toBe("public, max-age=31536000, immutable");
      // Neither the request's id, nor ranges, nor any security header: they govern documents, not a public script.
      for (const name of [
        "x-request-id",
        "accept-ranges",
        "referrer-policy",
        "content-security-policy",
        "x-frame-options",
        "cross-origin-opener-policy",
        "x-content-type-options",
        "cross-origin-resource-policy",
        "x-powered-by",
        "last-modified",
      ]) {
        expect(res.headers[name], `${asset} ${name}`).toBeUndefined();
      }
    }
  });

  it("let the realtime socket (same origin) and the softphone's SIP WebSocket connect, and nothing else", async () => {
    // Same-origin ws:/wss: is 'self' in CSP 3 (the browser test in test/e2e/xss.test.ts opens both for real).
    expect(cspOf(await getPage(t, "/auth")).get("connect-src")).toBe("'self'");
    const res = await getPage(secure, "/auth");
    expect(cspOf(res).get("connect-src")).toBe("'self' wss://pbx.example.com:8089");
    // The root loader hands the softphone exactly that socket.
    expect(res.text).toContain("wss://pbx.example.com:8089/ws");
  });

  it("send HSTS only when the app says it is served over HTTPS (COOKIE_SECURE)", async () => {
    const res = await getPage(secure, "/auth");
    expect(res.headers["strict-transport-security"]).toMatch(/max-age=\d{7,}/);
  });

  it("carry a CSP nonce on every inline script of a logged-in page, and the nonce changes per answer", async () => {
    const session = await adminSession();
    const pages = ["/", "/leadpanel", "/edit-statuses", "/payments"];
    const nonces = new Set<string>();
    for (const page of pages) {
      const res = await getPage(t, page, session);
      expect(res.status, page).toBe(200);
      const nonce = /'nonce-([^']+)'/.exec(String(res.headers["content-security-policy"]))![1];
      nonces.add(nonce);
      const scripts = [...res.text.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
      expect(scripts.length, page).toBeGreaterThan(0);
      for (const attributes of scripts) {
        if (/\bsrc=/.test(attributes)) continue;
        expect(attributes, page).toContain(`nonce="${nonce}"`);
      }
      // No inline event handler attributes anywhere (CSP would block them: they must not be needed).
      expect(res.text, page).not.toMatch(/<[a-z][^>]*\son[a-z]+\s*=\s*["']/i);
    }
    expect(nonces.size).toBe(pages.length);
  });
});

describe("the session cookie", () => {
  it("is HttpOnly, SameSite=Lax, Path=/, has a lifetime, and is not Secure over plain HTTP", async () => {
    const res = await formLogin(t, ADMIN);
    const cookie = sessionCookieOf(res)!;
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\/(;|$)/);
    expect(cookie).toMatch(/; Max-Age=2592000/);
    expect(cookie).not.toMatch(/; Secure/i);
    expect(cookie).not.toMatch(/; Domain=/i);
  });

  it("is Secure when a proxy says the browser came over HTTPS (X-Forwarded-Proto or Forwarded)", async () => {
    const viaXfp = sessionCookieOf(await formLogin(t, ADMIN, { "X-Forwarded-Proto": "https" }))!;
    expect(viaXfp).toMatch(/; Secure/i);
    expect(viaXfp).toMatch(/; HttpOnly/i);
    const viaForwarded = sessionCookieOf(await formLogin(t, ADMIN, { Forwarded: "for=10.0.0.1;proto=https;host=app.example" }))!;
    expect(viaForwarded).toMatch(/; Secure/i);
    // A proxy saying http does not make it Secure.
    expect(sessionCookieOf(await formLogin(t, ADMIN, { "X-Forwarded-Proto": "http" }))).not.toMatch(/; Secure/i);
    // Clearing it at logout behind HTTPS is Secure too (a browser ignores a non-Secure overwrite of a Secure cookie).
    const session = await adminSession();
    const logout = await t.request
      .post("/logout")
      .set("Host", HOST)
      .set("X-Forwarded-Proto", "https")
      .set("Cookie", session)
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send("");
    expect(sessionCookieOf(logout)).toMatch(/^session=;.*Max-Age=0.*; Secure/i);
  });

  it("is not the only one: behind HTTPS every cookie the pages set is Secure (session, flash, theme), over HTTP none", async () => {
    const setCookies = (res: { headers: Record<string, unknown> }) => [res.headers["set-cookie"] ?? []].flat() as string[];
    const login = setCookies(await formLogin(t, ADMIN, { "X-Forwarded-Proto": "https" }));
    expect(login.map((cookie) => cookie.split("=")[0]).sort()).toEqual(["flash", "session"]);
    for (const cookie of login) expect(cookie).toMatch(/; Secure$|; Secure;/i);
    const theme = (proto: string) =>
      t.request
        .post("/theme")
        .set("Host", HOST)
        .set("X-Forwarded-Proto", proto)
        .set("Content-Type", "application/x-www-form-urlencoded")
        .send("theme=dark&redirectTo=/auth");
    const [overHttps] = setCookies(await theme("https"));
    expect(overHttps).toMatch(/^theme=.*; Secure/i);
    const [overHttp] = setCookies(await theme("http"));
    expect(overHttp).toMatch(/^theme=/);
    expect(overHttp).not.toMatch(/; Secure/i);
    for (const cookie of setCookies(await formLogin(t, ADMIN))) expect(cookie).not.toMatch(/; Secure/i);
  });

  it("is always Secure when COOKIE_SECURE is set", async () => {
    const cookie = sessionCookieOf(await formLogin(secure, ADMIN))!;
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/; HttpOnly/i);
  });
});

describe("a fresh session id at every login", () => {
  it("logging in again from the same browser ends the session it had", async () => {
    const first = await adminSession();
    expect((await getPage(t, "/leadpanel", first)).status).toBe(200);
    const again = await formLogin(t, ADMIN, { Cookie: first });
    const second = cookiePair(sessionCookieOf(again)!);
    expect(second).not.toBe(first);
    expect((await getPage(t, "/leadpanel", second)).status).toBe(200);
    const old = await getPage(t, "/leadpanel", first);
    expect(old.status).toBe(302);
    expect(old.headers.location).toBe("/auth");
    // The old id is no bearer token either.
    expect((await t.request.get("/api/v1/users/1").set(bearer(first.slice("session=".length)))).status).toBe(401);
  });

  it("never adopts a session id the browser brought (session fixation)", async () => {
    const planted = "session=attacker-chosen-session-id-0123456789";
    const res = await formLogin(t, ADMIN, { Cookie: planted });
    expect(res.status).toBe(302);
    const issued = cookiePair(sessionCookieOf(res)!);
    expect(issued).not.toBe(planted);
    expect(issued.length).toBeGreaterThan("session=".length + 20);
    expect((await getPage(t, "/leadpanel", planted)).status).toBe(302);
    expect((await getPage(t, "/leadpanel", issued)).status).toBe(200);
  });

  it("a login on another device leaves this one alone (each browser has its own session)", async () => {
    const manager = await createUser(t.db, { login: "two-devices" });
    const phone = cookiePair(sessionCookieOf(await formLogin(t, manager))!);
    const laptop = cookiePair(sessionCookieOf(await formLogin(t, manager))!);
    expect(phone).not.toBe(laptop);
    expect((await getPage(t, "/profile", phone)).status).toBe(200);
    expect((await getPage(t, "/profile", laptop)).status).toBe(200);
  });
});

describe("Origin checks on cookie-authenticated posts to pages", () => {
  it("refuses a form post from another site with 403 and a Russian message, and changes nothing", async () => {
    const session = await adminSession();
    const before = (await t.db.select().from(statuses)).length;
    for (const origin of ["https://evil.example", "http://app.example.evil.example", "http://app.example:8080", "null"]) {
      const res = await t.request
        .post("/edit-statuses")
        .set("Host", HOST)
        .set("Origin", origin)
        .set("Cookie", session)
        .set("Content-Type", "application/x-www-form-urlencoded")
        // A whole draft row: without the check it would make a status (issue 41: «Добавить статус» saves nothing by itself).
        .send(form({ intent: "create", text: "Статус с чужого сайта", color: "#f59e0b" }));
      expect(res.status, origin).toBe(403);
      expect(res.text).toBe("Запрос отклонён: он пришёл с чужого сайта.");
    }
    expect((await t.db.select().from(statuses)).length).toBe(before);
  });

  it("refuses a cross-site login form (login CSRF): no session cookie is set", async () => {
    const res = await formLogin(t, ADMIN, { Origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(sessionCookieOf(res)).toBeUndefined();
  });

  it("lets a same-origin post and a post without Origin through", async () => {
    const same = await formLogin(t, ADMIN, { Origin: `http://${HOST}` });
    expect(same.status).toBe(302);
    expect(same.headers.location).toBe("/leadpanel");
    const none = await formLogin(t, ADMIN);
    expect(none.status).toBe(302);
    // Behind a proxy that rewrites Host, the public host comes in X-Forwarded-Host.
    const proxied = await t.request
      .post("/auth?index")
      .set("Host", "127.0.0.1:3000")
      .set("X-Forwarded-Host", HOST)
      .set("Origin", `https://${HOST}`)
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(form(ADMIN));
    expect(proxied.status).toBe(302);
    // A same-origin admin form works.
    const session = cookiePair(sessionCookieOf(none)!);
    const created = await t.request
      .post("/edit-statuses")
      .set("Host", HOST)
      .set("Origin", `http://${HOST}`)
      .set("Cookie", session)
      .set("Content-Type", "application/x-www-form-urlencoded")
      .send(form({ intent: "create", text: "Статус из своей формы", color: "#f59e0b" }));
    expect(created.status).toBeLessThan(400);
    expect((await t.db.select().from(statuses)).map((s) => s.text)).toContain("Статус из своей формы");
  });

  it("does not apply to the bearer-token API, which never reads the cookie", async () => {
    const token = await t.adminToken();
    const res = await t.request
      .post("/api/v1/links")
      .set("Origin", "https://evil.example")
      .set(bearer(token))
      .send({ name: "API", link: "https://example.com" });
    expect(res.status).toBe(200);
    // The cookie alone is refused there whatever the Origin.
    const session = await adminSession();
    const cookieOnly = await t.request.post("/api/v1/links").set("Cookie", session).send({ name: "Куки", link: "https://example.com" });
    expect(cookieOnly.status).toBe(401);
  });
});

describe("redirects", () => {
  it("the theme switch goes back only to our own pages, however the address is disguised", async () => {
    const post = (redirectTo: string) =>
      t.request
        .post("/theme")
        .set("Host", HOST)
        .set("Content-Type", "application/x-www-form-urlencoded")
        .send(form({ theme: "dark", redirectTo }));
    expect((await post("/payments?size=10")).headers.location).toBe("/payments?size=10");
    const disguises = [
      ...["https://evil.example/", "//evil.example", "/\\evil.example", "/\t/evil.example", "\\/evil.example", "javascript:alert(1)"],
      // Dot segments: the path they leave starts with "//" ("/.//evil.example" was answered Location: //evil.example).
      ...["/%09/evil.example", "/.//evil.example", "/./\\evil.example", "/..//evil.example", "/a/..//evil.example", "/%2e//evil.example"],
    ];
    for (const evil of disguises) {
      const res = await post(evil);
      expect(res.status, evil).toBe(302);
      const location = String(res.headers.location);
      // Wherever it points, a browser resolving it stays on this host.
      expect(new URL(location, `http://${HOST}/`).host, `${evil} → ${location}`).toBe(HOST);
    }
  });

  it("the API answers no CORS headers to another site", async () => {
    const res = await t.request.options("/api/v1/users").set("Origin", "https://evil.example").set("Access-Control-Request-Method", "GET");
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const get = await t.request.get("/api/v1/health").set("Origin", "https://evil.example");
    expect(get.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("login throttling", () => {
  it("locks a login after five failures through the page form too, for the form and the API, and only that login", async () => {
    const victim = await createUser(t.db, { login: "form-throttled" });
    const other = await createUser(t.db, { login: "form-not-throttled" });
    for (let i = 0; i < 5; i++) {
      const res = await formLogin(t, { ...victim, password: `wrong-${i}` });
      expect(res.status).toBe(401);
      expect(res.text).toContain("Неверный логин или пароль");
    }
    const locked = await formLogin(t, victim);
    expect(locked.status).toBe(429);
    expect(locked.text).toContain("Слишком много неудачных попыток входа");
    expect(sessionCookieOf(locked)).toBeUndefined();
    const api = await t.request.post("/api/v1/auth/login").send({ login: victim.login, password: victim.password, accessKey: victim.accessKey });
    expect(api.status).toBe(429);
    expect(api.body.message).toMatch(/^Слишком много неудачных попыток входа\. Попробуйте через \d+ мин\.$/);
    // Failures with a wrong access key count as well; another login is not affected.
    expect((await formLogin(t, other)).status).toBe(302);
    // Without TRUST_PROXY a client cannot name another address to escape the lock.
    expect((await formLogin(t, victim, { "X-Forwarded-For": "203.0.113.99" })).status).toBe(429);
  });

  it("behind a trusted proxy, failures from one address leave the form and the API open from another", async () => {
    const victim = await createUser(secure.db, { login: "proxied-victim" });
    const fromA = { "X-Forwarded-For": "198.51.100.1" };
    const fromB = { "X-Forwarded-For": "198.51.100.2" };
    for (let i = 0; i < 5; i++) expect((await formLogin(secure, { ...victim, password: `wrong-${i}` }, fromA)).status).toBe(401);
    expect((await formLogin(secure, victim, fromA)).status).toBe(429);
    // Both login paths read the address the same way: the API refuses A as well.
    const apiA = await secure.request
      .post("/api/v1/auth/login")
      .set(fromA)
      .send({ login: victim.login, password: victim.password, accessKey: victim.accessKey });
    expect(apiA.status).toBe(429);
    expect((await formLogin(secure, victim, fromB)).status).toBe(302);
    const apiB = await secure.request
      .post("/api/v1/auth/login")
      .set(fromB)
      .send({ login: victim.login, password: victim.password, accessKey: victim.accessKey });
    expect(apiB.status).toBe(200);
  });

  it("counts wrong access keys and unknown logins as failures too", async () => {
    const user = await createUser(t.db, { login: "key-throttled" });
    for (let i = 0; i < 5; i++) expect((await formLogin(t, { ...user, accessKey: `WRONG${i}` })).status).toBe(401);
    expect((await formLogin(t, user)).status).toBe(429);
    for (let i = 0; i < 5; i++) expect((await formLogin(t, { login: "nobody-here", password: "x", accessKey: "y" })).status).toBe(401);
    expect((await formLogin(t, { login: "nobody-here", password: "x", accessKey: "y" })).status).toBe(429);
  });
});

/** What must never reach a client: stack frames, file paths, SQL text, driver names, raw exception names. */
const LEAKS = [
  /\n\s+at\s/,
  /\bat [\w$.<>]+ \((file:|\/|node:)/,
  /node_modules/,
  /\/work\//,
  /\.(ts|tsx|js|mjs):\d+/,
  /\bselect\s+[\w"*.,\s()]+\s+from\s+"?\w/i,
  /\binsert into\b/i,
  /\bdelete from\b/i,
  /\bupdate\s+"?\w+"?\s+set\b/i,
  /syntax error/i,
  /relation "/i,
  /does not exist/i,
  /violates/i,
  /duplicate key/i,
  /\b(postgres|pglite|drizzle)\b/i,
  /\b(TypeError|ReferenceError|SyntaxError|ZodError|RangeError)\b/,
  /"stack"\s*:/,
  /links_gone|boom-secret/i,
];

function expectNoLeak(what: string, body: string) {
  for (const pattern of LEAKS) expect(pattern.test(body), `${what} leaks ${pattern}: ${body.slice(0, 300)}`).toBe(false);
}

describe("no stack traces or SQL text in any answer", () => {
  it("API: bad ids, unknown routes, malformed bodies, wrong types", async () => {
    const token = await t.adminToken();
    const auth = bearer(token);
    const calls = [
      t.request.get("/api/v1/users/abc").set(auth),
      t.request.get("/api/v1/users/-1").set(auth),
      t.request.get("/api/v1/users/1e99").set(auth),
      t.request.get("/api/v1/users/99999999999999999999999").set(auth),
      t.request.get("/api/v1/users/1%27%20or%201%3D1--").set(auth),
      t.request.get("/api/v1/users/%E0%A4%A").set(auth),
      t.request.delete("/api/v1/links/2147483648").set(auth),
      t.request.put("/api/v1/status/0").set(auth).send({ text: "x" }),
      t.request.get("/api/v1/status/countsAllTime/%27%3B%20drop%20table%20users%3B--").set(auth),
      t.request.get("/api/v1/database/search").query({ term: "' or 1=1 --", database: "1; select 1" }).set(auth),
      t.request.delete("/api/v1/database/exports").query({ ids: "abc,1)--" }).set(auth),
      t.request.get("/api/v1/database/filtered-lead").query({ filterId: "x", userId: "[]" }).set(auth),
      t.request.get("/api/v1/no-such-route").set(auth),
      t.request.get("/api/v1/users/1/extra/segments").set(auth),
      t.request.patch("/api/v1/links").set(auth).send({}),
      t.request.post("/api/v1/links").set(auth).set("Content-Type", "application/json").send('{"name": '),
      t.request.post("/api/v1/links").set(auth).set("Content-Type", "application/json").send("[1,2,3]"),
      t.request.post("/api/v1/links").set(auth).set("Content-Type", "application/json").send('"just a string"'),
      t.request.post("/api/v1/links").set(auth).set("Content-Type", "text/xml").send("<a/>"),
      t.request
        .post("/api/v1/links")
        .set(auth)
        .send({ name: { $gt: "" }, link: ["x"] }),
      t.request
        .post("/api/v1/links")
        .set(auth)
        .send({ name: "x".repeat(100_000), link: "https://e.x" }),
      t.request.post("/api/v1/database/preview").set(auth).set("Content-Type", "multipart/form-data; boundary=zzz").send("--zzz\r\nbroken"),
      t.request
        .post("/api/v1/database/import")
        .set(auth)
        .attach("file", Buffer.from("not a spreadsheet"), "base.xlsx")
        .field("name", "x")
        .field("mappings", "{"),
      t.request.post("/api/v1/auth/login").send({ login: "'; drop table users; --", password: "x", accessKey: "y" }),
      t.request.put("/api/v1/status/update-and-get-lead").set(auth).send({ statusText: 1, contactId: "x", userId: {}, filterId: [] }),
      t.request.post("/api/v1/payments/process").set(auth).send({ userId: 1, amount: "1e400" }),
    ];
    for (const call of calls) {
      const res = await call;
      const { req } = res as unknown as { req: { method: string; path: string } };
      const what = `${req.method} ${req.path} → ${res.status}`;
      expect(res.status, what).toBeGreaterThanOrEqual(400);
      expect(res.status, what).toBeLessThan(500);
      expect(typeof res.body?.message, what).toBe("string");
      expectNoLeak(what, res.text);
    }
  });

  it("API: a database failure answers a generic Russian 500, without the SQL or the driver's message", async () => {
    const token = await t.adminToken();
    // A real database error: the table under the route is gone for a moment, and a trigger refuses writes.
    await t.db.execute(sql.raw(`alter table links rename to links_gone`));
    try {
      const res = await t.request.get("/api/v1/links").set(bearer(token));
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: "internal", message: "Внутренняя ошибка сервера. Попробуйте ещё раз." });
      expectNoLeak("GET /api/v1/links", res.text);
    } finally {
      await t.db.execute(sql.raw(`alter table links_gone rename to links`));
    }
    await t.db.execute(
      sql.raw(`create function refuse_links() returns trigger language plpgsql as $$
        begin raise exception 'boom-secret: insert into links failed at /work/main/server/core/links.ts:42'; end $$`),
    );
    await t.db.execute(sql.raw(`create trigger refuse_links before insert on links for each row execute function refuse_links()`));
    try {
      const res = await t.request.post("/api/v1/links").set(bearer(token)).send({ name: "Сбой", link: "https://example.com" });
      expect(res.status).toBe(500);
      expect(res.body.message).toBe("Внутренняя ошибка сервера. Попробуйте ещё раз.");
      expectNoLeak("POST /api/v1/links", res.text);

      // Pages: the same failure in a form post shows the generic error page.
      const session = await adminSession();
      const page = await t.request
        .post("/leadTemplate")
        .set("Host", HOST)
        .set("Cookie", session)
        .set("Accept-Encoding", "identity")
        .set("Content-Type", "application/x-www-form-urlencoded")
        .send(form({ intent: "link-save", name: "Сбой", link: "https://example.com" }));
      expect(page.status).toBe(500);
      expect(page.text).toContain("Что-то пошло не так");
      expectNoLeak("POST /leadTemplate", page.text);
    } finally {
      await t.db.execute(sql.raw(`drop trigger refuse_links on links`));
      await t.db.execute(sql.raw(`drop function refuse_links()`));
    }
    // The refused inserts wrote nothing: no link named «Сбой» (the table answers again once the trigger is gone).
    expect((await t.db.select().from(links)).map((link) => link.name)).not.toContain("Сбой");
  });

  it("pages: a database failure in a loader shows the generic error page", async () => {
    const session = await adminSession();
    await t.db.execute(sql.raw(`alter table links rename to links_gone`));
    try {
      for (const url of ["/leadTemplate", "/leadpanel"]) {
        const res = await getPage(t, url, session);
        expect(res.status, url).toBe(500);
        expect(res.text, url).toContain("Что-то пошло не так");
        expectNoLeak(url, res.text);
        // The client-side data request (what a navigation with JavaScript fetches) says nothing more.
        const dataRequest = await getPage(
          t,
          `${url}?_data=${encodeURIComponent(url === "/leadTemplate" ? "routes/_app.leadTemplate" : "routes/_app.leadpanel")}`,
          session,
        );
        expect(dataRequest.status, `${url} _data`).toBe(500);
        expectNoLeak(`${url} _data`, dataRequest.text);
      }
    } finally {
      await t.db.execute(sql.raw(`alter table links_gone rename to links`));
    }
  });

  it("pages: bad ids, unknown routes and malformed bodies", async () => {
    const session = await adminSession();
    const gets = [
      "/loadedbases/filters/abc",
      "/loadedbases/filters/99999999999999999999",
      "/payments/history/abc",
      "/payments/pay/-1",
      "/payments/balance/1e99",
      "/scripts/view/%27%20or%201%3D1",
      "/exportbase/abc/download",
      "/exportbase/99999999999999999999/download",
      "/no/such/page",
      "/leadpanel?filterId=abc&userId=[]",
      "/searchlead?term=%27%20or%201%3D1--&database=abc",
      "/%E0%A4%A",
    ];
    for (const url of gets) {
      const res = await getPage(t, url, session);
      expect(res.status, url).toBeLessThan(500);
      expectNoLeak(`GET ${url}`, res.text);
    }
    const posts: Array<[string, string, string]> = [
      ["/auth?index", "multipart/form-data; boundary=zzz", "--zzz\r\nbroken"],
      ["/auth?index", "application/x-www-form-urlencoded", "login=%E0%A4%A&password=%&accessKey=%ZZ"],
      ["/auth?index", "application/json", '{"login": '],
      ["/edit-statuses", "multipart/form-data; boundary=zzz", '--zzz\r\nContent-Disposition: form-data; name="intent"\r\n\r\ncre'],
      ["/edit-statuses", "application/x-www-form-urlencoded", "intent=save&id=abc&color=%3Cscript%3E"],
      ["/leadTemplate", "application/x-www-form-urlencoded", "intent=template-save&name=x&fields=%7B%7D%7D"],
      ["/managers", "application/x-www-form-urlencoded", "intent=delete&id=1%27--"],
      ["/payments/pay/abc", "application/x-www-form-urlencoded", "amount=1e999"],
    ];
    for (const [url, type, body] of posts) {
      const res = await t.request
        .post(url)
        .set("Host", HOST)
        .set("Cookie", session)
        .set("Accept-Encoding", "identity")
        .set("Content-Type", type)
        .send(body);
      const what = `POST ${url} (${type}) → ${res.status}`;
      expectNoLeak(what, res.text);
      // A malformed body may be refused (4xx) or shown as the generic error page, never with details.
      if (res.status >= 500) expect(res.text, what).toContain("Что-то пошло не так");
    }
  });
});

describe("secrets only from the environment", () => {
  const roots = ["server", "app", "db"];
  const files = roots.flatMap((root) =>
    (fs.readdirSync(root, { recursive: true }) as string[]).filter((file) => /\.(ts|tsx)$/.test(file)).map((file) => path.join(root, file)),
  );

  it("no secret literal in the code: cookie secrets, keys, passwords, tokens, private keys", () => {
    expect(files.length).toBeGreaterThan(50);
    const found: string[] = [];
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      const checks: Array<[RegExp, string]> = [
        [/\bsecrets\s*:\s*\[\s*["'`]/, "cookie secrets literal"],
        [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, "private key"],
        // A secret-named key or variable set to a literal that looks like a credential (labels have spaces or Cyrillic).
        [/\b\w*(password|passwd|secret|api_?key|apikey|access_?key|token)\w*["']?\s*[:=]\s*["'`][A-Za-z0-9_\-+/=.]{8,}["'`]/i, "credential literal"],
        [/\b(postgres(ql)?|mysql):\/\/[^:\s"'`]+:[^@\s"'`]+@/, "connection string with a password"],
      ];
      for (const [pattern, label] of checks) {
        for (const match of text.matchAll(new RegExp(pattern, `${pattern.flags}g`))) {
          // Alphabets a generator draws from are not secrets.
          if (/alphabet|charset|chars\b/i.test(match[0])) continue;
          // Excel's built-in read-only password, published in the file format's specification (MS-OFFCRYPTO):
          // what every reader tries on a protected-structure .xls (decision 040), not a secret of ours.
          if (/"VelvetSweatshop"$/.test(match[0])) continue;
          found.push(`${file}: ${label}: ${match[0]}`);
        }
      }
    }
    expect(found).toEqual([]);
  });

  it("only server/config.ts reads secret variables, and the session cookie needs no signing secret", () => {
    const readers = files.filter((file) => /process\.env\.(ADMIN_|TELEPHONY_|DATABASE_URL|COOKIE|SESSION)/.test(fs.readFileSync(file, "utf8")));
    expect(readers).toEqual([]);
    // Every createCookie either has no secrets (the session id is random and unguessable, not signed data)
    // or takes them from configuration.
    for (const file of files) {
      const text = fs.readFileSync(file, "utf8");
      for (const match of text.matchAll(/createCookie\(([^)]*)\)/g)) {
        if (/secrets/.test(match[1])) expect(match[1], file).toMatch(/secrets\s*:\s*(config|context|deps|env)/);
      }
    }
    // No environment file is committed.
    const tracked = execFileSync("git", ["ls-files"], { encoding: "utf8" }).split("\n");
    expect(tracked.filter((f) => /(^|\/)\.env(\.|$)/.test(f))).toEqual([]);
  });

  it("a first start without ADMIN_PASSWORD generates the admin's password and key instead of a default", async () => {
    const seedSource = fs.readFileSync("server/seed.ts", "utf8");
    expect(seedSource).toMatch(/options\.password \|\| generatePassword\(\)/);
    expect(seedSource).toMatch(/options\.accessKey \|\| generateAccessKey\(\)/);
    const { generatePassword, generateAccessKey } = await import("../../common/credentials");
    expect(generatePassword()).not.toBe(generatePassword());
    expect(generateAccessKey()).toMatch(/^[A-Za-z0-9]{16}$/);
  });
});
