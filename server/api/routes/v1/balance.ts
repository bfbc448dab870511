import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { adjustBalance, readBalance } from "../../../core/money/balance";
import { actorOf } from "../../plugin";
import { errorResponses } from "../../schemas/common";

const balanceSchema = z.object({
  balance: z.number().describe("Баланс в долларах"),
  notify: z.boolean().describe("Баланс вырос с прошлого чтения (показать поздравление)"),
  lastNotify: z.number().describe("Сумма последнего начисления в долларах"),
});
const adjustedSchema = z.object({ success: z.boolean(), message: z.string(), balance: z.number() });

/** SPEC §7 balance calls. The adjustments stay GET as SPEC has them; like all of /api/v1 they need the bearer token. */
const balance: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/users/balance/:id",
    {
      schema: {
        summary: "Баланс: свой для менеджера, любой для админа; чтение снимает флаг notify",
        params: z.object({ id: z.string() }),
        response: { 200: balanceSchema, ...errorResponses },
      },
    },
    async (request) => readBalance(api.deps.db, actorOf(request), request.params.id),
  );

  for (const kind of ["add", "rem", "def"] as const) {
    api.get(
      `/users/balance/:userId/:amount/${kind}`,
      {
        // A GET that changes money: an API key needs "admin" (issue 44).
        config: { scope: "admin" },
        schema: {
          summary: kind === "add" ? "Добавить к балансу (админ)" : kind === "rem" ? "Снять с баланса (админ)" : "Обнулить баланс (админ)",
          params: z.object({ userId: z.string(), amount: z.string() }),
          response: { 200: adjustedSchema, ...errorResponses },
        },
      },
      async (request) =>
        adjustBalance(api.deps.db, actorOf(request), {
          userId: request.params.userId,
          amount: request.params.amount,
          kind,
        }),
    );
  }
};
export default balance;
