import type { z } from "zod";
import { badRequest } from "./errors";

// The shapes themselves live in common/ (the browser checks a page form with the same ones); the Russian zod
// locale is set there too.
export { bigIdSchema, contactIdSchema, digitsOrNumber, idSchema, requiredText } from "../../common/validation";

/**
 * Parses core input with a zod schema; the first issue's message becomes a 400, with the error code a custom issue
 * names in `params.code` (a payout of 0 is "payout_zero"), else "validation".
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0];
    const code = issue?.code === "custom" && typeof issue.params?.code === "string" ? issue.params.code : "validation";
    throw badRequest(firstMessage(result.error), code);
  }
  return result.data;
}

/** What a body that is not a JSON object gets from any core input that is an object (an array, a number, text). */
export const BODY_NOT_OBJECT = "Тело запроса должно быть JSON-объектом";

export function firstMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue?.code === "invalid_type" && issue.expected === "object" && issue.path.length === 0) return BODY_NOT_OBJECT;
  return issue?.message ?? "Неверные данные";
}
