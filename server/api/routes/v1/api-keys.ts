import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { API_KEY_SCOPE_NAMES, apiKeyInputSchema, createApiKey, listApiKeys, revokeApiKey } from "../../../core/auth/api-keys";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";

const apiKeySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  prefix: z.string().describe("Начало ключа, чтобы отличать ключи в списке"),
  scopes: z.array(z.enum(API_KEY_SCOPE_NAMES)),
  createdBy: z.string().describe("Логин админа, создавшего ключ: ключ действует от его имени"),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});

const apiKeysApi: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/api-keys",
    { schema: { summary: "Ключи API интеграций (админ)", response: { 200: z.array(apiKeySchema), ...errorResponses } } },
    async (request) => listApiKeys(db, actorOf(request)),
  );

  api.post(
    "/api-keys",
    {
      ...coreParsesBody,
      schema: {
        summary: "Создать ключ API (админ): ключ приходит в ответе один раз, хранится только его хеш",
        description:
          "Ключ передаётся как `Authorization: Bearer <key>`. Права: `read` — любые GET; `write` — ещё выдача и отметка лидов, перезвоны, " +
          "выбор тематики; `admin` — всё. Ключ действует от имени создавшего его админа.",
        body: apiKeyInputSchema,
        response: { 200: z.object({ key: z.string().describe("Показывается только сейчас"), apiKey: apiKeySchema }), ...errorResponses },
      },
    },
    async (request) => createApiKey(db, actorOf(request), request.body),
  );

  api.delete(
    "/api-keys/:id",
    {
      schema: {
        summary: "Отозвать ключ API (админ): следующий запрос с ним получит 401",
        params: z.object({ id: z.string() }),
        response: { 200: okSchema, ...errorResponses },
      },
    },
    async (request) => {
      await revokeApiKey(db, actorOf(request), request.params.id);
      return { success: true, message: "Ключ отозван" };
    },
  );
};

export default apiKeysApi;
