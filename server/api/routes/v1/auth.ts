import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { login, loginSchema } from "../../../core/auth/login";
import { clientAddress } from "../../../http/client-address";
import { forceLogout, registerManager, registerSchema } from "../../../core/users/managers";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, errorSchema, okSchema, sessionUserSchema } from "../../schemas/common";

const auth: FastifyPluginAsyncZod = async (api) => {
  api.post(
    "/auth/login",
    {
      config: { public: true },
      schema: {
        summary: "Вход: логин, пароль и ключ доступа",
        body: loginSchema,
        response: {
          200: z.object({ access_token: z.string(), user: sessionUserSchema }),
          400: errorSchema,
          401: errorSchema,
          429: errorSchema,
        },
      },
    },
    async (request) => {
      const address = clientAddress(request.raw, api.deps.config.trustProxy);
      const result = await login(api.deps.db, api.deps.sessions, api.deps.passwords, request.body, address);
      return { access_token: result.access_token, user: result.user };
    },
  );

  api.post(
    "/auth/register",
    {
      // Core checks the role before the body: a manager gets 403 whatever he sent.
      ...coreParsesBody,
      schema: {
        summary: "Новый менеджер (только админ); без accessKey ключ доступа создаётся сервером",
        body: registerSchema,
        response: {
          201: z.object({ id: z.number().int(), login: z.string(), displayName: z.string() }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const created = await registerManager(api.deps.db, api.deps.passwords, actorOf(request), request.body);
      return reply.code(201).send(created);
    },
  );

  api.post(
    "/auth/force-logout/:id",
    {
      schema: {
        summary: "Принудительный выход: закрывает сессии пользователя на всех экземплярах (только админ)",
        params: z.object({ id: z.string().describe("id пользователя") }),
        response: { 200: okSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { success, message } = await forceLogout(api.deps.db, api.deps.sessions, api.deps.hub, actorOf(request), request.params.id);
      return { success, message };
    },
  );
};
export default auth;
