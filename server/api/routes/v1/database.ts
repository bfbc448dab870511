import multipart from "@fastify/multipart";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { countsAllTime, deleteBase, listBases } from "../../../core/bases/bases";
import { importBase, previewBase } from "../../../core/bases/import";
import { othersBusy } from "../../../deps";
import { CONSENT_FIELD_HELP, MAPPING_FIELDS, ZONE_FIELD_HELP } from "../../../core/bases/mapping";
import { searchContacts } from "../../../core/bases/search";
import { SHEET_LIMITS } from "../../../core/spreadsheets";
import { refuseOversizedBody, removeUpload, saveUpload } from "../../../core/bases/uploads";
import { requireAdmin } from "../../../core/actor";
import { badRequest } from "../../../core/errors";
import { actorOf } from "../../plugin";
import { errorResponses, okSchema } from "../../schemas/common";

const baseSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  contactsCount: z.number().int(),
  freeCount: z.number().int().describe("Ещё не обработанные контакты (без статуса)"),
  statusCounts: z.record(z.string(), z.number().int()).describe("Контакты по текущему статусу, по тексту кнопки статуса"),
});

const previewSchema = z.object({
  sheet: z.number().int().describe("Показанный лист (1 — первый по порядку вкладок); импорт с тем же `sheet` читает его же"),
  sheets: z.array(z.string()).describe("Названия всех листов файла по порядку вкладок"),
  notice: z.string().optional().describe("Есть, когда первый лист пустой и вместо него показан первый лист с данными"),
  formulas: z
    .string()
    .optional()
    .describe(
      "Есть, когда в показанных строках есть формулы без сохранённого в файле значения (Excel и LibreOffice вычисляют их при открытии): сколько и в каких ячейках. " +
        "Импорт с такими ячейками в импортируемых столбцах отклоняется (400, formulas_without_values)",
    ),
  hasHeader: z.boolean().describe("Первая строка похожа на заголовки: она не импортируется"),
  columns: z.array(
    z.object({
      index: z.number().int(),
      letter: z.string(),
      header: z.string(),
      suggested: z.enum(MAPPING_FIELDS),
    }),
  ),
  rows: z.array(z.array(z.string())),
});

const importResultSchema = z.object({
  success: z.boolean(),
  message: z.string(),
  id: z.number().int(),
  name: z.string(),
  imported: z.number().int(),
  skipped: z.number().int().describe("Строки без телефона и без ФИО"),
  duplicatesInfo: z.array(z.object({ baseName: z.string(), count: z.number().int() })),
  doNotCall: z.number().int().describe("Контакты, не импортированные: их номер в списке «Не звонить»"),
  unreadableZones: z
    .number()
    .int()
    .describe("Контакты, чья ячейка столбца timeZone заполнена, но не распознана: их часовой пояс взят по номеру телефона"),
  unreadableConsents: z
    .number()
    .int()
    .describe("Контакты, чья ячейка столбца consent заполнена, но не распознана (ни дата, ни да/нет): согласия нет"),
});

const searchHitSchema = z.object({
  databaseName: z.string(),
  data: z.object({
    id: z.number().int(),
    name: z.string(),
    phone: z.string(),
    city: z.string(),
    address: z.string(),
    age: z.string(),
    additionalInfo1: z.string(),
    additionalInfo2: z.string(),
    additionalInfo3: z.string(),
    additionalInfo4: z.string(),
    status: z.string(),
    doNotCall: z.boolean().describe("Номер клиента в списке «Не звонить»: он не выдаётся менеджерам"),
  }),
});

export const uploadErrors = { ...errorResponses, 413: errorResponses[400] };

/** Reads a multipart request: the one file goes to a temporary file (size-limited), the fields to strings. */
export async function readUpload(request: FastifyRequest) {
  if (!request.isMultipart()) throw badRequest("Отправьте файл как multipart/form-data (поле file)", "multipart_required");
  refuseOversizedBody(request.headers["content-length"]);
  const fields: Record<string, string> = {};
  let file: { path: string; name: string } | null = null;
  try {
    for await (const part of request.parts()) {
      if (part.type === "file") {
        if (file || part.fieldname !== "file") {
          part.file.resume();
          continue;
        }
        file = { path: (await saveUpload(part.file, part.filename ?? "")).path, name: part.filename ?? "" };
      } else {
        const value = String(part.value ?? "");
        // Postgres text cannot hold U+0000 (a base name with one would fail in the database).
        if (value.includes("\u0000")) throw badRequest("Недопустимый символ (NUL) в данных", "nul_in_request");
        fields[part.fieldname] = value;
      }
    }
  } catch (error) {
    removeUpload(file?.path);
    throw error;
  }
  return { file, fields };
}

