import fs from "node:fs";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { sharedRecordingAnswer } from "../../../http/recording-answer";
import { errorResponses, errorSchema } from "../../schemas/common";

const recordings: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/recordings/:id/shared",
    {
      config: { public: true },
      schema: {
        summary: "Запись разговора по подписанной ссылке из события recording.ready (без токена, 48 часов)",
        description: "Ogg Opus; заголовок Range: часть файла (206). Неверная подпись: 403; срок ссылки истёк: 410.",
        params: z.object({ id: z.string() }),
        querystring: z.object({ expires: z.string(), signature: z.string() }),
        response: { 200: z.any(), 206: z.any(), 416: z.null(), ...errorResponses, 410: errorSchema },
      },
    },
    async (request, reply) => {
      const answer = await sharedRecordingAnswer(db, api.deps.recordings.folder, { id: request.params.id, ...request.query }, request.headers.range);
      reply.code(answer.status).headers(answer.headers);
      if (answer.status === 416) return reply.send(null);
      return reply.send(fs.createReadStream(answer.file, { start: answer.start, end: answer.end }));
    },
  );
};

export default recordings;
