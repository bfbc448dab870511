import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { getPersonalStatistics, getStatistics } from "../../../core/statistics/statistics";
import { actorOf } from "../../plugin";
import { errorResponses } from "../../schemas/common";

/** SPEC §7 statistics: the admin dashboard (today in Kyiv) and a manager's own status counts. */
const statistics: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/statistics",
    {
      schema: {
        summary: "Статистика за сегодня (Europe/Kyiv), админ",
        response: {
          200: z.object({
            databases: z.number().int(),
            contacts: z.number().int(),
            reportStatuses: z.number().int(),
            totalReportStatuses: z.number().int(),
            totalDatabases: z.number().int(),
            totalContacts: z.number().int(),
            statusCounts: z.record(z.string(), z.number().int()),
            statusColors: z.record(z.string(), z.string()).describe("Цвет каждого статуса из statusCounts (#rrggbb)"),
            topManagers: z.array(z.object({ manager: z.string(), count: z.number().int() })),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => getStatistics(api.deps.db, actorOf(request)),
  );

  api.get(
    "/statistics/personal/:id",
    {
      schema: {
        summary: "Личная статистика: статус и количество (свою для менеджера)",
        params: z.object({ id: z.string() }),
        response: { 200: z.array(z.object({ status: z.string(), count: z.number().int(), color: z.string().describe("Цвет статуса, #rrggbb") })), ...errorResponses },
      },
    },
    async (request) => getPersonalStatistics(api.deps.db, actorOf(request), request.params.id),
  );
};
export default statistics;
