import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { breakState, breakTimeToday, endBreak, startBreak } from "../../../core/breaks/breaks";
import { actorOf } from "../../plugin";
import { errorResponses } from "../../schemas/common";

const breakStateSchema = z
  .object({
    onBreak: z.boolean(),
    startedAt: z.string().nullable().describe("Когда начался идущий перерыв (ISO 8601, UTC)"),
    elapsedSeconds: z.number().int().describe("Сколько секунд он длится"),
    mayBreak: z.boolean().describe("Пользователь работает с лидами и может брать перерывы"),
  })
  .describe("Перерыв пользователя");

/**
 * Breaks (issue 18, decision 038): a manager starts and ends his own break; while it lasts no lead is handed to
 * him (GET /database/filtered-lead and PUT /status/update-and-get-lead answer "" for a new lead).
 */
const breaks: FastifyPluginAsyncZod = async (api) => {
  const { db, config, hub } = api.deps;

  api.get(
    "/breaks/current",
    {
      schema: {
        summary: "Свой перерыв: идёт ли, с какого времени",
        response: { 200: breakStateSchema, ...errorResponses },
      },
    },
    async (request) => breakState(db, actorOf(request)),
  );

  api.post(
    "/breaks",
    {
      schema: {
        summary:
          "Начать свой перерыв: новые лиды не выдаются, закреплённый лид остаётся за менеджером (повторный вызов ничего не меняет; 409 — пользователь не работает с лидами)",
        response: { 200: breakStateSchema, ...errorResponses },
      },
    },
    async (request) => startBreak(db, hub, actorOf(request)),
  );

  api.delete(
    "/breaks/current",
    {
      schema: {
        summary: "Закончить свой перерыв: лиды снова выдаются (без перерыва ничего не меняет)",
        response: {
          200: breakStateSchema.extend({
            ended: z
              .object({ startedAt: z.string(), endedAt: z.string(), seconds: z.number().int() })
              .nullable()
              .describe("Законченный этим вызовом перерыв"),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => endBreak(db, hub, actorOf(request), config.holdMinutes),
  );

  api.get(
    "/breaks/today",
    {
      schema: {
        summary: "Перерывы за сегодня (Киев) по менеджерам: общее время, число перерывов, на перерыве ли сейчас (админ)",
        response: {
          200: z.array(
            z.object({
              userId: z.number().int(),
              login: z.string(),
              displayName: z.string(),
              seconds: z.number().int().describe("Секунд перерыва в пределах сегодняшнего дня"),
              breaks: z.number().int(),
              onBreak: z.boolean(),
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => breakTimeToday(db, actorOf(request)),
  );
};
export default breaks;
