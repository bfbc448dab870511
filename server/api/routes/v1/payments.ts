import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { getRates, ratesSchema as ratesInputSchema, setRates } from "../../../core/money/rates";
import {
  cancelPayout,
  paymentStats,
  payoutDetails,
  payoutDetailsSchema,
  payoutHistory,
  payoutSchema,
  processPayout,
} from "../../../core/money/payouts";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses } from "../../schemas/common";

const paymentSchema = z.object({ id: z.number().int(), date: z.string(), amount: z.number() });
const ratesSchema = z.object({
  withPassport: z.number().describe("Ставка за заявку с паспортом, $"),
  withoutPassport: z.number().describe("Ставка за заявку без паспорта, $"),
});

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
      ...coreParsesBody,
      schema: {
        summary: "Что покрыла выплата: заявки и изменения баланса (processTime: время выплаты в мс)",
        params: z.object({ workerId: z.string() }),
        body: payoutDetailsSchema.pick({ processTime: true }),
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
      ...coreParsesBody,
      schema: {
        summary: "Провести выплату: userId и сумма в долларах",
        body: payoutSchema,
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

  api.get("/payments/rates", { schema: { summary: "Ставки за заявку", response: { 200: ratesSchema, ...errorResponses } } }, async (request) =>
    getRates(api.deps.db, actorOf(request)),
  );

  api.put(
    "/payments/rates",
    {
      ...coreParsesBody,
      schema: {
        summary: "Изменить ставки (действуют для следующих заявок)",
        body: ratesInputSchema,
        response: { 200: ratesSchema, ...errorResponses },
      },
    },
    async (request) => setRates(api.deps.db, actorOf(request), request.body ?? {}),
  );
};
export default payments;
