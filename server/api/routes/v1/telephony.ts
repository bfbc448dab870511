import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { sipDigest, sipDigestSchema } from "../../../core/telephony/sip-digest";
import { admitCall, admitCallSchema, callEventSchema, recordCallEvent } from "../../../core/telephony/proxy-calls";
import { kamailioAnswer, kamailioInboundAnswer } from "../../../core/telephony/kamailio-answer";
import { routeInbound, routeInboundSchema } from "../../../core/telephony/inbound";
import { checkTelephonySecret } from "../../../core/telephony/shared-secret";
import { CALL_ENDED, endSupervisionOfCall } from "../../../core/telephony/listening";
import { tellSupervisionEnded } from "../../../telephony/supervision";
import { clientAddress } from "../../../http/client-address";
import { errorSchema } from "../../schemas/common";

const secretOf = (headers: Record<string, string | string[] | undefined>) => {
  const header = headers["x-sip-auth-secret"];
  return typeof header === "string" ? header : undefined;
};

/**
 * The telephony stack's side door (telephony/kamailio.cfg, decisions 024 and 049): no session, the shared secret
 * instead. Kamailio's http_client posts forms and reads a plain-text answer: a `key=value;...` line that its
 * `{param.value,...}` transformation reads, and for a refusal the SIP reason phrase on the next line.
 */
const telephony: FastifyPluginAsyncZod = async (api) => {
  // Only in this plugin: Kamailio's form posts (curl's default body type).
  api.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const secrets = (headers: Record<string, string | string[] | undefined>) => ({
    expected: api.deps.config.sipAuthSecret,
    given: secretOf(headers),
  });
  // The secret before anything else: whoever lacks it learns nothing, not even what a valid question looks like;
  // wrong ones are counted per address, as logins are, so a guesser is stopped (429).
  api.addHook("preValidation", async (request) =>
    checkTelephonySecret(api.deps.db, secrets(request.headers), clientAddress(request.raw, api.deps.config.trustProxy)),
  );

  api.get(
    "/telephony/sip-digest",
    {
      config: { public: true },
      schema: {
        summary: "Для Kamailio: HA1 дайджеста SIP логина менеджера (заголовок X-Sip-Auth-Secret)",
        querystring: sipDigestSchema,
        response: { 200: z.string(), 400: errorSchema, 403: errorSchema, 404: errorSchema, 429: errorSchema },
      },
    },
    async (request, reply) => {
      const ha1 = await sipDigest(api.deps.db, secrets(request.headers), request.query);
      reply.type("text/plain; charset=utf-8");
      return ha1;
    },
  );

  api.post(
    "/telephony/calls",
    {
      config: { public: true },
      schema: {
        summary:
          "Для Kamailio: можно ли этому менеджеру звонить на этот номер сейчас (до INVITE к оператору связи). " +
          "200 «id=N;record=1|0» (звонок открыт в журнале; record=1: записывать разговор) или 403 «id=N;sip=403», а второй строкой причина для SIP: Do Not Call | On Break | Not Signed In | Outside Calling Hours | No Consent | Contact Limit (звонок записан как отказ)",
        body: admitCallSchema,
        response: { 200: z.string(), 400: errorSchema, 403: z.union([z.string(), errorSchema]), 404: errorSchema, 429: errorSchema },
      },
    },
    async (request, reply) => {
      const admission = await admitCall(api.deps.db, secrets(request.headers), request.body, api.deps.config.phoneRegion, () =>
        api.deps.recordings.hasRoom(),
      );
      void api.deps.hub.presenceChanged().catch(() => {});
      const answer = kamailioAnswer(admission);
      return reply.code(answer.status).type("text/plain; charset=utf-8").send(answer.text);
    },
  );

  api.post(
    "/telephony/inbound",
    {
      config: { public: true },
      schema: {
        summary:
          "Для Kamailio: кому звонит клиент, позвонивший на номер линии (issue 42). 200 «id=N;ring=SIP-логин;record=1|0;ring_s=секунды» " +
          "(звонок открыт в журнале этого менеджера) или 486/480 «id=N;sip=486|480», а второй строкой причина: Managers Busy | No Managers | " +
          "Nobody Answered (пропущенный звонок, перезвон создан). tried: SIP-логины, которым этот звонок уже звонил, через запятую",
        body: routeInboundSchema,
        response: { 200: z.string(), 400: errorSchema, 403: errorSchema, 404: errorSchema, 429: errorSchema, 480: z.string(), 486: z.string() },
      },
    },
    async (request, reply) => {
      const route = await routeInbound(api.deps.db, secrets(request.headers), request.body, api.deps.config.phoneRegion, () =>
        api.deps.recordings.hasRoom(),
      );
      void api.deps.hub.presenceChanged().catch(() => {});
      const answer = kamailioInboundAnswer(route);
      return reply.code(answer.status).type("text/plain; charset=utf-8").send(answer.text);
    },
  );

  api.post(
    "/telephony/call-events",
    {
      config: { public: true },
      schema: {
        summary: "Для Kamailio: звонок, который он пропустил, отвечен (answer), завершён (end) или не состоялся (fail, code)",
        body: callEventSchema,
        response: { 204: z.null(), 400: errorSchema, 403: errorSchema, 404: errorSchema, 429: errorSchema },
      },
    },
    async (request, reply) => {
      await recordCallEvent(api.deps.db, secrets(request.headers), request.body, api.deps.config.phoneRegion);
      // The call is over: its listening and whisper end, and rtpengine lets it go at once (issue 39). Told before
      // /users hears of the new state, so the admin's page reads why its listening stopped before its row moves on.
      const { id, event } = callEventSchema.parse(request.body);
      if (event !== "answer") {
        const ended = await endSupervisionOfCall(api.deps.db, api.deps.mediaRelay, id, event);
        await tellSupervisionEnded(api.deps.hub, ended, CALL_ENDED);
        // rtpengine has written the call's recording by now: converted at once rather than at the queue's next look.
        void api.deps.recordings.drain();
      }
      void api.deps.hub.presenceChanged().catch(() => {});
      return reply.code(204).send(null);
    },
  );
};
export default telephony;
