import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import zlib from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import { precompressAssets } from "../../server/http/precompressed";
import { useTestApp } from "../helpers/app";

/**
 * Decision 088, the slow link: the build's JavaScript and CSS are compressed once, at the strongest settings, when
 * built (`npm run build`), and served as such: brotli to a browser that takes it, gzip to one that does not, the
 * asset itself to one that takes neither; always with the asset's type and `Vary: Accept-Encoding`.
 */
const assets = path.resolve(process.env.BUILD_DIR || "build", "assets");
// Before the app starts (it lists the compressed siblings then): what `npm run build` does after `remix build`.
beforeAll(async () => {
  await precompressAssets(assets);
});
const t = useTestApp({ web: true });
let port: number;
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  port = (t.app.server.address() as AddressInfo).port;
});

function get(urlPath: string, acceptEncoding?: string): Promise<{ headers: http.IncomingHttpHeaders; body: Buffer; status: number }> {
  return new Promise((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding };
    http
      .get({ host: "127.0.0.1", port, path: urlPath, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks), status: res.statusCode ?? 0 }));
        res.on("error", reject);
      })
      .on("error", reject);
  });
}

/** The largest script the login page loads (React's chunk), and the file it is. */
async function largestScript(): Promise<{ url: string; file: string }> {
  const page = await get("/auth", "identity");
  const urls = [...page.body.toString("utf8").matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]);
  const files = urls.map((url) => ({ url, file: path.join(assets, url.slice("/build/".length)) }));
  return files.sort((a, b) => fs.statSync(b.file).size - fs.statSync(a.file).size)[0];
}

describe("precompressed assets", () => {
  it("sends brotli made at build time to a browser that takes it, whatever order it lists its encodings in", async () => {
    const { url, file } = await largestScript();
    const original = fs.readFileSync(file);
    // Chromium's order: gzip first.
    const res = await get(url, "gzip, deflate, br, zstd");
    expect(res.status).toBe(200);
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toMatch(/^(text|application)\/javascript/);
    expect(res.headers.vary ?? "").toMatch(/accept-encoding/i);
    expect(res.headers["cache-control"]).toMatch(/^public, max-age=31536000, immutable$/);
    expect(zlib.brotliDecompressSync(res.body).equals(original)).toBe(true);
    // Brotli's strongest setting, not the per-request one (quality 4): the file written at build time.
    expect(res.body.equals(fs.readFileSync(`${file}.br`))).toBe(true);
    const perRequest = zlib.brotliCompressSync(original, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
    expect(res.body.length).toBeLessThan(perRequest.length);
  });

  it("sends gzip to a browser without brotli, and the asset itself to one that takes neither", async () => {
    const { url, file } = await largestScript();
    const original = fs.readFileSync(file);
    const gzipped = await get(url, "gzip");
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers.vary ?? "").toMatch(/accept-encoding/i);
    expect(zlib.gunzipSync(gzipped.body).equals(original)).toBe(true);
    const plain = await get(url, "identity");
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary ?? "").toMatch(/accept-encoding/i);
    expect(plain.body.equals(original)).toBe(true);
  });

  it("compresses the small assets too: a script under 1 KB is sent brotli-encoded (decision 091)", async () => {
    const page = await get("/auth", "identity");
    const urls = [...page.body.toString("utf8").matchAll(/(?:src|href)="(\/build\/[^"]+\.js)"/g)].map((m) => m[1]);
    const small = urls.find((url) => {
      const size = fs.statSync(path.join(assets, url.slice("/build/".length))).size;
      return size > 100 && size < 1024;
    });
    expect(small, "a script under 1 KB on the login page").toBeDefined();
    const original = fs.readFileSync(path.join(assets, small!.slice("/build/".length)));
    const res = await get(small!, "gzip, deflate, br, zstd");
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toBe("text/javascript");
    expect(res.body.length).toBeLessThan(original.length);
    expect(zlib.brotliDecompressSync(res.body).equals(original)).toBe(true);
  });

  it("serves the stylesheet precompressed as CSS; an asset that is not there is a 404", async () => {
    const page = await get("/auth", "identity");
    const css = /href="(\/build\/[^"]+\.css)"/.exec(page.body.toString("utf8"))![1];
    const res = await get(css, "br");
    expect(res.headers["content-encoding"]).toBe("br");
    expect(res.headers["content-type"]).toMatch(/^text\/css/);
    expect(zlib.brotliDecompressSync(res.body).toString("utf8")).toContain("{");
    expect((await get("/build/no-such-file.js", "br")).status).toBe(404);
    // A malformed address is refused as before, not a 500.
    expect((await get("/build/%E0%A4%A.js", "br")).status).toBeLessThan(500);
  });
});
