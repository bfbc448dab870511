import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import {
  EXPORT_CONTENT_TYPES,
  EXPORT_FORMATS,
  createExport,
  createExportSchema,
  deleteExport,
  deleteExports,
  exportFile,
  listExports,
  restartExport,
} from "../../../core/exports/exports";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses } from "../../schemas/common";

const exportSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  createdAt: z.string(),
  isExported: z.boolean(),
  progress: z.number().int().describe("0–100"),
  rowsTotal: z.number().int().nullable().describe("Строк в файле (null — экспорт создан до подсчёта строк)"),
  rowsWritten: z.number().int().describe("Строк уже записано"),
  startTime: z.string().nullable(),
  endTime: z.string().nullable(),
  error: z.string().nullable(),
  databaseIds: z.array(z.number().int()),
  statusIds: z.array(z.number().int()).describe("0 — контакты без статуса"),
  format: z.enum(EXPORT_FORMATS).describe("xlsx, или csv: UTF-8 с BOM, разделитель «;»"),
});

const deletedSchema = z.object({ success: z.boolean(), message: z.string(), deleted: z.number().int() });
const idParams = z.object({ id: z.string() });

const exportsRoutes: FastifyPluginAsyncZod = async (api) => {
  const { db } = api.deps;

  api.get(
    "/database/exports",
    { schema: { summary: "Экспорты, новые сверху (админ)", response: { 200: z.array(exportSchema), ...errorResponses } } },
    async (request) => listExports(db, actorOf(request)),
  );

  api.post(
    "/database/exports",
    {
      ...coreParsesBody,
      schema: {
        summary: "Создать экспорт: фоновая задача пишет файл, прогресс 0–100 (админ)",
        description:
          "Контакты выбранных баз с текущим статусом из statusIds (0 — ещё без статуса). `format`: `xlsx` (по умолчанию) " +
          "или `csv` (UTF-8 с BOM, чтобы Excel открыл кириллицу; разделитель «;»).",
        body: createExportSchema,
        response: { 201: exportSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const created = await createExport(db, actorOf(request), request.body);
      return reply.code(201).send(created);
    },
  );

  api.delete(
    "/database/exports",
    {
      schema: {
        summary: "Удалить выбранные (`ids=1,2`) или все (`all=true`) экспорты (админ)",
        querystring: z.object({ ids: z.string().optional(), all: z.enum(["true"]).optional() }),
        response: { 200: deletedSchema, ...errorResponses },
      },
    },
    async (request) => {
      const { ids, all } = request.query;
      return deleteExports(db, actorOf(request), all ? "all" : (ids ?? "").split(",").filter(Boolean));
    },
  );

  api.get(
    "/database/exports/:id",
    {
      schema: {
        summary: "Скачать готовый файл export-{date}.xlsx или .csv (админ)",
        params: idParams,
        produces: Object.values(EXPORT_CONTENT_TYPES),
        response: { 200: z.any().describe("Файл выгрузки"), ...errorResponses },
      },
    },
    async (request, reply) => {
      const { filename, contentType, data } = await exportFile(db, actorOf(request), request.params.id);
      return reply
        .header("Content-Type", contentType)
        .header("Content-Disposition", `attachment; filename="${filename}"`)
        .send(data as never);
    },
  );

  api.delete(
    "/database/exports/:id",
    {
      schema: { summary: "Удалить экспорт (админ)", params: idParams, response: { 200: deletedSchema, ...errorResponses } },
    },
    async (request) => deleteExport(db, actorOf(request), request.params.id),
  );

  api.post(
    "/database/exports/:id/restart",
    {
      schema: {
        summary: "Перезапустить экспорт с начала (после сбоя или за свежими данными) (админ)",
        params: idParams,
        response: { 200: exportSchema, ...errorResponses },
      },
    },
    async (request) => restartExport(db, actorOf(request), request.params.id),
  );
};
export default exportsRoutes;
