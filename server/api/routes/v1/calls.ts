import fs from "node:fs";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { CALL_DIRECTIONS, CALL_OUTCOMES, RECORDING_STATES } from "../../../../db/schema/calls";
import { answerCall, callStatsToday, endCall, endCallSchema, keepCallAlive, listCalls, startCall, startCallSchema } from "../../../core/calls/calls";
import { clientHistory } from "../../../core/calls/history";
import { recordingAnswer } from "../../../http/recording-answer";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses } from "../../schemas/common";

const callSchema = z.object({
  id: z.number().int(),
  userId: z.number().int().nullable(),
  userLogin: z.string().nullable(),
  contactId: z.number().int().nullable(),
  number: z.string(),
  direction: z.enum(CALL_DIRECTIONS),
  startedAt: z.string(),
  answeredAt: z.string().nullable(),
  endedAt: z.string().nullable(),
  talkSeconds: z.number().int(),
  outcome: z.enum(CALL_OUTCOMES).nullable().describe("null while the call is on"),
  sipCode: z.number().int().nullable(),
  reason: z.string().nullable(),
  recording: z.enum(RECORDING_STATES).nullable().describe("запись: null (не записывался), pending, ready, failed, expired, disk_full"),
  recordingNote: z.string().nullable().describe("что строка журнала говорит о записи"),
});
const historySchema = z.array(
  z.object({
    kind: z.enum(["call", "status"]),
    at: z.string(),
    manager: z.string().nullable().describe("логин менеджера"),
    managerName: z.string().nullable().describe("имя менеджера, как его показывают страницы (иначе логин)"),
    direction: z.enum(CALL_DIRECTIONS).optional(),
    number: z.string().optional(),
    outcome: z.enum(CALL_OUTCOMES).nullable().optional(),
    talkSeconds: z.number().int().optional(),
    reason: z.string().nullable().optional(),
    id: z.number().int().optional(),
    recordingNote: z.string().nullable().optional(),
    playable: z.boolean().optional().describe("запись можно слушать: GET /calls/{id}/recording"),
    downloadable: z.boolean().optional().describe("запись можно скачать (админ)"),
    score: z
      .number()
      .int()
      .nullable()
      .optional()
      .describe("оценка звонка 0-100 (с учётом пересмотра): админу — любая, менеджеру — только его звонков"),
    mine: z.boolean().optional().describe("звонок того, кто читает историю"),
    status: z.string().optional(),
    cardText: z.string().optional(),
    attempt: z.string().nullable().optional().describe("для статуса с правилом повтора: «Попытка 3 из 5» (и «итог: …» на последней)"),
    callback: z
      .object({ dueAt: z.string(), note: z.string() })
      .nullable()
      .optional()
      .describe("перезвон, который запланировало это нажатие: когда (ISO 8601) и заметка менеджера"),
  }),
);
const idParams = z.object({ id: z.string().describe("id звонка") });
const listQuery = z.object({
  userId: z.string().optional().describe("менеджер (админ: любой; менеджер: только свой)"),
  contactId: z.string().optional(),
  outcome: z.enum(CALL_OUTCOMES).optional(),
  from: z.string().optional().describe("начало, ISO 8601, включительно"),
  to: z.string().optional().describe("конец, ISO 8601, не включительно"),
  limit: z.string().optional().describe("до 500, по умолчанию 100"),
  offset: z.string().optional(),
});

/** The call log (issue 15): the softphone opens, answers, keeps alive and ends calls; admins read every call. */
const calls: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/calls",
    {
      schema: {
        summary: "Журнал звонков, новые первыми (админ: все; менеджер: свои)",
        querystring: listQuery,
        response: { 200: z.object({ total: z.number().int(), calls: z.array(callSchema) }), ...errorResponses },
      },
    },
    async (request) => listCalls(db, actorOf(request), request.query),
  );

  api.get(
    "/calls/today",
    {
      schema: {
        summary:
          "Звонки за сегодня (Киев) по менеджерам: попытки, отвеченные, время разговоров, средний звонок (админ); считаются как calls.managers в GET /statistics",
        response: {
          200: z.array(
            z.object({
              userId: z.number().int(),
              login: z.string(),
              displayName: z.string(),
              attempts: z.number().int(),
              answered: z.number().int(),
              talkSeconds: z.number().int(),
              averageSeconds: z.number().int(),
            }),
          ),
          ...errorResponses,
        },
      },
    },
    async (request) => callStatsToday(db, actorOf(request)),
  );

  api.post(
    "/calls",
    {
      ...coreParsesBody,
      schema: {
        summary:
          "Звонок начат: number, direction (out | in), contactId (звонок из панели лидов; номер должен быть его), sipCallId (Call-ID SIP: строка, которую открыл прокси, отвечает этим же id)",
        body: startCallSchema,
        response: { 200: z.object({ id: z.number().int() }), ...errorResponses },
      },
    },
    async (request) => {
      const call = await startCall(db, actorOf(request), request.body ?? {}, api.deps.config.phoneRegion);
      // /users shows him in a call at once (decision 038).
      void api.deps.hub.presenceChanged().catch(() => {});
      return call;
    },
  );

  api.get(
    "/calls/:id/recording",
    {
      schema: {
        summary:
          "Запись разговора, Ogg Opus (левый канал: менеджер, правый: клиент); заголовок Range: часть файла (206). " +
          "download=1: файлом (только админ). Админ: любой звонок; менеджер: свой, если тематика разрешает",
        params: idParams,
        querystring: z.object({ download: z.enum(["0", "1"]).optional() }),
        response: { 200: z.any(), 206: z.any(), 416: z.null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      const answer = await recordingAnswer(db, api.deps.recordings.folder, actorOf(request), request.params.id, {
        download: request.query.download === "1",
        range: request.headers.range,
      });
      reply.code(answer.status).headers(answer.headers);
      if (answer.status === 416) return reply.send(null);
      return reply.send(fs.createReadStream(answer.file, { start: answer.start, end: answer.end }));
    },
  );

  api.post(
    "/calls/:id/answer",
    { schema: { summary: "Звонок отвечен", params: idParams, response: { 204: z.null(), ...errorResponses } } },
    async (request, reply) => {
      await answerCall(db, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  api.post(
    "/calls/:id/alive",
    {
      schema: {
        summary: "Звонок ещё идёт (каждые 30 с; звонок без вестей 90 с закрывается сервером)",
        params: idParams,
        response: { 204: z.null(), ...errorResponses },
      },
    },
    async (request, reply) => {
      await keepCallAlive(db, actorOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );

  api.post(
    "/calls/:id/end",
    {
      ...coreParsesBody,
      schema: {
        summary: "Звонок завершён: sipCode (окончательный ответ SIP 300-699) или cause (hangup | remote | timeout | dial | lost)",
        params: idParams,
        body: endCallSchema.optional(),
        response: { 200: callSchema, ...errorResponses },
      },
    },
    async (request) => {
      const call = await endCall(db, actorOf(request), request.params.id, request.body ?? {});
      void api.deps.hub.presenceChanged().catch(() => {});
      return call;
    },
  );

  api.get(
    "/contacts/:id/history",
    {
      schema: {
        summary: "История клиента: звонки и статусы, новые первыми (админ или менеджер, у которого клиент сейчас)",
        params: z.object({ id: z.string().describe("id клиента") }),
        response: { 200: historySchema, ...errorResponses },
      },
    },
    async (request) => clientHistory(db, actorOf(request), request.params.id),
  );
};
export default calls;
