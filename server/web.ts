import type { ServerResponse } from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";
import zlib from "node:zlib";
import { createRequestHandler } from "@remix-run/express";
import type { AppLoadContext, ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import { PRESS_PATH } from "../common/press-path";
import type { PressHandler } from "../app/press.server";
import type { AppDeps } from "./deps";
import { buildDir } from "./http/build-files";
import { clientAddress } from "./http/client-address";
import { requestLog } from "./http/observe";
import { servePrecompressed } from "./http/precompressed";
import { sameOrigin } from "./http/origin";
import { secureCookies } from "./http/secure-cookies";

// Read once, at import: a server keeps serving the build it started with.
const built = buildDir();
const buildPath = path.join(built, "index.js");
let buildPromise: Promise<ServerBuild> | null = null;

/** The Remix server build (made by `remix build`); loaded once per process. */
export function loadRemixBuild(): Promise<ServerBuild> {
  buildPromise ??= import(pathToFileURL(buildPath).href).catch((error) => {
    buildPromise = null;
    throw new Error(`Нет сборки Remix (${buildPath}): выполните npm run build. ${error.message}`);
  });
  return buildPromise;
}

/**
 * Everything after the static files depends on the session (pages, their data requests, the redirects after a
 * form, downloads): `Cache-Control: no-store` unless the route set its own. Set when the head is written, since
 * Remix appends its response's headers to what is already there.
 */
function noStoreByDefault(_req: unknown, res: ServerResponse, next: () => void) {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    if (!this.hasHeader("Cache-Control")) this.setHeader("Cache-Control", "no-store");
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
  next();
}

/**
 * Decisions 088 and 091, the slow link: a build asset (a script, a stylesheet: fingerprinted, the same public file
 * for everyone, never revalidated) is answered with only the headers a browser uses for it: its type, its
 * encoding and length, Cache-Control (immutable) and Vary. The rest (the request's id, Accept-Ranges, the security
 * headers of server/http/security.ts: CSP, framing, opener, referrer, nosniff, CORP, HSTS) govern documents and
 * say nothing about a correctly typed public script; the documents keep them all. Each of the ~10 assets a page
 * loads first had ~400 bytes of headers, now ~200 (a 400 kbit/s link carries 50 bytes a ms). An asset that is not
 * there gets the page's 404 with every header.
 */
const ASSET_HEADERS = new Set(["cache-control", "content-encoding", "content-type", "content-length", "etag", "vary"]);
/** Module scripts are read as UTF-8 whatever their type says; a stylesheet without @charset follows its type. */
const ASSET_TYPES: Record<string, string> = { ".js": "text/javascript", ".css": "text/css; charset=utf-8" };

function leanAssetHeaders(res: ServerResponse, file: string) {
  for (const name of res.getHeaderNames()) if (!ASSET_HEADERS.has(name)) res.removeHeader(name);
  const type = ASSET_TYPES[path.extname(file.replace(/\.(br|gz)$/, ""))];
  if (type) res.setHeader("Content-Type", type);
}

/**
 * Decision 091: the pages' brotli. The middleware's default, 4, made a 84 KB page 18.8 KB; 6 makes it 17.3 KB (8 %
 * less, 30 ms less on a 400 kbit/s link) for ~0.4 ms more of the server's time; 9 is ten times slower for 1 % more.
 */
const DOCUMENT_BROTLI_QUALITY = 6;

/** Pages are read (GET, HEAD) and forms are posted (POST); no page or form uses another method. */
const PAGE_METHODS = ["GET", "HEAD", "POST"];
const FORM_BODY = /^\s*(application\/x-www-form-urlencoded\s*(;|$)|multipart\/form-data\s*;.*\bboundary=)/i;

/**
 * Express serving the pages: other methods refused, static assets, the Origin check on writes, bodies that are not
 * forms refused, then Remix, whose answers are never stored by a browser or proxy.
 */
export async function createWebApp(deps: AppDeps) {
  const build = await loadRemixBuild();
  const app = express();
  app.disable("x-powered-by");
  // Remix answers TRACE with a 500 and logs a stack trace for OPTIONS, PROPFIND...: a quiet 405 instead.
  app.use((req, res, next) => {
    if (PAGE_METHODS.includes(req.method)) return next();
    res.status(405).set("Allow", PAGE_METHODS.join(", ")).type("text/plain; charset=utf-8").send("Метод не поддерживается");
  });
  app.use(compression({ brotli: { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: DOCUMENT_BROTLI_QUALITY } } }));
  // Fingerprinted by the compiler: cache for a year.
  app.use("/build", servePrecompressed(path.join(built, "assets")));
  app.use(
    "/build",
    express.static(path.join(built, "assets"), {
      immutable: true,
      maxAge: "1y",
      // Never revalidated (immutable), so no validators; never asked for in ranges (a script is run whole).
      etag: false,
      lastModified: false,
      acceptRanges: false,
      setHeaders: leanAssetHeaders,
    }),
  );
  app.use(express.static("public", { maxAge: "1h" }));
  // Browsers ask for /favicon.ico where a document names no icon (an error page drawn in place, a JSON answer).
  app.get("/favicon.ico", (_req, res) => res.redirect(301, "/favicon.svg"));
  app.use(noStoreByDefault);
  app.use(secureCookies(deps.config.cookieSecure));

  app.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    if (!sameOrigin(req.headers.origin, req.headers.host, req.headers["x-forwarded-host"])) {
      res.status(403).type("text/plain; charset=utf-8").send("Запрос отклонён: он пришёл с чужого сайта.");
      return;
    }
    next();
  });
  // Page forms post urlencoded or multipart, the only bodies request.formData() reads: any other body would
  // reach the action as a TypeError, a 500 and a logged stack.
  app.use((req, res, next) => {
    if (req.method !== "POST" || FORM_BODY.test(req.headers["content-type"] ?? "")) return next();
    res.status(415).type("text/plain; charset=utf-8").send("Неподдерживаемый тип содержимого запроса: ожидается форма");
  });

  // securityHeaders (server/http/security.ts) put this response's CSP nonce in res.locals. The client's address is
  // read as the API reads it, from the raw request (TRUST_PROXY), for login throttling.
  const loadContext = (req: express.Request, res: express.Response): AppLoadContext => ({
    deps,
    cspNonce: String(res.locals.cspNonce ?? ""),
    clientAddress: clientAddress(req, deps.config.trustProxy),
    log: requestLog(req),
  });
  app.post(PRESS_PATH, express.raw({ type: () => true, limit: PRESS_BODY_LIMIT }), pressHandler(build, loadContext), pressBodyRefused);
  app.all(
    "*",
    createRequestHandler({
      build,
      // Always production: error details (stacks, messages) never reach a browser, whatever NODE_ENV says.
      mode: "production",
      getLoadContext: loadContext,
    }),
  );
  return app;
}

