import { z } from "zod";
import { badRequest } from "./errors";

// zod's own messages (a wrong type, a too long value) in Russian too: they reach the user as `{ error, message }`.
z.config(z.locales.ru());

/** Parses core input with a zod schema; the first issue's message becomes a 400. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw badRequest(firstMessage(result.error), "validation");
  return result.data;
}

export function firstMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue?.message ?? "Неверные данные";
}

/** A positive integer id from a path or form ("12"), with a Russian message. */
export const idSchema = z.coerce
  .number({ error: "Неверный идентификатор" })
  .int({ error: "Неверный идентификатор" })
  .positive({ error: "Неверный идентификатор" })
  .max(2147483647, { error: "Неверный идентификатор" });

/** A bigint id (contacts, calls: up to 2^53 here), with its own Russian message. */
export const bigIdSchema = (message: string) =>
  z.coerce
    .number({ error: message })
    .int({ error: message })
    .positive({ error: message })
    .max(Number.MAX_SAFE_INTEGER, { error: message });
export const contactIdSchema = bigIdSchema("Неверный идентификатор клиента");

/** A required, trimmed text with its own message for missing and blank. */
export const requiredText = (message: string, max = 1000) =>
  z
    .string({ error: message })
    .trim()
    .min(1, { error: message })
    .max(max, { error: `Слишком длинное значение (не более ${max} символов)` });
