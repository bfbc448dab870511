import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  resendDelivery,
  rotateWebhookSecret,
  updateWebhook,
  WEBHOOK_EVENT_TYPES,
  webhookInputSchema,
  webhookLog,
} from "../../../core/webhooks/webhooks";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";

const eventSchema = z.enum(WEBHOOK_EVENT_TYPES);

const webhookSchema = z.object({
  id: z.number().int(),
  url: z.string(),
  events: z.array(eventSchema),
  secret: z.string().describe("Секрет подписи (Standard Webhooks, `whsec_…`): им получатель проверяет `webhook-signature`"),
  enabled: z.boolean(),
  failingSince: z.string().nullable().describe("С какого времени отправки не проходят (null: проходят)"),
  disabledReason: z.string().nullable().describe("Почему выключен автоматически (сутки без успешной отправки)"),
  fromEnv: z.boolean().describe("Вебхук APPLICATION_FORWARD_URL (создаётся из переменной окружения)"),
  pending: z.number().int().describe("Событий в очереди"),
  failed: z.number().int().describe("Событий, не доставленных за сутки попыток"),
  createdAt: z.string(),
});

const deliverySchema = z.object({
  id: z.number().int(),
  messageId: z.string().describe("`webhook-id`: одинаков при каждой попытке"),
  eventType: eventSchema,
  state: z.enum(["pending", "delivered", "failed"]),
  createdAt: z.string(),
  nextAttemptAt: z.string().nullable(),
  attempts: z.array(
    z.object({
      at: z.string(),
      httpStatus: z.number().int().nullable().describe("Код ответа получателя; null: ответа не было"),
      response: z.string().describe("Первые 500 символов ответа или описание ошибки"),
      durationMs: z.number().int(),
    }),
  ),
});

const idParams = z.object({ id: z.string().describe("id вебхука") });

const webhooksApi: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get("/webhooks", { schema: { summary: "Вебхуки (админ)", response: { 200: z.array(webhookSchema), ...errorResponses } } }, async (request) =>
    listWebhooks(db, actorOf(request)),
  );

  api.post(
    "/webhooks",
    {
      ...coreParsesBody,
      schema: {
        summary: "Создать вебхук (админ)",
        description: `Секрет подписи создаётся сервером и приходит в ответе. События: ${WEBHOOK_EVENT_TYPES.join(", ")}.`,
        body: webhookInputSchema,
        response: { 200: webhookSchema, ...errorResponses },
      },
    },
    async (request) => createWebhook(db, actorOf(request), request.body),
  );

  api.get(
    "/webhooks/:id",
    { schema: { summary: "Вебхук (админ)", params: idParams, response: { 200: webhookSchema, ...errorResponses } } },
    async (request) => getWebhook(db, actorOf(request), request.params.id),
  );

  api.put(
    "/webhooks/:id",
    {
      ...coreParsesBody,
      schema: {
        summary: "Изменить вебхук (админ)",
        description: "Включение снова забывает сутки неудач.",
        params: idParams,
        body: webhookInputSchema,
        response: { 200: webhookSchema, ...errorResponses },
      },
    },
    async (request) => updateWebhook(db, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/webhooks/:id",
    { schema: { summary: "Удалить вебхук и его журнал (админ)", params: idParams, response: { 200: okSchema, ...errorResponses } } },
    async (request) => {
      await deleteWebhook(db, actorOf(request), request.params.id);
      return { success: true, message: "Вебхук удалён" };
    },
  );

  api.post(
    "/webhooks/:id/secret",
    {
      schema: {
        summary: "Новый секрет подписи (админ): старый перестаёт действовать сразу",
        params: idParams,
        response: { 200: webhookSchema, ...errorResponses },
      },
    },
    async (request) => rotateWebhookSecret(db, actorOf(request), request.params.id),
  );

  api.get(
    "/webhooks/:id/deliveries",
    {
      schema: {
        summary: "Журнал отправок вебхука: события от новых к старым и их попытки (админ); всего событий — в заголовке X-Total-Count",
        params: idParams,
        querystring: z
          .object({
            limit: z.unknown().describe("Сколько событий (1-200, по умолчанию 50)"),
            offset: z.unknown().describe("Сколько самых новых пропустить (по умолчанию 0)"),
          })
          .partial(),
        response: { 200: z.array(deliverySchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { total, deliveries } = await webhookLog(db, actorOf(request), request.params.id, request.query);
      reply.header("X-Total-Count", String(total));
      return deliveries;
    },
  );

  api.post(
    "/webhooks/:id/deliveries/:deliveryId/resend",
    {
      schema: {
        summary: "Отправить ещё раз (админ)",
        description: "Событие снова ставится в очередь с тем же `webhook-id`; выключенный после суток неудач вебхук включается.",
        params: idParams.extend({ deliveryId: z.string() }),
        response: { 200: okSchema, ...errorResponses },
      },
    },
    async (request) => {
      await resendDelivery(db, actorOf(request), request.params.id, request.params.deliveryId);
      return { success: true, message: "Событие поставлено в очередь" };
    },
  );
};

export default webhooksApi;
