import { Readable } from "node:stream";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { CALL_DIRECTIONS, RECORDING_STATES } from "../../../../db/schema/calls";
import { ACCESS_KINDS, accessLogCsv, accessLogCsvName, listAccessLog, readAccessFilters } from "../../../core/audit/access-log";
import { requireAdmin } from "../../../core/actor";
import { actorOf } from "../../plugin";
import { errorResponses } from "../../schemas/common";

const person = z.object({ id: z.number().int(), name: z.string() }).nullable();
const entrySchema = z
  .object({
    kind: z
      .enum(ACCESS_KINDS)
      .describe(
        "listen: слушал звонок; whisper: подсказывал менеджеру; play: слушал запись; download: скачал запись; link: скачано по ссылке из события recording.ready (без пользователя)",
      ),
    id: z.number().int().describe("id сеанса прослушивания или прослушивания записи (вместе с kind)"),
    at: z.string().describe("начало (ISO 8601, UTC)"),
    endedAt: z.string().nullable().describe("конец сеанса; null, пока идёт, и у записей"),
    user: person.describe("кто (null: пользователь удалён)"),
    manager: person.describe("чей звонок"),
    topic: z.object({ id: z.number().int(), name: z.string() }).nullable(),
    call: z
      .object({
        id: z.number().int(),
        number: z.string(),
        direction: z.enum(CALL_DIRECTIONS).describe("in — входящий (звонил клиент), out — исходящий"),
        startedAt: z.string(),
        recording: z.enum(RECORDING_STATES).nullable(),
        recordingMs: z.number().int().nullable(),
      })
      .nullable(),
    heardMs: z
      .number()
      .int()
      .nullable()
      .describe(
        "сколько звук действительно играл, мс: у сеанса — на странице слушающего, у записи — сколько проиграл плеер, у скачивания — вся запись; null — страница не сообщила",
      ),
    spanMs: z.number().int().nullable().describe("сколько могло быть: длительность сеанса (до сейчас, пока идёт) или длина записи"),
    firstHeardAt: z.string().nullable(),
    lastHeardAt: z.string().nullable(),
  })
  .describe("Запись журнала доступа");

const query = z.object({
  userId: z.string().optional().describe("кто: id пользователя (админ или менеджер, слушавший свою запись)"),
  managerId: z.string().optional().describe("чей звонок: id менеджера"),
  filterId: z.string().optional().describe("тематика звонка"),
  from: z.string().optional().describe("с этого дня (ГГГГ-ММ-ДД, по Киеву), включительно"),
  to: z.string().optional().describe("по этот день (ГГГГ-ММ-ДД, по Киеву), включительно"),
  kind: z.string().optional().describe("listen, whisper, play, download или link (скачано по ссылке из вебхука)"),
  limit: z.string().optional().describe("до 500, по умолчанию 100"),
  offset: z.string().optional(),
});

/**
 * The access log (issue 39): who listened to, whispered into, played or downloaded which call, and for how long
 * the audio played. Recordings are personal data (152-FZ): this is the record of who touched them. Admins only.
 */
const accessLog: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/access-log",
    {
      schema: {
        summary:
          "Журнал доступа к звонкам и записям, новые первыми (админ): кто слушал, подсказывал, слушал или скачивал запись и сколько звучал звук",
        querystring: query,
        response: { 200: z.object({ total: z.number().int(), entries: z.array(entrySchema) }), ...errorResponses },
      },
    },
    async (request) => {
      const { total, entries } = await listAccessLog(db, actorOf(request), request.query);
      return { total, entries };
    },
  );

  api.get(
    "/access-log.csv",
    {
      schema: {
        summary: "Журнал доступа целиком (с теми же фильтрами) как CSV для Excel: UTF-8 с BOM, «;» между полями",
        querystring: query.omit({ limit: true, offset: true }),
        produces: ["text/csv"],
        response: { 200: z.any().describe("CSV-файл"), ...errorResponses },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      requireAdmin(actor);
      // The filters are checked before the first byte, so a wrong one is a 400 rather than a broken file.
      const filters = await readAccessFilters(db, request.query);
      const lines = accessLogCsv(db, actor, request.query);
      reply.header("Content-Type", "text/csv; charset=utf-8");
      reply.header("Content-Disposition", `attachment; filename*=UTF-8''${encodeURIComponent(accessLogCsvName(filters))}`);
      reply.header("Cache-Control", "private, no-store");
      return reply.send(Readable.from(lines) as never);
    },
  );
};
export default accessLog;
