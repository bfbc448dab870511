import type { FastifyReply } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { takeLead } from "../../../core/leads/allocation";
import { withCardFields } from "../../../core/leads/card-start";
import { proxyApplication, proxyApplicationSchema } from "../../../core/leads/applications";
import { recordStatus, recordStatusSchema } from "../../../core/leads/record-status";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, errorSchema, okSchema } from "../../schemas/common";

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
    attempt: z
      .object({ number: z.number().int(), of: z.number().int() })
      .nullable()
      .optional()
      .describe("Попытка по правилу повтора тематики («Попытка 3 из 5»); null, если правила для статуса клиента нет"),
    cardFields: z
      .array(
        z.object({
          label: z.string(),
          type: z.enum(["text", "textarea"]),
          column: z.string().optional().describe("Столбец базы, с которым администратор связал поле"),
          value: z.string(),
        }),
      )
      .describe(
        "Карточка клиента по шаблону тематики: поля с начальными значениями (сохранённое менеджером; иначе значение клиента из столбца базы с тем же именем или связанного с полем; иначе пусто)",
      ),
  })
  .describe("Лид");

/** SPEC: the lead, or empty text when none is left. */
const leadOrEmpty = z.union([leadSchema, z.literal("")]);

/** No lead: the JSON text "" (Fastify would send a bare string as an empty text/plain body). */
function sendEmpty(reply: FastifyReply) {
  return reply.type("application/json; charset=utf-8").send('""');
}

/** Says on the answer that the manager is on a break (decision 038): why no new lead came. */
const ON_BREAK_HEADER = "X-On-Break";
function markBreak(reply: FastifyReply, onBreak: boolean) {
  if (onBreak) reply.header(ON_BREAK_HEADER, "1");
}

const leads: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/database/filtered-lead",
    {
      // It claims a lead: an API key needs "write" (issue 44).
      config: { scope: "write" },
      schema: {
        summary:
          "Лид менеджера по фильтру: закреплённый или следующий свободный; пустая строка, если лидов нет. На перерыве — только закреплённый (заголовок X-On-Break: 1)",
        querystring: z.object({ filterId: z.unknown(), userId: z.unknown() }).partial(),
        response: { 200: leadOrEmpty, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { db, config } = api.deps;
      const { lead, onBreak, filterId } = await takeLead(db, actorOf(request), config.holdMinutes, request.query);
      api.deps.metrics.leadTurn(lead !== null);
      markBreak(reply, onBreak);
      return lead ? withCardFields(db, filterId, lead, config.phoneRegion) : sendEmpty(reply);
    },
  );

  api.put(
    "/status/update-and-get-lead",
    {
      config: { scope: "write" },
      ...coreParsesBody,
      schema: {
        summary:
          "Отметить статус клиента и получить следующего (одна транзакция). На перерыве статус сохраняется, следующий не выдаётся (пустая строка, заголовок X-On-Break: 1)",
        body: recordStatusSchema,
        response: { 200: leadOrEmpty, ...errorResponses },
      },
    },
    async (request, reply) => {
      const result = await recordStatus(api.deps.db, actorOf(request), api.deps.config.holdMinutes, request.body, {
        phoneRegion: api.deps.config.phoneRegion,
      });
      api.deps.metrics.leadTurn(result.lead !== null);
      markBreak(reply, result.onBreak);
      return result.lead
        ? withCardFields(api.deps.db, result.filterId, result.lead, api.deps.config.phoneRegion, result.cardFacts)
        : sendEmpty(reply);
    },
  );

  api.post(
    "/status/proxy-application",
    {
      config: { scope: "write" },
      ...coreParsesBody,
      schema: {
        summary: "Отправить заявку (сохранённую отчётным статусом) на настроенный адрес",
        body: proxyApplicationSchema,
        response: { 200: okSchema.extend({ forwarded: z.boolean() }), ...errorResponses, 502: errorSchema },
      },
    },
    async (request) => proxyApplication(api.deps.db, actorOf(request), api.deps.config.applicationForwardUrl, request.body),
  );
};
export default leads;
