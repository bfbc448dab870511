import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import type { User } from "../../db/schema";
import type { Actor } from "../core/actor";
import { badRequest, unauthorized } from "../core/errors";
import { API_KEY_PREFIX, type ApiKeyScope, authenticateApiKey, type RouteScope, routeScope, scopeAllows, scopeRefused } from "../core/auth/api-keys";
import type { AppDeps } from "../deps";
import { apiErrorHandler } from "./errors";

declare module "fastify" {
  interface FastifyRequest {
    /** The authenticated user's row; set for every non-public route. */
    user: User | null;
    /** The bearer token that authenticated it (a session's; null for an API key). */
    sessionToken: string | null;
    /** An integration's API key: its scopes (null: a session). */
    apiKeyScopes: ApiKeyScope[] | null;
  }
  interface FastifyContextConfig {
    /** Open to anonymous callers (login, health, the OpenAPI description). */
    public?: boolean;
    /** What an API key needs for it (routeScope: GET `read`, else `admin` unless it says `write`). */
    scope?: RouteScope;
  }
  interface FastifyInstance {
    deps: AppDeps;
  }
}

/** The acting user of an authenticated route. */
export function actorOf(request: { user: User | null; sessionToken?: string | null }): Actor {
  const user = request.user;
  if (!user) throw unauthorized();
  return { id: user.id, login: user.login, isAdmin: user.isAdmin, session: request.sessionToken ?? undefined };
}

const bearer = (header: string | undefined) => {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? "");
  return match?.[1] ?? null;
};

const hasNul = (value: unknown, depth = 0): boolean =>
  typeof value === "string"
    ? value.includes("\u0000")
    : Boolean(value) &&
      typeof value === "object" &&
      depth < 8 &&
      Object.entries(value as object).some(([k, v]) => k.includes("\u0000") || hasNul(v, depth + 1));

/** A route /api/v1 registered, with the zod schemas of its body and answers (what the description is made from). */
export interface RegisteredRoute {
  method: string;
  url: string;
  hidden: boolean;
  hasBody: boolean;
  body: unknown;
  response: Record<string, unknown> | undefined;
}

/** Every route /api/v1 registered, by the app's deps (test/api/openapi.test.ts compares them with the description). */
export const registeredApiRoutes = new WeakMap<object, RegisteredRoute[]>();

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

const routesDir = path.join(path.dirname(fileURLToPath(import.meta.url)), "routes", "v1");

/**
 * /api/v1: the bearer token is the only credential read here (never a cookie, so no cross-site request can act).
 * Each file in routes/v1 is one resource's plugin; they are loaded in name order.
 */
export const apiV1: FastifyPluginAsync = async (api: FastifyInstance) => {
  api.decorateRequest("user", null);
  api.decorateRequest("sessionToken", null);
  api.decorateRequest("apiKeyScopes", null);
  api.setErrorHandler(apiErrorHandler);
  // Every answer here is someone's data or depends on their token: never stored by a browser or a proxy.
  api.addHook("onSend", async (_request, reply, payload) => {
    reply.header("Cache-Control", "no-store");
    return payload;
  });
  // An address that is not a route needs no token: the route table is public (openapi.json). A known address
  // with a method it does not serve is a 405 naming the ones it does.
  api.setNotFoundHandler((request, reply) => {
    const path = request.url.split("?")[0];
    const allowed = METHODS.filter((method) => api.findRoute({ method, url: path }));
    if (allowed.length === 0) return reply.code(404).send({ error: "not_found", message: "Такого адреса API нет" });
    return reply
      .code(405)
      .header("Allow", allowed.join(", "))
      .send({ error: "method_not_allowed", message: "Этот адрес API не принимает такой метод запроса" });
  });
  // Public routes say so in the OpenAPI description too (no bearer needed).
  const registered: RegisteredRoute[] = [];
  registeredApiRoutes.set(api.deps, registered);
  api.addHook("onRoute", (route) => {
    if (route.config?.public) route.schema = { ...route.schema, security: [] };
    for (const method of [route.method].flat()) {
      registered.push({
        method,
        url: route.url,
        hidden: Boolean(route.schema?.hide),
        hasBody: Boolean(route.schema?.body),
        body: route.schema?.body,
        response: route.schema?.response as Record<string, unknown> | undefined,
      });
    }
  });
  api.addHook("onRequest", async (request) => {
    if (request.routeOptions.config?.public || request.is404) return;
    const token = bearer(request.headers.authorization);
    if (token?.startsWith(API_KEY_PREFIX)) {
      // An integration's key (issue 44): looked up on every request, so a revoked one is refused at once.
      const key = await authenticateApiKey(api.deps.db, token);
      if (!key) throw unauthorized();
      const needed = routeScope(request.method, request.routeOptions.config?.scope);
      if (!scopeAllows(key.scopes, needed)) throw scopeRefused(needed);
      request.user = key.user;
      request.apiKeyScopes = key.scopes;
      return;
    }
    const user = token ? await api.deps.sessions.validate(token) : null;
    if (!user) throw unauthorized();
    request.user = user;
    request.sessionToken = token;
  });

  // Postgres text cannot hold U+0000: a NUL in the path or the query string is refused here, like one in a JSON body.
  api.addHook("preValidation", async (request) => {
    if (hasNul(request.params) || hasNul(request.query)) throw badRequest("Недопустимый символ (NUL) в данных", "nul_in_request");
  });

  const files = fs
    .readdirSync(routesDir)
    .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith(".d.ts") && !f.includes(".test."))
    .sort();
  for (const file of files) {
    const mod = await import(pathToFileURL(path.join(routesDir, file)).href);
    await api.register(mod.default);
  }
};
