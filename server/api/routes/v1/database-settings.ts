import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { databaseSettingsSchema, getDatabaseSettings, saveDatabaseSettings } from "../../../core/settings/settings";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses } from "../../schemas/common";

const settingsSchema = z.object({
  removeDuplicatesInBase: z.boolean(),
  removeDuplicatesAcrossBases: z.boolean(),
  defaultInfo: z.string(),
  callbackGraceMinutes: z
    .number()
    .int()
    .describe("Минуты: перезвон, не взятый своим менеджером столько после срока, уходит любому менеджеру тематики"),
  inboundRingSeconds: z
    .number()
    .int()
    .describe("Секунды, 5-60: входящий звонит одному менеджеру столько, затем следующему (не указано: без изменений)"),
  inboundMaxManagers: z
    .number()
    .int()
    .describe("1-10: скольким менеджерам по очереди звонит входящий, прежде чем он станет пропущенным (не указано: без изменений)"),
});
const body = databaseSettingsSchema;

const databaseSettings: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/database/settings",
    { schema: { summary: "Настройки баз (админ)", response: { 200: settingsSchema, ...errorResponses } } },
    async (request) => getDatabaseSettings(db, actorOf(request)),
  );

  api.post(
    "/database/settings",
    {
      ...coreParsesBody,
      schema: { summary: "Сохранить настройки баз (админ)", body, response: { 200: settingsSchema, ...errorResponses } },
    },
    async (request) => saveDatabaseSettings(db, actorOf(request), request.body),
  );
};
export default databaseSettings;
