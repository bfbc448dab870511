import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { deleteUser, listUsers, updateUser, updateUserSchema } from "../../../core/users/managers";
import { AGENT_STATES } from "../../../core/breaks/agent-state";
import { listUsersOnline } from "../../../core/users/presence";
import { getUser, logoutUser } from "../../../core/users/users";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, managedUserSchema, okSchema, sessionUserSchema } from "../../schemas/common";

const idParams = z.object({ id: z.string().describe("id пользователя") });

const presentUserSchema = z.object({
  id: z.number().int(),
  login: z.string(),
  displayName: z.string(),
  isAdmin: z.boolean(),
  lastSeen: z.string(),
  state: z
    .enum(AGENT_STATES)
    .nullable()
    .describe("Что он делает: call — разговор, break — перерыв, lead — работает с лидом, idle — ожидает; null — админ, не работающий с лидами"),
  stateSince: z.string().nullable().describe("С какого времени (ISO 8601, UTC)"),
  ringing: z.boolean().describe("его звонок ещё звонит (не принят): «Слушать» дождётся ответа"),
  callId: z.number().int().nullable().describe("В разговоре: id звонка в журнале (его оценка — /quality/call/{id}); иначе null"),
});

const users: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/users",
    {
      schema: {
        summary: "Все пользователи для управления менеджерами (только админ)",
        response: { 200: z.array(managedUserSchema), ...errorResponses },
      },
    },
    async (request) => listUsers(api.deps.db, actorOf(request)),
  );

  api.get(
    "/users/online",
    {
      schema: {
        summary: "Кто онлайн: живая сессия и сокет в пределах льготного периода, и состояние каждого (только админ)",
        response: { 200: z.array(presentUserSchema), ...errorResponses },
      },
    },
    async (request) => listUsersOnline(api.deps.db, actorOf(request), api.deps.config.realtime.presenceGraceSeconds),
  );

  api.get(
    "/users/:id",
    {
      schema: {
        summary: "Пользователь: свой профиль, или любой для админа",
        params: idParams,
        response: { 200: z.union([managedUserSchema, sessionUserSchema]), ...errorResponses },
      },
    },
    async (request) => getUser(api.deps.db, actorOf(request), request.params.id),
  );

  api.patch(
    "/users/:id",
    {
      // Core checks the role before the body: a manager gets 403 whatever he sent.
      ...coreParsesBody,
      schema: {
        summary: "Изменить флаг администратора или поле менеджера (только админ); ключ доступа не меняется",
        params: idParams,
        body: updateUserSchema,
        response: { 200: managedUserSchema, ...errorResponses },
      },
    },
    async (request) =>
      updateUser(api.deps.db, api.deps.sessions, api.deps.passwords, api.deps.hub, actorOf(request), request.params.id, request.body),
  );

  api.delete(
    "/users/:id",
    {
      schema: {
        summary: "Удалить менеджера и его SIP аккаунт (только админ)",
        params: idParams,
        response: { 200: okSchema, ...errorResponses, 502: errorResponses[400] },
      },
    },
    async (request) => deleteUser(api.deps.db, api.deps.telephony, api.deps.hub, actorOf(request), request.params.id),
  );

  api.post(
    "/users/logout/:id",
    {
      schema: {
        summary: "Выход: закрывает сессии пользователя",
        params: idParams,
        response: { 200: okSchema, ...errorResponses },
      },
    },
    async (request) => logoutUser(api.deps.db, api.deps.sessions, actorOf(request), request.params.id),
  );
};
export default users;
