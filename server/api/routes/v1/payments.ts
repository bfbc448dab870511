import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { getRates, setRates } from "../../../core/money/rates";
import { cancelPayout, paymentStats, payoutDetails, payoutHistory, processPayout } from "../../../core/money/payouts";
import { actorOf } from "../../plugin";
import { errorResponses } from "../../schemas/common";

const paymentSchema = z.object({ id: z.number().int(), date: z.string(), amount: z.number() });
const ratesSchema = z.object({
  withPassport: z.number().describe("Ставка за заявку с паспортом, $"),
  withoutPassport: z.number().describe("Ставка за заявку без паспорта, $"),
});

/** A JSON object body whose fields core checks (with its Russian messages); no body at all is an empty one. */
const bodyOf = <T extends Record<string, z.ZodType>>(shape: T) =>
  z.object(shape, { error: "Тело запроса должно быть JSON-объектом" }).nullish();

/** SPEC §7 payouts, admin only, plus the two earning rates (set on /payments). */
const payments: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/payments/stats",
    {
      schema: {
        summary: "Статистика по сотрудникам: неоплаченные заявки и заработанное",
        response: {
          200: z.object({
            withPassport: z.number().int(),
            withoutPassport: z.number().int(),
            workerStats: z.array(
              z.object({
                id: z.number().int(),
                login: z.string(),
                withPassport: z.number().int(),
                withoutPassport: z.number().int(),
                totalEarned: z.number(),
              }),
            ),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => paymentStats(api.deps.db, actorOf(request)),
  );

  api.get(
    "/payments/history/:workerId",
    {
      schema: {
        summary: "История выплат сотрудника, новые первыми",
        params: z.object({ workerId: z.string() }),
        response: { 200: z.array(paymentSchema), ...errorResponses },
      },
    },
    async (request) => payoutHistory(api.deps.db, actorOf(request), request.params.workerId),
  );

  api.post(
    "/payments/history/:workerId/history",
    {
      schema: {
        summary: "Что покрыла выплата: заявки и изменения баланса (processTime: время выплаты в мс)",
        params: z.object({ workerId: z.string() }),
        body: bodyOf({ processTime: z.unknown().optional() }),
        response: {
          200: z.array(z.object({ date: z.string(), amount: z.number(), applicationText: z.string() })),
          ...errorResponses,
        },
      },
    },
    async (request) =>
      payoutDetails(api.deps.db, actorOf(request), {
        workerId: request.params.workerId,
        processTime: request.body?.processTime,
      }),
  );

  api.post(
    "/payments/process",
    {
      schema: {
        summary: "Провести выплату: userId и сумма в долларах",
        body: bodyOf({ userId: z.unknown().optional(), amount: z.unknown().optional() }),
        response: {
          200: z.object({ success: z.boolean(), message: z.string(), payment: paymentSchema, balance: z.number() }),
          ...errorResponses,
        },
      },
    },
    async (request) => processPayout(api.deps.db, actorOf(request), request.body ?? {}),
  );

  api.delete(
    "/payments/history/:id",
    {
      schema: {
        summary: "Отменить выплату: сумма возвращается на баланс",
        params: z.object({ id: z.string() }),
        response: { 200: z.object({ success: z.boolean(), message: z.string(), balance: z.number() }), ...errorResponses },
      },
    },
    async (request) => cancelPayout(api.deps.db, actorOf(request), request.params.id),
  );

  api.get(
    "/payments/rates",
    { schema: { summary: "Ставки за заявку", response: { 200: ratesSchema, ...errorResponses } } },
    async (request) => getRates(api.deps.db, actorOf(request)),
  );

  api.put(
    "/payments/rates",
    {
      schema: {
        summary: "Изменить ставки (действуют для следующих заявок)",
        body: bodyOf({ withPassport: z.unknown().optional(), withoutPassport: z.unknown().optional() }),
        response: { 200: ratesSchema, ...errorResponses },
      },
    },
    async (request) => setRates(api.deps.db, actorOf(request), request.body ?? {}),
  );
};
export default payments;
