import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { createScript, deleteScript, listScripts, scriptSchema as scriptInput, updateScript } from "../../../core/scripts/scripts";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";

const scriptSchema = z.object({ id: z.number().int(), name: z.string(), content: z.string().describe("HTML, очищенный") });
const idParams = z.object({ id: z.string().describe("id скрипта") });
const body = scriptInput;

const scripts: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/scripts",
    {
      schema: {
        summary: "Скрипты: все для админа, для менеджера те, что дают ему его тематики",
        response: { 200: z.array(scriptSchema), ...errorResponses },
      },
    },
    async (request) => listScripts(db, actorOf(request)),
  );

  api.post(
    "/scripts",
    {
      ...coreParsesBody,
      schema: { summary: "Новый скрипт (админ)", body, response: { 200: scriptSchema, ...errorResponses } },
    },
    async (request) => createScript(db, actorOf(request), request.body),
  );

  api.put(
    "/scripts/:id",
    {
      ...coreParsesBody,
      schema: { summary: "Изменить скрипт (админ)", params: idParams, body, response: { 200: scriptSchema, ...errorResponses } },
    },
    async (request) => updateScript(db, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/scripts/:id",
    { schema: { summary: "Удалить скрипт (админ)", params: idParams, response: { 200: okSchema, ...errorResponses } } },
    async (request) => deleteScript(db, actorOf(request), request.params.id),
  );
};
export default scripts;
