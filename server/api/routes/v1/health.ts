import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { sql } from "drizzle-orm";
import { z } from "zod";

const health: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/health",
    {
      config: { public: true },
      schema: {
        summary: "Проверка работы сервера и базы данных",
        response: { 200: z.object({ status: z.literal("ok"), database: z.enum(["pglite", "postgres"]) }) },
      },
    },
    async () => {
      await api.deps.db.execute(sql`select 1`);
      return { status: "ok" as const, database: api.deps.handle.kind };
    },
  );
};
export default health;
