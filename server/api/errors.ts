import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { hasZodFastifySchemaValidationErrors } from "fastify-type-provider-zod";
import { isAppError } from "../core/errors";
import { isDatabaseUnavailable } from "../core/db-errors";
import { checkRequestPath, isApiPath } from "../http/paths";

/** Russian messages for Fastify's own 4xx errors (bad JSON, wrong content type, too large). */
const FASTIFY_MESSAGES: Record<string, string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "Неподдерживаемый тип содержимого запроса",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "Неверная длина содержимого запроса",
  FST_ERR_CTP_EMPTY_JSON_BODY: "Пустое тело запроса: ожидается JSON",
  FST_ERR_CTP_INVALID_JSON_BODY: "Некорректный JSON в теле запроса",
  FST_ERR_CTP_BODY_TOO_LARGE: "Слишком большой запрос",
  FST_ERR_VALIDATION: "Неверные данные запроса",
  NUL_IN_BODY: "Недопустимый символ (NUL) в данных",
};

/** busboy (under @fastify/multipart) throws plain errors, without a status, for a body that is not valid multipart. */
function isBrokenMultipart(error: Error): boolean {
  return /^(Unexpected end of (form|file|multipart data)|Part terminated early|Malformed part header|Multipart: Boundary not found|Malformed urlencoded form)/.test(
    error.message ?? "",
  );
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (a header or URL over 16 KB, a malformed request
 * line): the same `{ error, message }` in Russian as every other answer, instead of Fastify's English default.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: import("node:stream").Duplex) {
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, label, body] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large", { error: "header_too_large", message: "Слишком длинный адрес или заголовки запроса" }]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", { error: "request_timeout", message: "Запрос не пришёл целиком вовремя" }]
        : [400, "Bad Request", { error: "bad_request", message: "Некорректный HTTP-запрос" }];
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${label}\r\nContent-Length: ${Buffer.byteLength(text)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/** 414 for a path over the limits of checkRequestPath: JSON on /api/v1, a short text elsewhere. */
export function pathTooLong(request: FastifyRequest, reply: FastifyReply) {
  const message = "Слишком длинный адрес запроса";
  return isApiPath(request.raw.url ?? "")
    ? reply
        .code(414)
        .type("application/json; charset=utf-8")
        .send(JSON.stringify({ error: "url_too_long", message }))
    : reply.code(414).type("text/plain; charset=utf-8").send(message);
}

/**
 * Fastify's router errors (a URL that is not valid UTF-8 after decoding, a path parameter over 100 characters).
 * They come before the onRequest hooks: a path over the length limit is 414 here too, whatever else is wrong with it.
 */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (checkRequestPath(request.raw.url ?? "/")?.status === 414) return pathTooLong(request, reply);
  const tooLong = error.code === "FST_ERR_MAX_PARAM_LENGTH";
  reply
    .code(tooLong ? 414 : 400)
    .type("application/json; charset=utf-8")
    .send(
      JSON.stringify(
        tooLong
          ? { error: "url_too_long", message: "Слишком длинный параметр в адресе запроса" }
          : { error: "bad_url", message: "Некорректный адрес запроса" },
      ),
    );
}

/** One error handler for /api/v1: `{ error, message }` always, and no detail of a 5xx ever leaves the server. */
export function apiErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  // An error answer is always `{ error, message }`: never run it through a route's response schema.
  reply.type("application/json; charset=utf-8").serializer((payload: unknown) => JSON.stringify(payload));
  if (isAppError(error)) {
    return reply.code(error.status).send({ error: error.code, message: error.message });
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    const first = error.validation[0];
    return reply.code(400).send({ error: "validation", message: first?.message || "Неверные данные запроса" });
  }
  if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) {
    return reply.code(error.statusCode).send({
      error: (error.code ?? "bad_request").toLowerCase(),
      message: FASTIFY_MESSAGES[error.code] ?? "Неверный запрос",
    });
  }
  if (isBrokenMultipart(error)) {
    return reply.code(400).send({ error: "bad_multipart", message: "Некорректные данные формы: файл не дошёл целиком" });
  }
  if (isDatabaseUnavailable(error)) {
    request.log.warn({ err: error }, "database unavailable");
    request.server.deps?.metrics.databaseUnavailable();
    return reply
      .code(503)
      .header("Retry-After", "5")
      .send({ error: "database_unavailable", message: "База данных временно недоступна. Повторите через несколько секунд." });
  }
  request.log.error({ err: error }, "unhandled error");
  return reply.code(500).send({ error: "internal", message: "Внутренняя ошибка сервера. Попробуйте ещё раз." });
}
