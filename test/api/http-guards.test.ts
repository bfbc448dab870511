import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ADMIN, bearer, getPage, useTestApp } from "../helpers/app";

/**
 * Issue 14, HTTP edges found by a penetration test: paths that cost the router seconds, methods pages do not
 * serve, and answers that depend on a session being stored by a browser or proxy.
 */

let port = 0;

const t = useTestApp({ web: true });
beforeAll(async () => {
  // Raw requests (below) need a port: superagent would tidy the odd paths before sending them.
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as AddressInfo).port;
}, 180_000);

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  ms: number;
}

/** One request exactly as given (path and method untouched), on a connection of its own. */
function raw(method: string, path: string, headers: Record<string, string> = {}): Promise<Raw> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8"), ms: performance.now() - started }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function adminCookie(): Promise<string> {
  const res = await t.request.post("/auth?index").set("Content-Type", "application/x-www-form-urlencoded").send(form(ADMIN));
  expect(res.status).toBe(302);
  const session = ([] as string[]).concat(res.headers["set-cookie"] ?? []).find((c) => c.startsWith("session="))!;
  return session.split(";")[0];
}

describe("paths of many slashes", () => {
  const SLASHES = "/".repeat(15_000);
  const attacks = [
    `/${SLASHES}`,
    `/${SLASHES}api/v1/health`,
    `/api/v1/${SLASHES}`,
    `/api/v1/health${SLASHES}`,
    `/realtime${SLASHES}`,
    `/build${SLASHES}x.js`,
    "/a/".repeat(5_000),
    // Short enough, but 512 segments: Remix would still spend tens of milliseconds on it.
    "/a".repeat(512),
    // Too long, and cut inside a percent escape (the router refuses those before any hook): too long first.
    `/api/v1/${"a/".repeat(3_000)}%2e%`,
    `/payments/history/1${SLASHES}%2e%`,
  ];

  it("are refused (414, a short Russian text) before any router spends time on them, and health stays fast", async () => {
    // Baselines from this run on this machine: an ordinary 404 page and the health check.
    await raw("GET", "/definitely/not/here");
    const page404: number[] = [];
    const health: number[] = [];
    for (let i = 0; i < 7; i++) {
      page404.push((await raw("GET", "/definitely/not/here")).ms);
      health.push((await raw("GET", "/api/v1/health")).ms);
    }
    const pageBaseline = median(page404);
    const healthBaseline = median(health);

    // 64 at once (each before the fix: 0.3-1.5 s of CPU), with health asked in the middle of them.
    const started = performance.now();
    const batch = Array.from({ length: 64 }, (_, i) => raw("GET", attacks[i % attacks.length]));
    const healthDuring = await raw("GET", "/api/v1/health");
    const answers = await Promise.all(batch);
    const total = performance.now() - started;

    for (const [i, res] of answers.entries()) {
      const what = attacks[i % attacks.length].slice(0, 30);
      expect(res.status, what).toBe(414);
      if (attacks[i % attacks.length].startsWith("/api/v1/")) {
        expect(JSON.parse(res.text), what).toEqual({ error: "url_too_long", message: "Слишком длинный адрес запроса" });
      } else {
        expect(res.text, what).toBe("Слишком длинный адрес запроса");
      }
    }
    expect(healthDuring.status).toBe(200);
    // Generous: the whole batch costs less than 64 ordinary 404 pages, health less than 20 of them.
    expect(total, `batch ${total.toFixed(0)} ms, a 404 page ${pageBaseline.toFixed(1)} ms`).toBeLessThan(64 * pageBaseline + 500);
    expect(healthDuring.ms, `health ${healthDuring.ms.toFixed(0)} ms, baseline ${healthBaseline.toFixed(1)} ms`).toBeLessThan(
      20 * pageBaseline + 20 * healthBaseline + 200,
    );
  });

  it("a short path with doubled slashes or backslashes is redirected to the collapsed path, query kept", async () => {
    const cases: Array<[string, string]> = [
      ["//auth", "/auth"],
      ["//evil.example", "/evil.example"],
      ["/\\evil.example", "/evil.example"],
      ["/\\/\\evil.example/x", "/evil.example/x"],
      ["/payments//history///1?size=10&back=//x", "/payments/history/1?size=10&back=//x"],
      ["/api/v1//health", "/api/v1/health"],
      ["//api/v1/users?term=a", "/api/v1/users?term=a"],
      ["/realtime//", "/realtime/"],
      ["/build//x.js", "/build/x.js"],
    ];
    for (const [path, location] of cases) {
      for (const method of ["GET", "POST"]) {
        const res = await raw(method, path);
        expect(res.status, `${method} ${path}`).toBe(308);
        expect(res.headers.location, `${method} ${path}`).toBe(location);
      }
    }
    // The redirect lands on the page itself.
    const landed = await raw("GET", "/api/v1/health");
    expect(landed.status).toBe(200);
  });
});

