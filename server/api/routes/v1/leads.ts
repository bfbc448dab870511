import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { getFilteredLead } from "../../../core/leads/allocation";
import { proxyApplication } from "../../../core/leads/applications";
import { recordStatus } from "../../../core/leads/record-status";
import { actorOf } from "../../plugin";
import { errorResponses, errorSchema, okSchema } from "../../schemas/common";

const leadSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    phone: z.string(),
    city: z.string(),
    address: z.string(),
    additionalInfo1: z.string(),
    additionalInfo2: z.string(),
    additionalInfo3: z.string(),
    additionalInfo4: z.string(),
  })
  .describe("Лид");

/** SPEC: the lead, or empty text when none is left. */
const leadOrEmpty = z.union([leadSchema, z.literal("")]);

/** No lead: the JSON text "" (Fastify would send a bare string as an empty text/plain body). */
function sendEmpty(reply: FastifyReply) {
  return reply.type("application/json; charset=utf-8").send('""');
}

const leads: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/database/filtered-lead",
    {
      schema: {
        summary: "Лид менеджера по фильтру: закреплённый или следующий свободный; пустая строка, если лидов нет",
        querystring: z.object({ filterId: z.unknown(), userId: z.unknown() }).partial(),
        response: { 200: leadOrEmpty, ...errorResponses },
      },
    },
    async (request, reply) => {
      const lead = await getFilteredLead(api.deps.db, actorOf(request), api.deps.config.holdMinutes, request.query);
      return lead ?? sendEmpty(reply);
    },
  );

  api.put(
    "/status/update-and-get-lead",
    {
      schema: {
        summary: "Отметить статус клиента и получить следующего (одна транзакция)",
        body: z
          .object({
            statusText: z.unknown(),
            contactId: z.unknown(),
            userId: z.unknown(),
            passport: z.unknown(),
            filterId: z.unknown(),
            clientInfo: z.unknown(),
          })
          .partial(),
        response: { 200: leadOrEmpty, ...errorResponses },
      },
    },
    async (request, reply) => {
      const result = await recordStatus(api.deps.db, actorOf(request), api.deps.config.holdMinutes, request.body);
      return result.lead ?? sendEmpty(reply);
    },
  );

  api.post(
    "/status/proxy-application",
    {
      schema: {
        summary: "Отправить заявку (сохранённую отчётным статусом) на настроенный адрес",
        body: z
          .object({ date: z.unknown(), user: z.unknown(), applicationText: z.unknown(), phone: z.unknown() })
          .partial(),
        response: { 200: okSchema.extend({ forwarded: z.boolean() }), ...errorResponses, 502: errorSchema },
      },
    },
    async (request) =>
      proxyApplication(api.deps.db, actorOf(request), api.deps.config.applicationForwardUrl, request.body),
  );
};
export default leads;
