import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { getPersonalStatistics, getStatistics } from "../../../core/statistics/statistics";
import { actorOf } from "../../plugin";
import { errorResponses } from "../../schemas/common";

/** The four call numbers of one group (decision 060 says exactly what each counts). */
const callNumbers = {
  attempts: z
    .number()
    .int()
    .describe(
      "Попытки: исходящие звонки, начатые в этот день по Киеву, кроме отказов собственной проверки звонка (номер в «Не звонить», перерыв, не вошёл, нерабочее время клиента)",
    ),
  answered: z.number().int().describe("Дозвон: попытки, на которые ответили (200 OK, звонок дошёл до разговора)"),
  answeredPercent: z.number().nullable().describe("Дозвон, %: answered / attempts × 100, один знак после запятой; null, если попыток не было"),
  talkSeconds: z.number().int().describe("Время разговоров: сумма длительностей отвеченных и уже завершённых попыток, в секундах"),
  contacts: z.number().int().describe("Разных клиентов, которым звонили (звонок из панели лидов, с клиентом)"),
  attemptsPerContact: z
    .number()
    .nullable()
    .describe("Попыток на клиента: попытки с клиентом / разных клиентов, два знака после запятой; null, если клиентам не звонили"),
};

const callDay = z
  .object({
    day: z.string().describe("День по Киеву (Europe/Kyiv), YYYY-MM-DD; звонок относится к дню своего начала"),
    inbound: z
      .object({
        calls: z.number().int().describe("Входящие звонки клиентов за день (один звонок, сколько бы менеджеров он ни обзвонил)"),
        answered: z.number().int().describe("Из них отвеченные менеджером"),
        missed: z.number().int().describe("Пропущенные: никто не ответил (никого свободного, не ответили, клиент положил трубку)"),
        calledBack: z.number().int().describe("Пропущенные, которым с тех пор перезвонили"),
        callBackSeconds: z
          .number()
          .int()
          .nullable()
          .describe("Медиана времени от пропущенного до перезвона, в секундах; null, если не перезванивали"),
      })
      .describe("Входящие (задача 42)"),
    total: z.object(callNumbers).describe("Все попытки дня"),
    managers: z
      .array(
        z.object({
          userId: z.number().int().nullable().describe("null: звонки удалённых менеджеров (Неизвестно)"),
          login: z.string(),
          displayName: z.string(),
          manager: z.string().describe("Имя, как на главной: имя, иначе логин, иначе Неизвестно"),
          ...callNumbers,
        }),
      )
      .describe("По менеджерам, по имени; только те, кто звонил"),
    topics: z
      .array(
        z.object({
          filterId: z.number().int().nullable().describe("null: звонки вне тематики (или удалённой тематики)"),
          topic: z.string().describe("Название тематики или «Без тематики»"),
          ...callNumbers,
        }),
      )
      .describe("По тематикам (тематика менеджера в момент звонка), по названию, «Без тематики» последней"),
  })
  .describe("Звонки за сегодня (задача 29)");

/** SPEC §7 statistics: the admin dashboard (today in Kyiv) and a manager's own status counts. */
const statistics: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/statistics",
    {
      schema: {
        summary:
          "Статистика за сегодня (Europe/Kyiv), админ; calls: попытки, дозвон, время разговоров и попыток на клиента по тематикам и менеджерам",
        response: {
          200: z.object({
            databases: z.number().int(),
            contacts: z.number().int(),
            reportStatuses: z.number().int(),
            totalReportStatuses: z.number().int(),
            totalDatabases: z.number().int(),
            totalContacts: z.number().int(),
            statusCounts: z.record(z.string(), z.number().int()),
            statusColors: z.record(z.string(), z.string()).describe("Цвет каждого статуса из statusCounts (#rrggbb)"),
            topManagers: z.array(z.object({ manager: z.string(), count: z.number().int() })),
            calls: callDay,
            contactRules: z
              .array(
                z.object({
                  filterId: z.number().int(),
                  topic: z.string(),
                  atLimit: z
                    .number()
                    .int()
                    .nullable()
                    .describe("Клиентов на пределе: звонили в этом месяце и сейчас достигнут лимит звонков тематики; null — у тематики нет лимитов"),
                  waitingForHours: z
                    .number()
                    .int()
                    .describe("Новых свободных клиентов, у которых сейчас нерабочее время (ждут своих часов); считается до 10 000"),
                  waitingCapped: z.boolean().describe("true: ждущих не меньше 10 000 (счёт остановлен)"),
                }),
              )
              .describe("По активным тематикам, по названию: кого сейчас сдерживают правила звонков (задача 43)"),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => getStatistics(api.deps.db, actorOf(request)),
  );

  api.get(
    "/statistics/personal/:id",
    {
      schema: {
        summary: "Личная статистика: статус и количество (свою для менеджера)",
        params: z.object({ id: z.string() }),
        response: {
          200: z.array(z.object({ status: z.string(), count: z.number().int(), color: z.string().describe("Цвет статуса, #rrggbb") })),
          ...errorResponses,
        },
      },
    },
    async (request) => getPersonalStatistics(api.deps.db, actorOf(request), request.params.id),
  );
};
export default statistics;
