import fastifySwagger from "@fastify/swagger";
import middie from "@fastify/middie";
import Fastify, { LogController, type FastifyInstance } from "fastify";
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from "fastify-type-provider-zod";
import type { DbHandle } from "../db/client";
import { clientErrorHandler, frameworkErrorHandler, pathTooLong } from "./api/errors";
import { apiV1 } from "./api/plugin";
import { argon2Passwords } from "./auth/password";
import type { PasswordHasher } from "./core/auth/ports";
import { createSessionStore } from "./auth/sessions";
import type { AppConfig } from "./config";
import type { AppDeps } from "./deps";
import { createRealtimeHub, REALTIME_PATH, type RealtimeHub } from "./realtime/hub";
import { endSupervisionOfAdmin } from "./core/telephony/listening";
import { tellSupervisionEnded } from "./telephony/supervision";
import { startCallSweeper } from "./jobs/call-sweeper";
import { startCallbackNotifier } from "./jobs/callback-notifier";
import { startEmbeddedVacuum } from "./jobs/embedded-vacuum";
import { startImportSweeper } from "./jobs/import-sweeper";
import { startPlannerStatistics } from "./jobs/planner-statistics";
import { startExportWorker } from "./jobs/export-worker";
import { startZoneBackfill } from "./jobs/zone-backfill";
import { startHolidayFill } from "./jobs/holidays";
import { startRecordings } from "./jobs/recordings";
import { startWebhookWorker } from "./jobs/webhooks";
import { transformWithExamples } from "./api/schemas/examples";
import { syncForwardWebhook } from "./core/webhooks/webhooks";
import { recordingsFolder } from "./core/recordings/recordings";
import { createTelephony } from "./telephony/provider";
import { rtpengineNg } from "./telephony/rtpengine-ng";
import { checkRequestPath, isApiPath } from "./http/paths";
import { securityHeaders } from "./http/security";
import { createMetrics } from "./http/metrics";
import { observeRequests, requestIdGenerator } from "./http/observe";
import { createWebApp } from "./web";

/** Paths Fastify answers itself; every other one goes to the pages. */
const isFastifyPath = (url: string) => isApiPath(url) || url === "/metrics" || url.startsWith("/metrics?");

export interface BuildAppOptions {
  handle: DbHandle;
  config: AppConfig;
  /** Serve the Remix pages too (off for API-only tests that run without a build). */
  web?: boolean;
  logger?: boolean;
  /** How passwords are hashed: argon2id at the library's costs unless a test hands in cheaper ones. */
  passwords?: PasswordHasher;
}

/**
 * The whole server as one Fastify instance: /api/v1 (Fastify), /realtime (ws), and every other path to
 * Remix on Express through middie. Nothing listens here: main.ts listens, tests use `app.server`.
 */
