import multipart from "@fastify/multipart";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { z } from "zod";
import { requireAdmin } from "../../../core/actor";
import { SHEET_LIMITS } from "../../../core/spreadsheets";
import { removeUpload } from "../../../core/bases/uploads";
import { addDoNotCall, addOneSchema, importDoNotCall, listDoNotCall, pasteDoNotCall, pasteSchema, removeDoNotCall } from "../../../core/dnc/dnc";
import { actorOf } from "../../plugin";
import { coreParsesBody, errorResponses, okSchema } from "../../schemas/common";
import { readUpload, uploadErrors } from "./database";

const itemSchema = z.object({
  id: z.number().int(),
  phone: z.string().describe("Как номер был записан"),
  phoneKey: z.string().describe("Нормализованный номер (цифры E.164 без плюса), как при дедупликации импорта"),
  addedBy: z.string().describe("Логин того, кто добавил (админ или менеджер, нажавший статус «Не звонить»)"),
  addedAt: z.string(),
});

const reportSchema = z.object({
  added: z.number().int().describe("Добавлено новых номеров"),
  already: z.number().int().describe("Уже были в списке (или повторялись)"),
  invalid: z.number().int().describe("Строки, не похожие на номер телефона"),
  invalidSamples: z.array(z.string()).describe("Первые 20 таких строк"),
});

// Bodies are validated in core (one schema, Russian messages); the API only says "an object".

const doNotCall: FastifyPluginAsyncZod = async (api) => {
  const { db, config } = api.deps;
  const region = { phoneRegion: config.phoneRegion };
  await api.register(multipart, {
    throwFileSizeLimit: false,
    limits: { fileSize: SHEET_LIMITS.maxFileBytes + 1, files: 1, fields: 4, fieldSize: 1024, parts: 5 },
  });

  api.get(
    "/do-not-call",
    {
      schema: {
        summary: "Список «Не звонить»: страница номеров, новые первыми (админ)",
        description: "`q`: номер в любой привычной записи или часть его цифр; `page`: страница по 50 номеров.",
        querystring: z.object({ q: z.string().optional(), page: z.string().optional() }),
        response: {
          200: z.object({
            items: z.array(itemSchema),
            total: z.number().int(),
            page: z.number().int(),
            pages: z.number().int(),
            q: z.string(),
          }),
          ...errorResponses,
        },
      },
    },
    async (request) => listDoNotCall(db, actorOf(request), request.query, region),
  );

  api.post(
    "/do-not-call",
    {
      ...coreParsesBody,
      schema: {
        summary: "Добавить номер в список «Не звонить» (админ)",
        description:
          "`{ phone }`. Номер нормализуется как при импорте (PHONE_REGION) и должен быть действительным номером (400 phone_invalid); 409, если он уже в списке.",
        body: addOneSchema,
        response: { 200: itemSchema, ...errorResponses },
      },
    },
    async (request) => addDoNotCall(db, actorOf(request), request.body, region),
  );

  api.post(
    "/do-not-call/paste",
    {
      ...coreParsesBody,
      schema: {
        summary: "Добавить много номеров: по одному в строке (админ)",
        description: "`{ text }`: номера по одному в строке, до 200 000. Отвечает, сколько добавлено, уже было и не похоже на номер.",
        body: pasteSchema,
        response: { 200: reportSchema, ...errorResponses },
      },
    },
    async (request) => pasteDoNotCall(db, actorOf(request), request.body, region),
  );

  api.post(
    "/do-not-call/import",
    {
      schema: {
        summary: "Импорт номеров из файла в список «Не звонить» (админ)",
        description:
          "multipart/form-data с полем `file`: .xlsx или .xls (номером считается каждая ячейка, похожая на телефон; " +
          "первая строка без номеров — заголовок) или текстовый файл UTF-8 с номером в каждой строке.",
        consumes: ["multipart/form-data"],
        response: { 200: reportSchema, ...uploadErrors },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      // A manager is refused before his upload is read and written to disk.
      requireAdmin(actor);
      const { file } = await readUpload(request);
      try {
        return await importDoNotCall(db, actor, { file }, region);
      } finally {
        removeUpload(file?.path);
      }
    },
  );

  api.delete(
    "/do-not-call/:id",
    {
      schema: {
        summary: "Убрать номер из списка «Не звонить» (админ)",
        params: z.object({ id: z.string().describe("id записи списка") }),
        response: { 200: okSchema, ...errorResponses },
      },
    },
    async (request) => removeDoNotCall(db, actorOf(request), request.params.id),
  );
};
export default doNotCall;
