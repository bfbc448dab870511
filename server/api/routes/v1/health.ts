import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { appVersion } from "../../../version";

const DATABASE_UNAVAILABLE = { error: "database_unavailable", message: "База данных временно недоступна. Повторите через несколько секунд." };

/**
 * Liveness and readiness are apart: /health answers while the process runs (a supervisor restarts it only when it
 * does not), /health/ready only while the database answers too (a balancer sends no users to it meanwhile).
 */
const health: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/health",
    {
      config: { public: true },
      schema: {
        summary: "Сервер работает (не проверяет базу данных); версия программы",
        response: {
          200: z.object({
            status: z.literal("ok"),
            database: z.enum(["pglite", "postgres"]),
            version: z.string(),
            commit: z.string().nullable(),
          }),
        },
      },
    },
    async () => ({ status: "ok" as const, database: api.deps.handle.kind, ...appVersion }),
  );
  api.get(
    "/health/ready",
    {
      config: { public: true },
      schema: {
        summary: "Сервер готов обслуживать: база данных отвечает",
        response: {
          200: z.object({ status: z.literal("ok"), database: z.enum(["pglite", "postgres"]) }),
          503: z.object({ error: z.string(), message: z.string() }),
        },
      },
    },
    async (_request, reply) => {
      try {
        await api.deps.db.execute(sql`select 1`);
      } catch (error) {
        api.log.warn({ err: error }, "readiness: database unavailable");
        return reply.code(503).header("Retry-After", "5").send(DATABASE_UNAVAILABLE);
      }
      return { status: "ok" as const, database: api.deps.handle.kind };
    },
  );
};
export default health;