describe("methods pages do not serve", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("answer 405 with Allow and a Russian text, and log nothing", async () => {
    const logged: unknown[] = [];
    vi.spyOn(console, "error").mockImplementation((...args) => void logged.push(args));
    vi.spyOn(console, "warn").mockImplementation((...args) => void logged.push(args));
    const cookie = await adminCookie();
    for (const path of ["/", "/auth", "/leadpanel", "/managers", "/theme", "/no/such/page"]) {
      for (const method of ["TRACE", "OPTIONS", "PROPFIND", "PUT", "PATCH", "DELETE", "MKCOL", "LOCK"]) {
        for (const headers of [{}, { Cookie: cookie }] as Array<Record<string, string>>) {
          const res = await raw(method, path, headers);
          const what = `${method} ${path}${"Cookie" in headers ? " (logged in)" : ""}`;
          expect(res.status, what).toBe(405);
          expect(res.headers.allow, what).toBe("GET, HEAD, POST");
          expect(res.text, what).toBe("Метод не поддерживается");
        }
      }
    }
    expect(logged).toEqual([]);
  });

  it("the API answers 405 with Allow for a known address and 404 for an unknown one, token or not", async () => {
    const token = await t.adminToken();
    for (const auth of [{}, bearer(token)]) {
      const wrong = await raw("DELETE", "/api/v1/health", auth);
      expect(wrong.status).toBe(405);
      expect(wrong.headers.allow).toBe("GET, HEAD");
      expect(JSON.parse(wrong.text)).toEqual({ error: "method_not_allowed", message: "Этот адрес API не принимает такой метод запроса" });
      const options = await raw("OPTIONS", "/api/v1/links?x=1", auth);
      expect(options.status).toBe(405);
      expect(options.headers.allow).toBe("GET, HEAD, POST");
      const trace = await raw("TRACE", "/api/v1/users/1", auth);
      expect(trace.status).toBe(405);
      const unknown = await raw("PROPFIND", "/api/v1/no-such-route", auth);
      expect(unknown.status).toBe(404);
      expect(JSON.parse(unknown.text)).toEqual({ error: "not_found", message: "Такого адреса API нет" });
    }
    // A real route still wants its token.
    expect((await raw("GET", "/api/v1/users")).status).toBe(401);
  });
});

describe("answers that depend on a session are never stored", () => {
  it("pages of a logged-in user, their data requests and the redirects after a form: Cache-Control no-store", async () => {
    const cookie = await adminCookie();
    const answers = {
      managers: await getPage(t, "/managers", cookie),
      payments: await getPage(t, "/payments", cookie),
      paymentsData: await getPage(t, "/payments.data", cookie),
      leadpanel: await getPage(t, "/leadpanel", cookie),
      anonymousRedirect: await getPage(t, "/managers"),
      login: await getPage(t, "/auth"),
      themeRedirect: await t.request
        .post("/theme")
        .set("Cookie", cookie)
        .type("form")
        .send(form({ theme: "dark", redirectTo: "/managers" })),
      notFound: await getPage(t, "/no/such/page", cookie),
    };
    expect(answers.managers.status).toBe(200);
    expect(answers.managers.text).toContain("ADMINKEY00000001");
    expect(answers.payments.status).toBe(200);
    expect(answers.paymentsData.status).toBe(200);
    expect(answers.themeRedirect.status).toBe(302);
    for (const [what, res] of Object.entries(answers)) expect(res.headers["cache-control"], what).toBe("no-store");
  });

  it("every /api/v1 answer: data, errors, health; fingerprinted assets keep their year-long cache", async () => {
    const token = await t.adminToken();
    const answers = {
      users: await t.request.get("/api/v1/users").set(bearer(token)),
      online: await t.request.get("/api/v1/users/online").set(bearer(token)),
      unauthorized: await t.request.get("/api/v1/users"),
      badRequest: await t.request.get("/api/v1/users/abc").set(bearer(token)),
      notFound: await t.request.get("/api/v1/no-such-route").set(bearer(token)),
      health: await t.request.get("/api/v1/health"),
      login: await t.request.post("/api/v1/auth/login").send(ADMIN),
    };
    expect(answers.users.status).toBe(200);
    expect(answers.online.status).toBe(200);
    expect(answers.login.status).toBe(200);
    for (const [what, res] of Object.entries(answers)) expect(res.headers["cache-control"], what).toBe("no-store");

    const page = await t.request.get("/auth");
    const asset = /(\/build\/[^"]+\.js)"/.exec(page.text)?.[1];
    expect(asset).toBeDefined();
    const res = await t.request.get(asset!);
    expect(res.status).toBe(200);
    expect(res.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
  });
});
