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
 * body): Fastify's own check of it is kept aside instead of answering, so core decides in its order, the role
 * before the input (a manager gets 403 for an admin route whatever he sent), with the same Russian messages.
 */
export const coreParsesBody = { attachValidation: true } as const;
