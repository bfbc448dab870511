import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { createLink, deleteLink, linkSchema as linkInput, listActiveLinks, listLinks, toggleLinkActive, updateLink } from "../../../core/links/links";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";

const linkSchema = z.object({ id: z.number().int(), name: z.string(), link: z.string(), isActive: z.boolean() });
const idParams = z.object({ id: z.string().describe("id ссылки") });
const body = linkInput;

const links: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get("/links", { schema: { summary: "Все ссылки по id (админ)", response: { 200: z.array(linkSchema), ...errorResponses } } }, async (request) =>
    listLinks(db, actorOf(request)),
  );

  api.get(
    "/links/allActive",
    { schema: { summary: "Активные ссылки: ряд на панели лидов", response: { 200: z.array(linkSchema), ...errorResponses } } },
    async (request) => listActiveLinks(db, actorOf(request)),
  );

  api.post(
    "/links",
    {
      ...coreParsesBody,
      schema: { summary: "Новая ссылка (админ)", body, response: { 200: linkSchema, ...errorResponses } },
    },
    async (request) => createLink(db, actorOf(request), request.body),
  );

  api.put(
    "/links/:id",
    {
      ...coreParsesBody,
      schema: { summary: "Изменить ссылку (админ)", params: idParams, body, response: { 200: linkSchema, ...errorResponses } },
    },
    async (request) => updateLink(db, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/links/:id",
    { schema: { summary: "Удалить ссылку (админ)", params: idParams, response: { 200: okSchema, ...errorResponses } } },
    async (request) => deleteLink(db, actorOf(request), request.params.id),
  );

  api.put(
    "/links/:id/activate",
    {
      schema: {
        summary: "Активировать или деактивировать ссылку (админ)",
        params: idParams,
        response: { 200: linkSchema, ...errorResponses },
      },
    },
    async (request) => toggleLinkActive(db, actorOf(request), request.params.id),
  );
};
export default links;
