import http from "node:http";
import type { AddressInfo } from "node:net";
import zlib from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, useTestApp } from "../helpers/app";

/**
 * Issue 9, low bandwidth: pages, CSS and JavaScript go out compressed, and the fingerprinted assets under
 * /build/ may be kept by the browser for a year (their name changes with their content), while pages may not.
 */
let port: number;
const t = useTestApp({ web: true });
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as AddressInfo).port;
});

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as sent (still compressed). */
  body: Buffer;
  /** The body decoded according to its Content-Encoding. */
  text: string;
}

/** A plain HTTP GET that keeps the body as sent, the way a browser that accepts brotli and gzip asks. */
function get(path: string, headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path, headers: { "Accept-Encoding": "br, gzip, deflate", ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const body = Buffer.concat(chunks);
        const encoding = res.headers["content-encoding"];
        const decoded = encoding === "br" ? zlib.brotliDecompressSync(body) : encoding === "gzip" ? zlib.gunzipSync(body) : body;
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, text: decoded.toString("utf8") });
      });
      res.on("error", reject);
    });
    request.on("error", reject);
  });
}

async function adminCookie(): Promise<string> {
  const res = await t.request
    .post("/auth?index")
    .set("Origin", `http://127.0.0.1:${port}`)
    .set("Content-Type", "application/x-www-form-urlencoded")
    .send(new URLSearchParams(ADMIN).toString());
  expect(res.status).toBe(302);
  const session = ([] as string[]).concat(res.headers["set-cookie"] ?? []).find((c) => c.startsWith("session="))!;
  return session.split(";")[0];
}

const YEAR = /^public, max-age=31536000, immutable$/;

describe("compression and caching", () => {
  it("compresses the login page, and its CSS and JavaScript are compressed and cached for a year", async () => {
    const page = await get("/auth");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toMatch(/^text\/html/);
    expect(["br", "gzip"]).toContain(page.headers["content-encoding"]);
    expect(page.body.length).toBeLessThan(page.text.length / 2);
    expect(page.text).toContain("Вход в систему");
    // A page is never stored for a year: it changes with the data.
    expect(page.headers["cache-control"] ?? "").not.toMatch(/immutable|max-age=31536000/);

    const css = [...page.text.matchAll(/href="(\/build\/[^"]+\.css)"/g)].map((m) => m[1]);
    const js = [...page.text.matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]);
    expect(css.length).toBeGreaterThan(0);
    expect(js.length).toBeGreaterThan(0);
    for (const asset of [...css, ...js]) {
      const res = await get(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers["cache-control"], asset).toMatch(YEAR);
      // Every asset worth compressing (compression skips bodies under 1 KB) goes out compressed.
      if (res.text.length >= 1024) {
        expect(["br", "gzip"], asset).toContain(res.headers["content-encoding"]);
        expect(res.body.length, asset).toBeLessThan(res.text.length);
      }
    }
    const stylesheet = await get(css[0]);
    expect(stylesheet.headers["content-type"]).toMatch(/^text\/css/);
  });

  it("compresses gzip for a browser that does not speak brotli", async () => {
    const page = await get("/auth", { "Accept-Encoding": "gzip" });
    expect(page.headers["content-encoding"]).toBe("gzip");
    expect(page.text).toContain("Вход в систему");
  });

  it("compresses a logged-in screen and the JavaScript of its route", async () => {
    const cookie = await adminCookie();
    const page = await get("/edit-statuses", { Cookie: cookie });
    expect(page.status).toBe(200);
    expect(["br", "gzip"]).toContain(page.headers["content-encoding"]);
    expect(page.text).toContain("Добавить статус");
    expect(page.headers["cache-control"] ?? "").not.toMatch(/immutable|max-age=31536000/);
    const route = page.text.match(/"(\/build\/routes\/_app\.edit-statuses-[^"]+\.js)"/)?.[1];
    expect(route).toBeTruthy();
    const res = await get(route!);
    expect(res.headers["cache-control"]).toMatch(YEAR);
    expect(["br", "gzip"]).toContain(res.headers["content-encoding"]);
  });

  it("does not cache for a year what is not a fingerprinted asset", async () => {
    const missing = await get("/build/no-such-file.js");
    expect(missing.status).toBe(404);
    expect(missing.headers["cache-control"] ?? "").not.toMatch(/immutable|max-age=31536000/);
    const icon = await get("/favicon.svg");
    expect(icon.status).toBe(200);
    expect(icon.headers["cache-control"] ?? "").not.toMatch(/immutable/);
  });

  it("sends a browser that asks for /favicon.ico to the icon", async () => {
    const res = await get("/favicon.ico");
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe("/favicon.svg");
  });
});
