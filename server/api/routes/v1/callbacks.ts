import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  callbackNoteInputSchema,
  editCallbackNote,
  listAllCallbacks,
  listMyCallbacks,
  reassignCallback,
  reassignCallbackSchema,
  takeCallback,
} from "../../../core/leads/callbacks";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses } from "../../schemas/common";

const callbackSchema = z
  .object({
    id: z.number().int(),
    contactId: z.number().int(),
    name: z.string(),
    phone: z.string(),
    statusText: z.string(),
    dueAt: z.string().describe("Когда перезвонить (ISO 8601, UTC)"),
    note: z.string().describe("Заметка менеджера к перезвону (пустая строка, если её нет)"),
    due: z.boolean().describe("Время перезвона наступило"),
    overdue: z.boolean().describe("Просрочен дольше времени ожидания: его может получить любой менеджер тематики"),
    user: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    filter: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    waitsForHours: z.string().nullable().describe("Наступил, но у клиента нерабочее время по его часовому поясу: почему ждёт (иначе null)"),
  })
  .describe("Запланированный перезвон");
const idParams = z.object({ id: z.string().describe("id перезвона") });

const callbacks: FastifyPluginAsyncZod = async (api) => {
  const { db, config } = api.deps;

  api.get(
    "/callbacks/mine",
    {
      schema: {
        summary: "Мои перезвоны: ещё не взятые перезвоны менеджера, ранние первыми",
        response: { 200: z.array(callbackSchema), ...errorResponses },
      },
    },
    async (request) => listMyCallbacks(db, actorOf(request)),
  );

  api.get(
    "/callbacks",
    {
      schema: {
        summary: "Все ещё не взятые перезвоны (админ), по менеджеру и тематике",
        querystring: z.object({ userId: z.unknown(), filterId: z.unknown() }).partial(),
        response: { 200: z.array(callbackSchema), ...errorResponses },
      },
    },
    async (request) => listAllCallbacks(db, actorOf(request), request.query),
  );

  api.put(
    "/callbacks/:id",
    {
      config: { scope: "write" },
      ...coreParsesBody,
      schema: {
        summary: "Передать перезвон другому менеджеру (админ): { userId, dueAt? }",
        params: idParams,
        body: reassignCallbackSchema,
        response: { 200: callbackSchema, ...errorResponses },
      },
    },
    async (request) => reassignCallback(db, actorOf(request), request.params.id, request.body),
  );

  api.put(
    "/callbacks/:id/note",
    {
      config: { scope: "write" },
      ...coreParsesBody,
      schema: {
        summary: "Изменить заметку к перезвону: { note } (менеджер — к своему, админ — к любому; пустая строка убирает её)",
        params: idParams,
        body: callbackNoteInputSchema,
        response: { 200: callbackSchema, ...errorResponses },
      },
    },
    async (request) => editCallbackNote(db, actorOf(request), request.params.id, request.body),
  );

  api.post(
    "/callbacks/:id/take",
    {
      config: { scope: "write" },
      schema: {
        summary: "Взять свой перезвон сейчас: клиент становится лидом менеджера (закреплённый лид отпускается)",
        params: idParams,
        response: { 200: z.object({ contactId: z.number().int(), filterId: z.number().int() }), ...errorResponses },
      },
    },
    async (request) => takeCallback(db, actorOf(request), config.holdMinutes, request.params.id),
  );
};
export default callbacks;
