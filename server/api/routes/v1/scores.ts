import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { CALL_DIRECTIONS } from "../../../../db/schema/calls";
import {
  addCallComment,
  callCommentSchema,
  callSheet,
  decideDispute,
  decisionSchema,
  deleteCallComment,
  disputeScore,
  disputeSchema,
  listScores,
  scoreCall,
  scoreInputSchema,
} from "../../../core/scoring/scores";
import { SCORE_ANSWERS } from "../../../../common/schemas/scoring";
import { scoreNext, scoreNumbers } from "../../../core/scoring/numbers";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";

const scored = z.object({
  id: z.number().int(),
  text: z.string(),
  weight: z.number().int(),
  critical: z.boolean(),
  answer: z.enum(SCORE_ANSWERS),
});
const comment = z.object({
  id: z.number().int(),
  atSeconds: z.number().int().describe("Секунда записи"),
  at: z.string().describe("м:сс"),
  text: z.string(),
  author: z.string().nullable(),
  createdAt: z.string(),
});
const call = z.object({
  id: z.number().int(),
  startedAt: z.string(),
  number: z.string(),
  direction: z.enum(CALL_DIRECTIONS).describe("in — входящий (звонил клиент), out — исходящий"),
  talkSeconds: z.number().int(),
  managerId: z.number().int().nullable(),
  manager: z.string().nullable(),
  filterId: z.number().int().nullable(),
  topic: z.string().nullable(),
  playable: z.boolean(),
  recordingNote: z.string().nullable(),
  recordingMs: z.number().int().nullable(),
});
const score = z.object({
  id: z.number().int(),
  callId: z.number().int(),
  managerId: z.number().int().nullable(),
  manager: z.string().nullable(),
  filterId: z.number().int().nullable(),
  topic: z.string().nullable(),
  scorer: z.string().nullable(),
  scoredAt: z.string(),
  answers: z.array(scored),
  score: z.number().int().describe("0-100 (decision 073)"),
  comment: z.string(),
  dispute: z.object({ at: z.string(), comment: z.string() }).nullable(),
  decision: z
    .object({
      decision: z.enum(["accepted", "rejected"]),
      at: z.string(),
      by: z.string().nullable(),
      reason: z.string(),
      answers: z.array(scored).nullable(),
      rescore: z.number().int().nullable(),
    })
    .nullable(),
  finalScore: z.number().int().describe("Пересмотр, если спор принят, иначе оценка"),
});
const sheet = z.object({
  call,
  criteria: z.array(z.object({ id: z.number().int(), text: z.string(), weight: z.number().int(), critical: z.boolean() })),
  score: score.nullable(),
  comments: z.array(comment),
});
const callParams = z.object({ callId: z.string().describe("id звонка") });
const idParams = z.object({ id: z.string().describe("id оценки") });

/** Call scores, comments pinned to moments of a call, disputes (issue 39, decision 073). */
const scores: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/scores",
    {
      schema: {
        summary: "Оценки звонков с комментариями: админ — все (по менеджеру, тематике, спорам), менеджер — свои",
        querystring: z.object({
          managerId: z.string().optional(),
          filterId: z.string().optional(),
          disputed: z.string().optional().describe("open | any"),
        }),
        response: { 200: z.array(score.extend({ call, comments: z.array(comment) })), ...errorResponses },
      },
    },
    async (request) => listScores(db, actorOf(request), request.query),
  );

  api.get(
    "/scores/numbers",
    {
      schema: {
        summary:
          "Оценки по неделям (неделя звонка, с понедельника по Киеву), менеджерам и тематикам: сколько оценено и оспорено, средняя оценка (админ)",
        querystring: z.object({
          weeks: z.string().optional().describe("Сколько недель, считая текущую (1-52, по умолчанию 8)"),
          managerId: z.string().optional(),
          filterId: z.string().optional(),
        }),
        response: {
          200: z.array(
            z.object({
              week: z.string().describe("Понедельник недели, YYYY-MM-DD"),
              managerId: z.number().int().nullable(),
              manager: z.string().nullable(),
              filterId: z.number().int().nullable(),
              topic: z.string().nullable(),
              scored: z.number().int(),
              disputed: z.number().int(),
              average: z.number().describe("Средняя засчитанная оценка (пересмотр, если спор принят)"),
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => scoreNumbers(db, actorOf(request), request.query),
  );

  api.get(
    "/scores/next",
    {
      schema: {
        summary:
          "Что оценить дальше (админ): по каждому менеджеру неоценённые звонки этой недели — самый длинный, самый короткий, закончившиеся заявкой",
        response: {
          200: z.array(
            z.object({
              managerId: z.number().int(),
              manager: z.string(),
              unscored: z.number().int(),
              scored: z.number().int(),
              calls: z.array(
                z.object({
                  id: z.number().int(),
                  startedAt: z.string(),
                  number: z.string(),
                  direction: z.enum(CALL_DIRECTIONS).describe("in — входящий, out — исходящий"),
                  talkSeconds: z.number().int(),
                  topic: z.string().nullable(),
                  reasons: z.array(z.enum(["longest", "shortest", "report"])),
                }),
              ),
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => scoreNext(db, actorOf(request)),
  );

  api.get(
    "/scores/calls/:callId",
    {
      schema: {
        summary: "Звонок для оценки: оценочный лист тематики, оценка, спор, комментарии (админ; менеджер — свой звонок)",
        params: callParams,
        response: { 200: sheet, ...errorResponses },
      },
    },
    async (request) => callSheet(db, actorOf(request), request.params.callId),
  );

  api.post(
    "/scores/calls/:callId",
    {
      ...coreParsesBody,
      schema: {
        summary: "Оценить звонок (админ): ответ на каждый пункт оценочного листа {id пункта: yes|no|partly|na}",
        params: callParams,
        body: scoreInputSchema,
        response: { 200: sheet, ...errorResponses },
      },
    },
    async (request) => scoreCall(db, actorOf(request), request.params.callId, request.body),
  );

  api.post(
    "/scores/calls/:callId/comments",
    {
      ...coreParsesBody,
      schema: {
        summary: "Комментарий к моменту записи (админ): at — «м:сс» или секунды",
        params: callParams,
        body: callCommentSchema,
        response: { 200: z.array(comment), ...errorResponses },
      },
    },
    async (request) => addCallComment(db, actorOf(request), request.params.callId, request.body),
  );

  api.delete(
    "/scores/comments/:id",
    {
      schema: {
        summary: "Удалить комментарий (админ)",
        params: z.object({ id: z.string().describe("id комментария") }),
        response: { 200: okSchema, ...errorResponses },
      },
    },
    async (request) => {
      await deleteCallComment(db, actorOf(request), request.params.id);
      return { success: true, message: "Комментарий удалён" };
    },
  );

  api.post(
    "/scores/:id/dispute",
    {
      ...coreParsesBody,
      schema: {
        summary: "Оспорить свою оценку (менеджер, один раз)",
        params: idParams,
        body: disputeSchema,
        response: { 200: score, ...errorResponses },
      },
    },
    async (request) => disputeScore(db, actorOf(request), request.params.id, request.body),
  );

  api.post(
    "/scores/:id/decision",
    {
      ...coreParsesBody,
      schema: {
        summary: "Решение по спору (админ): accept с новыми ответами (пересмотр) или reject с причиной",
        params: idParams,
        body: decisionSchema,
        response: { 200: score, ...errorResponses },
      },
    },
    async (request) => decideDispute(db, actorOf(request), request.params.id, request.body),
  );
};

export default scores;