export async function buildApp({ handle, config, web = true, logger = false, passwords = argon2Passwords }: BuildAppOptions) {
  const app = Fastify({
    // JSON lines (pino); each request's lines carry its reqId (server/http/observe.ts writes one line per request).
    logger: logger ? { level: config.logLevel } : false,
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: requestIdGenerator(config.trustProxy),
    bodyLimit: 1024 * 1024,
    clientErrorHandler,
    frameworkErrors: frameworkErrorHandler,
    // Route modules load on first start (tsx transpiles them); a busy 2-core box needs more than the 10 s default.
    pluginTimeout: 120_000,
  }).withTypeProvider<ZodTypeProvider>();
  // First of all hooks, before middie hands the request to Express and Remix: a long or slash-ridden path costs
  // Remix's matcher seconds of CPU (docs/decisions/022), so it is refused or redirected here, for every path.
  app.addHook("onRequest", async (request, reply) => {
    const verdict = checkRequestPath(request.raw.url ?? "/");
    if (!verdict) return;
    if (verdict.status === 308) return reply.code(308).header("Location", verdict.location).send();
    return pathTooLong(request, reply);
  });
  // Requests are counted here (pages and API alike, until their response is closed): the embedded database's
  // vacuum waits for a quiet moment for its large tables, and the webhook sender yields while many are in flight.
  let requestsInFlight = 0;
  let lastRequestAt = 0;
  app.addHook("onRequest", async (_request, reply) => {
    requestsInFlight++;
    lastRequestAt = Date.now();
    reply.raw.once("close", () => {
      requestsInFlight--;
      lastRequestAt = Date.now();
    });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // SPEC clients send a JSON content type on every call, with or without a body.
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    const text = String(body);
    if (text.trim() === "") return done(null, {});
    // Postgres text cannot hold U+0000: refuse it here with a message instead of failing in the database.
    if (text.includes("\\u0000") || text.includes("\u0000")) {
      const error = Object.assign(new Error("NUL character in the body"), { statusCode: 400, code: "NUL_IN_BODY" });
      return done(error, undefined);
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      const error = Object.assign(new Error("Некорректный JSON в теле запроса"), {
        statusCode: 400,
        code: "FST_ERR_CTP_INVALID_JSON_BODY",
      });
      done(error, undefined);
    }
  });

  const sessions = createSessionStore(handle.db, config.sessionDays);
  const mediaRelay = config.rtpengineNg ? rtpengineNg(config.rtpengineNg, config.rtpengineNgSecret) : null;
  const hub: RealtimeHub = createRealtimeHub({
    db: handle.db,
    sessions,
    bus: handle,
    presenceGraceSeconds: config.realtime.presenceGraceSeconds,
    pingSeconds: config.realtime.pingSeconds,
    // An admin's page gone without its «Стоп» (issue 39): nothing of his listening stays at rtpengine.
    onUserGone: (userId, at) =>
      void endSupervisionOfAdmin(handle.db, mediaRelay, userId, at)
        .then((ended) => tellSupervisionEnded(hub, ended, null))
        .catch((error) => app.log.error({ err: error }, "ending the listening of a page that went away failed")),
  });
  // Presence and forced logout reach the other instances through LISTEN/NOTIFY; stopped in onClose below.
  await hub.start();
  const telephony = createTelephony(handle.db, config.telephony);
  const recordings = startRecordings(handle.db, recordingsFolder(config.recordings.dir, config.recordings.minFreeMb, config.recordings.warnFreeMb), {
    log: (message, error) => app.log.error({ err: error }, message),
    onConversion: (outcome, seconds) => metrics.recordingConversion(outcome, seconds),
    publicUrl: config.publicUrl,
  });
  const metrics = createMetrics(
    handle,
    () => hub.connectionCount(),
    () => recordings.disk(),
  );
  const deps: AppDeps = {
    handle,
    db: handle.db,
    sessions,
    passwords,
    config,
    hub,
    telephony,
    mediaRelay,
    metrics,
    recordings,
    requestsInFlight: () => requestsInFlight,
  };
  app.decorate("deps", deps);
  // Before middie: the request id and the log line cover the pages as well as the API.
  observeRequests(app, deps);

  await app.register(fastifySwagger, {
    openapi: {
      info: {
        title: "Lead desk API",
        description: "JSON API (SPEC §7). Every call but login carries `Authorization: Bearer <access_token>`.",
        version: "1.0.0",
      },
      components: { securitySchemes: { bearer: { type: "http", scheme: "bearer" } } },
      security: [{ bearer: [] }],
    },
    // Each route's body and main answer with an example made from its own zod schemas (issue 44).
    transform: transformWithExamples,
  });
  app.get("/api/v1/openapi.json", { config: { public: true }, schema: { hide: true } }, async () => app.swagger());
  // Before /api/v1: its routes inherit the hook, so security headers come first, even on a 401 from its auth hook.
  await app.register(middie, { hook: "onRequest" });
  app.use(securityHeaders(config));
  await app.register(apiV1, { prefix: "/api/v1" });

  if (web) {
    const webApp = await createWebApp(deps);
    app.use((req, res, next) => {
      if (isFastifyPath(req.url ?? "/")) return next();
      // middie hands us the raw Node request; Express decorates it itself.
      webApp(req as never, res as never, next);
    });
  }

  app.server.on("upgrade", (request, socket, head) => {
    const url = request.url ?? "";
    if (url === REALTIME_PATH || url.startsWith(`${REALTIME_PATH}?`)) hub.handleUpgrade(request, socket, head);
    else socket.destroy();
  });
  // Before the server closes: it waits for every connection, and an open socket would hold the shutdown.
  app.addHook("preClose", async () => {
    await hub.close();
  });
  // Exports are jobs in the database; this instance's worker takes its share of them, and stops with the app.
  const exportWorker = startExportWorker(handle, {
    log: (message, error) => app.log.error({ err: error }, message),
    onJobEnd: (outcome) => metrics.exportJob(outcome),
  });
  const callSweeper = startCallSweeper(handle.db, { log: (message, error) => app.log.error({ err: error }, message) });
  const callbackNotifier = startCallbackNotifier(handle.db, hub, {
    everyMs: config.callbackNotifyMs,
    log: (message, error) => app.log.error({ err: error }, message),
  });
  const importSweeper = startImportSweeper(handle.db, {
    soleProcess: handle.kind === "pglite",
    log: (message, error) => app.log.error({ err: error }, message),
    onRemoved: (base) => app.log.info({ base: base.id, name: base.name, contacts: base.contacts }, "abandoned import removed"),
  });
  const zoneBackfill = startZoneBackfill(handle.db, {
    region: config.phoneRegion,
    log: (message, error) => app.log.error({ err: error }, message),
  });
  const holidayFill = startHolidayFill(handle.db, { log: (message, error) => app.log.error({ err: error }, message) });
  // Webhooks: the delivery queue is sent from here, never from a request (issue 44). APPLICATION_FORWARD_URL is one.
  await syncForwardWebhook(handle.db, config.applicationForwardUrl);
  // Presses first: while half the database's connections' worth of requests are in flight, deliveries yield.
  const busyRequests = Math.max(2, Math.floor(handle.poolSize / 2));
  const webhookWorker = startWebhookWorker(handle, {
    ...config.webhooks,
    busy: () => requestsInFlight >= busyRequests,
    log: (message, error) => app.log.error({ err: error }, message),
  });
  const plannerStatistics = startPlannerStatistics(handle, { log: (message, error) => app.log.error({ err: error }, message) });
  const embeddedVacuum = startEmbeddedVacuum(handle, {
    quietFor: () => (requestsInFlight > 0 ? 0 : Date.now() - lastRequestAt),
    log: (message, error) => app.log.error({ err: error }, message),
    onVacuum: (run) => app.log.info({ table: run.table, deadRows: run.deadRows, ms: Math.round(run.ms) }, "vacuum"),
  });
  app.addHook("onClose", async () => {
    embeddedVacuum.stop();
    plannerStatistics.stop();
    callbackNotifier.stop();
    callSweeper.stop();
    mediaRelay?.close();
    await Promise.all([exportWorker.stop(), importSweeper.stop(), zoneBackfill.stop(), holidayFill.stop(), recordings.stop(), webhookWorker.stop()]);
  });

  return app as unknown as FastifyInstance & { deps: AppDeps };
}
