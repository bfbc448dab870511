import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type express from "express";

/**
 * Decision 088, the slow link: the build's JavaScript and CSS are compressed once, when built, at the strongest
 * settings (brotli 11, gzip 9), and served as such; compressing per request (the compression middleware: brotli 4,
 * gzip 6) sent the lead panel's 85 KB React chunk as 85 KB where brotli 11 makes it ~72. What is not precompressed
 * (a build made without the step) is still compressed per request.
 */

/**
 * What is compressed: the text assets, however small (decision 091: the compression middleware leaves those under
 * 1 KB as they are, and a page's first load has several of 0.3-1 KB, brotli makes them ~half). An asset brotli does
 * not make smaller (an empty module's few bytes) is served as it is.
 */
const COMPRESSIBLE = /\.(js|css|svg|json|map)$/;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: "utf8" }).map((name) => path.join(dir, name));
}

/**
 * Writes `<file>.br` and `<file>.gz` beside every compressible asset under `dir` that has none yet (a file's name
 * changes with its content, so an existing sibling is already right), each only where it is smaller than the file.
 * Each is written under a temporary name and renamed, so a server reading the folder meanwhile never sees half a
 * file. Returns how many assets it looked at.
 */
export async function precompressAssets(dir: string): Promise<number> {
  let compressed = 0;
  for (const file of filesUnder(dir)) {
    if (!COMPRESSIBLE.test(file) || !fs.statSync(file).isFile()) continue;
    if (fs.existsSync(`${file}.br`) && fs.existsSync(`${file}.gz`)) continue;
    const body = fs.readFileSync(file);
    const [br, gz] = await Promise.all([
      brotli(body, {
        params: {
          [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
          [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
          [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length,
        },
      }),
      gzip(body, { level: zlib.constants.Z_BEST_COMPRESSION }),
    ]);
    for (const [suffix, data] of [
      [".br", br],
      [".gz", gz],
    ] as const) {
      if (data.length >= body.length) continue;
      const temporary = `${file}${suffix}.${process.pid}.tmp`;
      fs.writeFileSync(temporary, data);
      fs.renameSync(temporary, `${file}${suffix}`);
    }
    compressed++;
  }
  return compressed;
}

const ENCODINGS = [
  { name: "br", suffix: ".br" },
  { name: "gzip", suffix: ".gz" },
] as const;

/**
 * Serves an asset's precompressed sibling to a browser that accepts its encoding (brotli first), with the asset's
 * own Content-Type and `Vary: Accept-Encoding`; everything else (no sibling, an encoding not accepted, a HEAD) goes
 * on to the static files as before. The siblings are listed when the server starts: the build does not change
 * under a running server.
 */
export function servePrecompressed(dir: string): express.RequestHandler {
  const siblings = new Set(
    filesUnder(dir)
      .filter((file) => /\.(br|gz)$/.test(file))
      .map((file) => path.relative(dir, file).split(path.sep).join("/")),
  );
  return (req, res, next) => {
    if (req.method !== "GET" || siblings.size === 0) return next();
    let asset: string;
    try {
      asset = decodeURIComponent(req.path).replace(/^\/+/, "");
    } catch {
      return next(); // A malformed address: the static files answer it as before.
    }
    if (!COMPRESSIBLE.test(asset) || asset.includes("..")) return next();
    // Brotli where the browser takes it, whatever order it lists its encodings in (Chromium: gzip, deflate, br).
    const encoding = ENCODINGS.find((e) => req.acceptsEncodings(e.name) === e.name && siblings.has(`${asset}${e.suffix}`));
    res.vary("Accept-Encoding");
    if (!encoding) return next();
    res.setHeader("Content-Encoding", encoding.name);
    res.type(path.extname(asset));
    req.url = `${req.url.split("?")[0]}${encoding.suffix}`;
    next();
  };
}
