import type { FastifyError } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { isAppError } from "../../../core/errors";
import {
  createTemplate,
  deleteTemplate,
  listTemplates,
  templateSchema as templateInput,
  toggleTemplateActive,
  updateTemplate,
} from "../../../core/templates/templates";
import { apiErrorHandler } from "../../errors";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorSchema, okSchema } from "../../schemas/common";

const templateSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  isActive: z.boolean(),
  templateFields: z.string().describe('JSON: [{"label": "...", "type": "text" | "textarea"}]'),
});
/** SPEC §7: a template answer "may carry status error and message"; so do its errors here. */
const templateErrorSchema = errorSchema.extend({ status: z.literal("error") });
const templateErrors = { 400: templateErrorSchema, 401: templateErrorSchema, 403: templateErrorSchema, 404: templateErrorSchema };
const idParams = z.object({ id: z.string().describe("id шаблона") });
const body = templateInput;

const templates: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.setErrorHandler((error, request, reply) => {
    if (isAppError(error)) {
      return reply.code(error.status).send({ status: "error", error: error.code, message: error.message });
    }
    return apiErrorHandler(error as FastifyError, request, reply);
  });

  api.get(
    "/templates",
    { schema: { summary: "Шаблоны карточки клиента", response: { 200: z.array(templateSchema), ...templateErrors } } },
    async (request) => listTemplates(db, actorOf(request)),
  );

  api.post(
    "/templates",
    {
      ...coreParsesBody,
      schema: { summary: "Новый шаблон (админ)", body, response: { 200: templateSchema, ...templateErrors } },
    },
    async (request) => createTemplate(db, actorOf(request), request.body),
  );

  api.put(
    "/templates/:id",
    {
      ...coreParsesBody,
      schema: { summary: "Изменить шаблон (админ)", params: idParams, body, response: { 200: templateSchema, ...templateErrors } },
    },
    async (request) => updateTemplate(db, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/templates/:id",
    { schema: { summary: "Удалить шаблон (админ)", params: idParams, response: { 200: okSchema, ...templateErrors } } },
    async (request) => deleteTemplate(db, actorOf(request), request.params.id),
  );

  api.put(
    "/templates/:id/activate",
    {
      schema: {
        summary: "Активировать или деактивировать шаблон (админ)",
        params: idParams,
        response: { 200: templateSchema, ...templateErrors },
      },
    },
    async (request) => toggleTemplateActive(db, actorOf(request), request.params.id),
  );
};
export default templates;
