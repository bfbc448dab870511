import path from "node:path";
import { pathToFileURL } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import type { ServerBuild } from "@remix-run/node";
import compression from "compression";
import express from "express";
import type { AppDeps } from "./deps";
import { clientAddress } from "./http/client-address";
import { sameOrigin } from "./http/origin";

/** Where `remix build` wrote its output (BUILD_DIR, as in remix.config.js). */
const buildDir = path.resolve(process.env.BUILD_DIR || "build");
const buildPath = path.join(buildDir, "index.js");
let buildPromise: Promise<ServerBuild> | null = null;

/** The Remix server build (made by `remix build`); loaded once per process. */
export function loadRemixBuild(): Promise<ServerBuild> {
  buildPromise ??= import(pathToFileURL(buildPath).href).catch((error) => {
    buildPromise = null;
    throw new Error(`Нет сборки Remix (${buildPath}): выполните npm run build. ${error.message}`);
  });
  return buildPromise;
}

/** Express serving the pages: static assets, the Origin check on writes, then Remix. */
export async function createWebApp(deps: AppDeps) {
  const build = await loadRemixBuild();
  const app = express();
  app.disable("x-powered-by");
  app.use(compression());
  // Fingerprinted by the compiler: cache for a year.
  app.use("/build", express.static(path.join(buildDir, "assets"), { immutable: true, maxAge: "1y" }));
  app.use(express.static("public", { maxAge: "1h" }));

  app.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    if (!sameOrigin(req.headers.origin, req.headers.host, req.headers["x-forwarded-host"])) {
      res.status(403).type("text/plain; charset=utf-8").send("Запрос отклонён: он пришёл с чужого сайта.");
      return;
    }
    next();
  });

  app.all(
    "*",
    createRequestHandler({
      build,
      // securityHeaders (server/http/security.ts) put this response's CSP nonce in res.locals. The client's
      // address is read as the API reads it, from the raw request (TRUST_PROXY), for login throttling.
      getLoadContext: (req, res) => ({
        deps,
        cspNonce: String(res.locals.cspNonce ?? ""),
        clientAddress: clientAddress(req, deps.config.trustProxy),
      }),
    }),
  );
  return app;
}
