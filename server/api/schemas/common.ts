import type { FastifySchemaCompiler } from "fastify";
import { validatorCompiler } from "fastify-type-provider-zod";
import { z } from "zod";

/** `{ error, message }`: every error answer of the API. */
export const errorSchema = z.object({ error: z.string(), message: z.string() }).describe("Ошибка");

/** Standard error answers for an authenticated route. */
export const errorResponses = {
  400: errorSchema,
  401: errorSchema,
  403: errorSchema,
  404: errorSchema,
  409: errorSchema,
};

export const sessionUserSchema = z.object({
  id: z.number().int(),
  login: z.string(),
  displayName: z.string(),
  isAdmin: z.boolean(),
  isOnline: z.boolean(),
  gettingFilter: z.number().int(),
  sipLogin: z.string(),
  sipPassword: z.string(),
  balance: z.number(),
});

export const managedUserSchema = sessionUserSchema.extend({
  password: z.string().describe("Первые 5 символов пароля"),
  telegram: z.string(),
  accessKey: z.string(),
  lastSeen: z.string().nullable(),
});

export const okSchema = z.object({ success: z.boolean(), message: z.string() });

/**
 * For a route whose body core parses itself with the schema the route declares (so OpenAPI documents the real
 * body): Fastify does not check the body, so core decides in its order, the role before the input (a manager gets
 * 403 for an admin route whatever he sent), with the same Russian messages. Core gets the body as sent, not as the
 * schema would turn it (a transformed value, such as a parsed time, would not parse a second time); the route's
 * params and query are checked as on any route.
 */
// Typed on `unknown`: a route's own compiler is typed on that route's whole schema object.
const bodyAsSent: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === "body" ? () => true : validatorCompiler(route as Parameters<typeof validatorCompiler>[0]);
export const coreParsesBody = { validatorCompiler: bodyAsSent };