/** A press is its card and a few ids: a few kilobytes. */
const PRESS_BODY_LIMIT = "256kb";

/**
 * Decision 068: the press is served here, not through Remix's request handler. A press is what a manager waits
 * for all shift; the handler's work around an action (its request stream, the route match, the answer piped back
 * in pieces) was 4 ms of each press on a quiet machine. The build's entry module exports the press
 * (app/press.server.ts); the body is read whole first, and the answer written in one piece. What the handler does
 * besides is done the same way here: a thrown Response is the answer, anything else goes to the build's handleError
 * and answers 500.
 */
function pressHandler(build: ServerBuild, loadContext: (req: express.Request, res: express.Response) => AppLoadContext): express.RequestHandler {
  const press = (build.entry.module as { press?: PressHandler }).press;
  if (typeof press !== "function") throw new Error("the build's entry module exports no press (app/entry.server.tsx)");
  // Express 4 does not catch an async handler's rejection: every path below answers, or ends the response.
  return async (req, res) => {
    const context = loadContext(req, res);
    let request: Request | null = null;
    try {
      request = new Request(new URL(req.originalUrl, `${req.protocol}://${req.get("host") ?? "localhost"}`), {
        method: "POST",
        headers: requestHeaders(req),
        body: Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : null,
      });
      let response: Response;
      try {
        response = await press({ request, context, params: {} });
      } catch (thrown) {
        if (!(thrown instanceof Response)) throw thrown;
        response = thrown;
      }
      const body = Buffer.from(await response.arrayBuffer());
      res.status(response.status);
      for (const [name, value] of response.headers) res.append(name, value);
      res.end(body);
    } catch (error) {
      if (request) build.entry.module.handleError?.(error, { request, context, params: {} });
      else context.log?.error({ err: error }, "press request not read");
      if (res.headersSent) res.destroy();
      else res.status(500).type("text/plain; charset=utf-8").send("Unexpected Server Error");
    }
  };
}

/** The Node request's headers as a Fetch Headers (a repeated header, such as Cookie from a proxy, kept whole). */
function requestHeaders(req: express.Request): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** A press whose body could not be read (over PRESS_BODY_LIMIT, or cut off): a 4xx in Russian, never a page of stack. */
function pressBodyRefused(error: { status?: number; type?: string }, _req: express.Request, res: express.Response, next: express.NextFunction) {
  if (res.headersSent) return next(error);
  const tooLarge = error.type === "entity.too.large";
  res
    .status(tooLarge ? 413 : 400)
    .type("text/plain; charset=utf-8")
    .send(tooLarge ? "Слишком большой запрос" : "Некорректные данные формы");
}
