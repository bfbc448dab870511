import type { Submission } from "@conform-to/react";
import { data } from "@remix-run/node";
import * as z from "zod";
import { badRequest, isAppError } from "#server/core/errors";
import { parseWithZod } from "@conform-to/zod/v4";
import { checkForm } from "./lib/form-check";

type ReplyOptions = Parameters<Submission<unknown>["reply"]>[0];

/**
 * The posted form of a page action. A body that does not parse as the form its Content-Type names (a broken
 * multipart post; other types never get here, server/web.ts answers them 415), or whose Conform fields do not parse,
 * is the client's fault: a 400 with a Russian text, instead of an error that Remix answers 500 and logs.
 */
export async function readFormBody(request: Request): Promise<FormData> {
  let form: FormData;
  try {
    form = await request.formData();
  } catch (error) {
    if (error instanceof TypeError) throw new Response(BAD_FORM, { status: 400 });
    throw error;
  }
  // Conform's own fields (a list's insert/remove button, its kept state) are JSON it parses itself and throws on
  // when they are not: a hand-made post with a broken one is refused here, before any action reads the form.
  if (form.has("__intent__") || form.has("__state__")) {
    try {
      parseWithZod(form, { schema: z.unknown() });
    } catch {
      throw new Response(BAD_FORM, { status: 400 });
    }
  }
  return form;
}
const BAD_FORM = "Некорректные данные формы";

/**
 * The answer to a conform form (decision 063) that is not a redirect: the submission's reply (its field errors and
 * what was typed) under the form's name, so a page with several forms gives it to the right one. `form` is the name
 * the page passes to `resultOf`.
 */
export function formReply(form: string, submission: Submission<unknown>, options?: ReplyOptions, status = 400) {
  return data({ form, result: submission.reply(options) }, { status });
}

/**
 * The core refused a form the schema let through (a number already listed, a row gone): its Russian message next to
 * the field `fieldOf[code]` names, else as the form's error, with the core's status. Anything else is a real failure
 * and goes on to the error boundary.
 */
export function formRefused(form: string, submission: Submission<unknown>, error: unknown, fieldOf: Record<string, string> = {}) {
  if (!isAppError(error)) throw error;
  const field = Object.hasOwn(fieldOf, error.code) ? fieldOf[error.code] : undefined;
  const errors = field ? { fieldErrors: { [field]: [error.message] } } : { formErrors: [error.message] };
  return formReply(form, submission, errors, error.status);
}

/**
 * A form with fields to fill, from its post to its answer (decision 063): the schema's refusal goes back under its
 * fields (`formReply`); else `run` does the work with the checked value and its answer is the action's (a redirect
 * with a toast, a report); core's refusal stands next to the field its code names (`formRefused`). `run` gets the
 * fields as sent too: a schema that transforms (dollars to cents) is not its own input again, so core parses those.
 * `name` may be read from the fields as sent (a row's form is named by its id). A post of one of conform's intents
 * (a row added or removed by a button without JavaScript) has no status: the changed form goes back, nothing done.
 */
export async function submitForm<S extends z.ZodType, T>(
  form: FormData,
  { name, schema, fieldOf = {} }: { name: string | ((fields: Record<string, unknown>) => string); schema: S; fieldOf?: Record<string, string> },
  run: (value: z.output<S>, fields: Record<string, unknown>) => Promise<T>,
) {
  const submission = parseWithZod(form, { schema });
  const formName = typeof name === "string" ? name : name(submission.payload);
  if (!submission.status) return formReply(formName, submission, undefined, 200);
  if (submission.status !== "success") return formReply(formName, submission);
  try {
    return await run(submission.value as z.output<S>, submission.payload);
  } catch (error) {
    return formRefused(formName, submission, error, fieldOf);
  }
}

/**
 * A post whose intent the page does not know (a hand-made request, or a page older than the code): every page
 * answers it the same way, a 400 with this message through `actionError`, shown where the page shows its errors.
 */
export const unknownIntent = () => badRequest("Неизвестное действие", "unknown_intent");

/** Which of a page's forms was sent: the `intent` of its submit button (every admin form has one). */
export function formIntent(form: FormData): string {
  const intent = form.get("intent");
  return typeof intent === "string" ? intent : "";
}

/**
 * The fields of a form nobody types in (a delete's or a switch's hidden id, the buttons of a row), read through
 * their schema: the value, or a 400 AppError with the schema's Russian message (`actionError` shows it) and `code`
 * (`keepEmpty`: see `checkForm`). Forms with fields to fill answer field by field instead (`formReply`).
 */
export function readFields<S extends z.ZodType>(
  form: FormData,
  schema: S,
  { code = "validation", keepEmpty = false }: { code?: string; keepEmpty?: boolean } = {},
): z.output<S> {
  const checked = checkForm(form, schema, { keepEmpty });
  if (checked.ok) return checked.value;
  throw badRequest(checked.message, code);
}

/** `_js=1`: the page posted with JavaScript (a fetcher that wants data back); anything else is a plain form post. */
const jsFlag = z.object({ _js: z.literal("1").optional().catch(undefined) });

/** Whether a page posted with JavaScript (its hidden `_js=1`): answer data, not a redirect. */
export function sentWithJs(form: FormData): boolean {
  return readFields(form, jsFlag)._js === "1";
}
