// Run by the browser (a page checks its form before it is sent) and the server (the action reads the same form).
import { parseWithZod } from "@conform-to/zod/v4";
import type { z } from "zod";

export type FormCheck<S extends z.ZodType> =
  { ok: true; value: z.output<S>; payload: Record<string, unknown> } | { ok: false; message: string; payload: Record<string, unknown> };

/**
 * A form read through its schema (decision 063) as conform reads it (an emptied field is absent): the value, or the
 * first Russian message in the schema's field order, for a form that answers one message rather than one per field
 * (a toast, a banner). `payload` is the fields as sent. `keepEmpty`: an emptied field stays "" (a field the
 * form sent empty clears a value; one it did not send changes nothing).
 */
export function checkForm<S extends z.ZodType>(form: FormData, schema: S, { keepEmpty = false } = {}): FormCheck<S> {
  const submission = parseWithZod(form, { schema, disableAutoCoercion: keepEmpty });
  if (submission.status === "success") return { ok: true, value: submission.value as z.output<S>, payload: submission.payload };
  return { ok: false, message: firstError(submission) ?? "Неверные данные формы", payload: submission.payload };
}

/** A refused submission's first message, in the schema's field order, or null (it passed). */
export function firstError(submission: { status?: string; error?: Record<string, string[] | null> | null }): string | null {
  if (submission.status === "success") return null;
  return Object.values(submission.error ?? {}).flatMap((messages) => messages ?? [])[0] ?? null;
}
