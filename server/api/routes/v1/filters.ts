import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { chooseFilter, createFilter, deleteFilter, listFilters, toggleFilterActive, updateFilter } from "../../../core/filters/filters";
import { filterInputSchema, TOPIC_PRESETS } from "../../../../common/schemas/filters";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";

const idParams = z.object({ id: z.string().describe("id фильтра") });

const callingHoursShape = z
  .object({
    from: z.string().describe("Начало окна звонков, ЧЧ:ММ, по местному времени клиента"),
    until: z.string().describe("Конец окна, ЧЧ:ММ (меньше начала: окно через полночь; равен началу: круглосуточно)"),
    days: z.array(z.number().int()).describe("Дни недели ISO: 1 — понедельник … 7 — воскресенье"),
    timeZone: z.string().describe("Часовой пояс IANA для номеров, чей пояс неизвестен"),
    weekendFrom: z
      .string()
      .nullable()
      .describe("Начало окна в выходные (суббота, воскресенье, праздники страны клиента, daysOff), ЧЧ:ММ; null — как в будни"),
    weekendUntil: z.string().nullable().describe("Конец окна в выходные, ЧЧ:ММ; null — как в будни"),
    daysOff: z.array(z.string()).describe("Свои выходные дни тематики (ГГГГ-ММ-ДД, по дате клиента): считаются выходными"),
  })
  .describe("Время звонков тематики");

const filterSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    isActive: z.boolean(),
    managers: z.array(z.object({ id: z.number().int(), name: z.string() })),
    scripts: z.array(z.object({ id: z.number().int(), name: z.string() })),
    databases: z.array(z.object({ id: z.number().int(), name: z.string() })),
    statuses: z.array(z.object({ id: z.number().int(), text: z.string() })),
    template: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    totalManagers: z.number().int(),
    callingHours: callingHoursShape,
    recordCalls: z.boolean().describe("записывать разговоры тематики"),
    recordingRetentionDays: z.number().int().nullable().describe("дней хранить записи (null: всегда)"),
    managersHearRecordings: z.boolean().describe("менеджер слушает записи своих разговоров"),
    retryRules: z
      .array(
        z.object({
          status: z.object({ id: z.number().int(), text: z.string() }).describe("статус, который правило возвращает в работу"),
          delayMinutes: z.number().int().describe("вернуть в работу через столько минут после нажатия статуса"),
          maxAttempts: z.number().int().describe("не более стольких попыток всего"),
          finalStatus: z.object({ id: z.number().int(), text: z.string() }).describe("статус после последней попытки"),
        }),
      )
      .describe("Правила повтора"),
    retryCountedBy: z.enum(["presses", "calls"]).describe("попытки считаются по нажатиям статусов или по звонкам"),
    autodialSeconds: z.number().int().nullable().describe("автонабор через столько секунд после показа лида (null: выключен)"),
    contactLimits: z
      .object({
        day: z.number().int().nullable(),
        week: z.number().int().nullable(),
        month: z.number().int().nullable(),
        counts: z.enum(["attempts", "connected"]),
      })
      .describe(
        "не больше стольких звонков одному клиенту в его день, неделю (с понедельника), месяц (null: без ограничения); counts: attempts — все попытки, connected — только разговоры",
      ),
    preset: z
      .enum(TOPIC_PRESETS)
      .nullable()
      .meta({
        description: "law230: тематика следует 230-ФЗ (ограничение звонков 1/2/8 разговоров, время звонков в пределах закона); null: своих правил",
        // The example answer's limits and hours are no 230-FZ's.
        examples: [null],
      }),
    requiresConsent: z.boolean().describe("звонить только клиентам с согласием на звонки"),
    inboundNumber: z
      .string()
      .describe("номер линии для входящих (+380441230000): незнакомый номер, позвонивший на него, идёт менеджерам тематики; «» — нет"),
  })
  .describe("Фильтр (тематика)");

const filtersRoutes: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/filters",
    {
      schema: {
        summary: "Фильтры: все для админа, для менеджера — активные, где он указан",
        response: { 200: z.array(filterSchema), ...errorResponses },
      },
    },
    async (request) => listFilters(api.deps.db, actorOf(request)),
  );

  api.post(
    "/filters",
    {
      ...coreParsesBody,
      schema: {
        summary: "Создать фильтр (админ)",
        body: filterInputSchema,
        response: { 200: filterSchema, ...errorResponses },
      },
    },
    async (request) => createFilter(api.deps.db, actorOf(request), request.body, { phoneRegion: api.deps.config.phoneRegion }),
  );

  api.put(
    "/filters/:id",
    {
      ...coreParsesBody,
      schema: {
        summary: "Изменить фильтр (админ)",
        params: idParams,
        body: filterInputSchema,
        response: { 200: filterSchema, ...errorResponses },
      },
    },
    async (request) => updateFilter(api.deps.db, actorOf(request), request.params.id, request.body, { phoneRegion: api.deps.config.phoneRegion }),
  );

  api.delete(
    "/filters/:id",
    {
      schema: { summary: "Удалить фильтр (админ)", params: idParams, response: { 200: okSchema, ...errorResponses } },
    },
    async (request) => deleteFilter(api.deps.db, actorOf(request), request.params.id),
  );

  api.put(
    "/filters/:id/activate",
    {
      schema: {
        summary: "Активировать / деактивировать фильтр (админ)",
        params: idParams,
        response: { 200: filterSchema, ...errorResponses },
      },
    },
    async (request) => toggleFilterActive(api.deps.db, actorOf(request), request.params.id),
  );

  api.post(
    "/filters/:filterId/:userId/:login",
    {
      config: { scope: "write" },
      schema: {
        summary: "Выбрать тематику: сохраняет фильтр как gettingFilter пользователя",
        params: z.object({ filterId: z.string(), userId: z.string(), login: z.string() }),
        response: { 200: okSchema.extend({ gettingFilter: z.number().int() }), ...errorResponses },
      },
    },
    async (request) => chooseFilter(api.deps.db, actorOf(request), request.params),
  );
};
export default filtersRoutes;
