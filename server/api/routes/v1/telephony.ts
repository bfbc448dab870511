import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { sipDigest, sipDigestSchema } from "../../../core/telephony/sip-digest";
import { errorSchema } from "../../schemas/common";

/** The telephony stack's side door (telephony/kamailio.cfg, decision 024): no session, the shared secret instead. */
const telephony: FastifyPluginAsyncZod = async (api) => {
  api.get(
    "/telephony/sip-digest",
    {
      config: { public: true },
      schema: {
        summary: "Для Kamailio: HA1 дайджеста SIP логина менеджера (заголовок X-Sip-Auth-Secret)",
        querystring: sipDigestSchema,
        response: { 200: z.string(), 400: errorSchema, 403: errorSchema, 404: errorSchema },
      },
    },
    async (request, reply) => {
      const header = request.headers["x-sip-auth-secret"];
      const ha1 = await sipDigest(
        api.deps.db,
        { expected: api.deps.config.sipAuthSecret, given: typeof header === "string" ? header : undefined },
        request.query,
      );
      reply.type("text/plain; charset=utf-8");
      return ha1;
    },
  );
};
export default telephony;
