import type { z } from "zod";
import { badRequest } from "./errors";

// The shapes themselves live in common/ (the browser checks a page form with the same ones); the Russian zod
// locale is set there too.
export { bigIdSchema, contactIdSchema, idSchema, requiredText } from "../../common/validation";

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

export function firstMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue?.message ?? "Неверные данные";
}