const MAPPINGS_DOC = `\`mappings\`: JSON-массив, по одному элементу на столбец предпросмотра (в порядке \`columns\`), каждый из
${MAPPING_FIELDS.map((f) => `\`${f}\``).join(", ")} (\`skip\`: столбец не импортируется). ${ZONE_FIELD_HELP.replace("«Часовой пояс»", "`timeZone`")}. ${CONSENT_FIELD_HELP.replace("«Согласие на звонки»", "`consent`")}.`;

const SHEET_DOC =
  "Необязательно `sheet`: номер листа (1 — первый по порядку вкладок). Без него читается первый лист, а если он " +
  "пустой — первый лист с данными (предпросмотр тогда говорит об этом в `notice`). Лист без строк или номер больше " +
  "числа листов: 400.";

const database: FastifyPluginAsyncZod = async (api) => {
  const { db, config } = api.deps;
  // Only this plugin reads multipart bodies: uploads are limited here, not app-wide.
  await api.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: SHEET_LIMITS.maxFileBytes + 1, files: 1, fields: 10, fieldSize: 64 * 1024, parts: 12 },
  });

  api.get(
    "/database",
    {
      schema: {
        summary: "Базы: счётчики контактов, свободных и по статусам (админ)",
        response: { 200: z.array(baseSchema), ...errorResponses },
      },
    },
    async (request) => listBases(db, actorOf(request)),
  );

  api.delete(
    "/database/:id",
    {
      schema: {
        summary: "Удалить базу вместе с её контактами (админ)",
        params: z.object({ id: z.string() }),
        response: { 200: okSchema, ...errorResponses },
      },
    },
    async (request) => deleteBase(db, actorOf(request), request.params.id),
  );

  api.post(
    "/database/preview",
    {
      schema: {
        summary: "Предпросмотр файла для импорта (админ)",
        description:
          "multipart/form-data с полем `file` (.xlsx, .xls, .ods или .csv, до 50 МБ; .xls до 20 МБ). CSV: UTF-8 (с BOM или без) " +
          "или Windows-1251, разделитель `,` `;` или табуляция определяются сами; все значения — текст. Отвечает первыми строками " +
          "и предложенным типом каждого столбца. Ничего не записывает. Файл без столбца с телефонами (ни заголовка, ни значений, " +
          "похожих на номера): 400. " +
          SHEET_DOC,
        consumes: ["multipart/form-data"],
        response: { 200: previewSchema, ...uploadErrors },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      // A manager is refused before his upload is read and written to disk.
      requireAdmin(actor);
      const { file, fields } = await readUpload(request);
      try {
        return await previewBase(db, actor, { file, sheet: fields.sheet });
      } finally {
        removeUpload(file?.path);
      }
    },
  );

  api.post(
    "/database/import",
    {
      schema: {
        summary: "Импорт файла как новой базы (админ)",
        description:
          "multipart/form-data: `file` (.xlsx, .xls, .ods или .csv), `name` (название базы), `mappings`. " +
          MAPPINGS_DOC +
          " Необязательно `hasHeader` (true/false): пропустить первую строку; по умолчанию определяется как в предпросмотре. " +
          SHEET_DOC +
          " " +
          "Строки без телефона и без ФИО пропускаются; дубли удаляются по настройкам removeDuplicatesInBase и " +
          "removeDuplicatesAcrossBases, `duplicatesInfo` перечисляет удалённые дубли по базам. Номера из списка «Не звонить» " +
          "не импортируются, их число — в `doNotCall`. Всё или ничего: база со всеми контактами появляется " +
          "только в конце импорта, при ошибке не создаётся.",
        consumes: ["multipart/form-data"],
        response: { 200: importResultSchema, ...uploadErrors },
      },
    },
    async (request, reply) => {
      const actor = actorOf(request);
      // A manager is refused before his upload is read and written to disk.
      requireAdmin(actor);
      const { file, fields } = await readUpload(request);
      // The client gone before the answer (a closed connection): the import stops and creates nothing (decision 046).
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.on("close", onClose);
      try {
        return await api.deps.metrics.importJob(
          importBase(
            db,
            actor,
            { name: fields.name, mappings: fields.mappings, hasHeader: fields.hasHeader, sheet: fields.sheet, file },
            { phoneRegion: config.phoneRegion, signal: gone.signal, othersBusy: othersBusy(api.deps) },
          ),
        );
      } finally {
        reply.raw.off("close", onClose);
        removeUpload(file?.path);
      }
    },
  );

  api.get(
    "/database/search",
    {
      schema: {
        summary: "Поиск клиента по телефону или части имени (админ)",
        description: "`term`: телефон в любой привычной записи или часть ФИО (от 3 символов); `database`: id базы, 0 — все базы.",
        querystring: z.object({ term: z.string().optional(), database: z.string().optional() }),
        response: { 200: z.array(searchHitSchema), ...errorResponses },
      },
    },
    async (request) => searchContacts(db, actorOf(request), request.query, { phoneRegion: config.phoneRegion }),
  );

  api.get(
    "/status/countsAllTime/:databaseName",
    {
      schema: {
        summary: "Все нажатия статусов по базе за всё время (админ)",
        params: z.object({ databaseName: z.string() }),
        response: { 200: z.array(z.object({ status: z.string(), count: z.number().int() })), ...errorResponses },
      },
    },
    async (request) => countsAllTime(db, actorOf(request), request.params.databaseName),
  );
};
export default database;
