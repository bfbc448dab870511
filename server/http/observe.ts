import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import type { AppDeps } from "../deps";
import { forwardedAddress } from "./client-address";
import { addressAllowed, metricsAddresses, pageRouteLabel } from "./metrics";

export const REQUEST_ID_HEADER = "x-request-id";
const GOOD_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The id of a request, on every log line of it and in its answer's X-Request-Id. A proxy of ours (TRUST_PROXY) may
 * bring its own id, so its access log and ours name the same request; from anyone else the header is ignored.
 */
export function requestIdGenerator(trustProxy: number) {
  return (request: IncomingMessage): string => {
    const given = request.headers[REQUEST_ID_HEADER];
    if (trustProxy > 0 && typeof given === "string" && GOOD_REQUEST_ID.test(given)) return given;
    return randomUUID();
  };
}

const requestLogs = new WeakMap<IncomingMessage, FastifyBaseLogger>();

/** The request's logger (its lines carry reqId) for code that only sees the raw request: the pages' Express side. */
export function requestLog(request: IncomingMessage): FastifyBaseLogger | undefined {
  return requestLogs.get(request);
}

/**
 * One JSON log line per answered request (method, path without its query, status, time) and the HTTP metrics,
 * for the API and the pages alike: the hooks run for every request, whichever side answers it.
 */
export function observeRequests(app: FastifyInstance, deps: AppDeps) {
  app.addHook("onRequest", async (request, reply) => {
    requestLogs.set(request.raw, request.log);
    // Raw, so the header is on answers Express writes too.
    reply.raw.setHeader("X-Request-Id", request.id);
  });
  app.addHook("onResponse", async (request, reply) => {
    const url = request.raw.url ?? "/";
    const status = reply.statusCode;
    const route = request.is404 ? (url.startsWith("/api/") ? "unmatched" : pageRouteLabel(url, status)) : (request.routeOptions.url ?? "unmatched");
    const seconds = reply.elapsedTime / 1000;
    deps.metrics.request(route, request.method, status, seconds);
    request.log.info({ method: request.method, path: url.split("?")[0].slice(0, 200), route, status, ms: Math.round(reply.elapsedTime) }, "request");
  });

  // Prometheus: an address of METRICS_ADDRESSES, or an admin's bearer token.
  const allowed = metricsAddresses(deps.config.metricsAddresses);
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    const address = forwardedAddress(request.raw, deps.config.trustProxy);
    if (!addressAllowed(allowed, address)) {
      const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")?.[1];
      const user = token ? await deps.sessions.validate(token) : null;
      if (!user) return reply.code(401).send({ error: "unauthorized", message: "Нужен токен администратора" });
      if (!user.isAdmin) return reply.code(403).send({ error: "forbidden", message: "Метрики доступны только администратору" });
    }
    return reply
      .header("Cache-Control", "no-store")
      .type(deps.metrics.contentType)
      .send(await deps.metrics.text());
  });
}
