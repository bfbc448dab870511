import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  createStatus,
  createStatusSchema,
  deleteStatus,
  listStatuses,
  listVisibleStatuses,
  toggleStatusDoNotCall,
  toggleStatusCallback,
  toggleStatusTechnical,
  toggleStatusVisibility,
  updateStatus,
  updateStatusSchema,
} from "../../../core/statuses/statuses";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";

const statusSchema = z.object({
  id: z.number().int(),
  text: z.string(),
  buttonText: z.string(),
  color: z.string(),
  isHidden: z.boolean(),
  description: z.string(),
  order: z.number().int(),
  isReportStatus: z.boolean(),
  isTechnical: z.boolean(),
  isDoNotCall: z.boolean().describe("Нажатие статуса добавляет номер(а) клиента в список «Не звонить»"),
  asksCallback: z.boolean().describe("Нажатие спрашивает время перезвона"),
  hotkey: z.number().int().nullable().describe("Клавиша 1-9 на панели лидов, заданная админом; null — следующая свободная"),
});
const idParams = z.object({ id: z.string().describe("id статуса") });

const status: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get("/status", { schema: { summary: "Все статусы (админ)", response: { 200: z.array(statusSchema), ...errorResponses } } }, async (request) =>
    listStatuses(db, actorOf(request)),
  );

  api.get(
    "/status/visible",
    { schema: { summary: "Видимые статусы: кнопки панели лидов", response: { 200: z.array(statusSchema), ...errorResponses } } },
    async (request) => listVisibleStatuses(db, actorOf(request)),
  );

  api.post(
    "/status",
    {
      ...coreParsesBody,
      schema: { summary: "Новый статус (админ)", body: createStatusSchema, response: { 200: statusSchema, ...errorResponses } },
    },
    async (request) => createStatus(db, actorOf(request), request.body),
  );

  api.put(
    "/status/:id",
    {
      ...coreParsesBody,
      schema: {
        summary: "Изменить статус (админ)",
        params: idParams,
        body: updateStatusSchema,
        response: { 200: statusSchema, ...errorResponses },
      },
    },
    async (request) => updateStatus(db, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/status/:id",
    { schema: { summary: "Удалить статус (админ)", params: idParams, response: { 200: okSchema, ...errorResponses } } },
    async (request) => deleteStatus(db, actorOf(request), request.params.id),
  );

  api.put(
    "/status/:id/visibility",
    {
      schema: {
        summary: "Скрыть или показать статус (админ); ответ: статус с новым isHidden",
        params: idParams,
        response: { 200: statusSchema, ...errorResponses },
      },
    },
    async (request) => toggleStatusVisibility(db, actorOf(request), request.params.id),
  );

  api.put(
    "/status/:id/technical",
    {
      schema: {
        summary: "Переключить технический статус (админ)",
        params: idParams,
        response: { 200: statusSchema, ...errorResponses },
      },
    },
    async (request) => toggleStatusTechnical(db, actorOf(request), request.params.id),
  );

  api.put(
    "/status/:id/do-not-call",
    {
      schema: {
        summary: "Переключить флаг «Добавить в список „Не звонить“» (админ)",
        description:
          "Нажатие такого статуса на панели лидов добавляет номер клиента (все его номера, если их несколько) в список " +
          "«Не звонить» от имени менеджера; клиент больше не выдаётся ни в одной базе.",
        params: idParams,
        response: { 200: statusSchema, ...errorResponses },
      },
    },
    async (request) => toggleStatusDoNotCall(db, actorOf(request), request.params.id),
  );

  api.put(
    "/status/:id/callback",
    {
      schema: {
        summary: "Переключить «спрашивает время перезвона» (админ)",
        params: idParams,
        response: { 200: statusSchema, ...errorResponses },
      },
    },
    async (request) => toggleStatusCallback(db, actorOf(request), request.params.id),
  );
};
export default status;
