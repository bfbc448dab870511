import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { getScorecard, saveScorecard, scorecardSchema } from "../../../core/scoring/scorecards";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses } from "../../schemas/common";

const scorecardAnswer = z.object({
  filterId: z.number().int(),
  filterName: z.string(),
  criteria: z.array(z.object({ id: z.number().int(), text: z.string(), weight: z.number().int(), critical: z.boolean() })),
});
const params = z.object({ filterId: z.string().describe("id тематики") });

/** A topic's scorecard for call scoring (issue 39, decision 073): admins read and replace it. */
const scorecards: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/scorecards/:filterId",
    { schema: { summary: "Оценочный лист тематики (админ)", params, response: { 200: scorecardAnswer, ...errorResponses } } },
    async (request) => getScorecard(db, actorOf(request), request.params.filterId),
  );

  api.put(
    "/scorecards/:filterId",
    {
      ...coreParsesBody,
      schema: {
        summary: "Заменить оценочный лист тематики (админ): пункты по порядку, вес 1-100, критичный «нет» даёт 0",
        params,
        body: scorecardSchema,
        response: { 200: scorecardAnswer, ...errorResponses },
      },
    },
    async (request) => saveScorecard(db, actorOf(request), request.params.filterId, request.body),
  );
};

export default scorecards;
