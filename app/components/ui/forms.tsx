import {
  getFormProps,
  getInputProps,
  getSelectProps,
  getTextareaProps,
  useForm,
  type FieldMetadata,
  type FormMetadata,
  type SubmissionResult,
} from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Link } from "@remix-run/react";
import type { InputHTMLAttributes, ReactNode } from "react";
import type { z } from "zod";
// zod's settings for the browser (Russian messages; no `new Function`, which the CSP refuses): every form that
// checks a schema here gets them, whichever schema file its page imports.
import "../../../common/validation";

/**
 * A page form checked by its one zod schema (decision 063, docs/conventions.md «Forms»): the same schema runs in the
 * browser (on submit, then on blur and input) and in the action. `lastResult` is the action's answer
 * (`submission.reply()`), so without JavaScript the server's field errors and what was typed come back in the HTML.
 * No `constraint`: the browser's own `required` bubbles would stop a form without JavaScript before the server could
 * answer in Russian.
 */
export function useSchemaForm<Schema extends z.ZodType<Record<string, unknown>, Record<string, unknown>>>(
  schema: Schema,
  options: {
    id: string;
    lastResult?: SubmissionResult<string[]> | null;
    defaultValue?: Partial<Record<keyof z.input<Schema>, unknown>>;
  },
) {
  return useForm<z.input<Schema>, z.output<Schema>>({
    id: options.id,
    lastResult: options.lastResult ?? undefined,
    // conform's DefaultValue type is recursive; a flat record of what the loader gave is what is passed here.
    defaultValue: options.defaultValue as never,
    shouldValidate: "onBlur",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema }),
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any field of any form
export type AnyField = FieldMetadata<any, any, any>;
type InputType = "text" | "tel" | "number" | "email" | "url" | "search" | "password" | "time";

/**
 * conform's props for a field, without its `key` (React warns when a key is spread into JSX; these forms never call
 * conform's reset, which is what the key is for).
 */
export function inputProps(field: AnyField, type: InputType = "text") {
  const { key: _key, ...props } = getInputProps(field, { type });
  return props;
}
export function textareaProps(field: AnyField) {
  const { key: _key, ...props } = getTextareaProps(field);
  return props;
}
export function selectProps(field: AnyField) {
  const { key: _key, ...props } = getSelectProps(field);
  return props;
}

/** A field's first error, right under it; the input names it in aria-describedby (conform sets that and aria-invalid). */
export function FieldError({
  field,
  className = "",
  testId,
}: {
  field: { errorId: string; errors?: string[] };
  className?: string;
  testId?: string;
}) {
  if (!field.errors?.length) return null;
  return (
    <p id={field.errorId} className={`mt-1 text-sm text-red-700 dark:text-red-400 ${className}`} data-field-error="" data-testid={testId}>
      {field.errors[0]}
    </p>
  );
}

/**
 * A labelled one-line field of a schema form: the label, the input, its error under it. `id` names the input where a
 * page or a test refers to it (conform's own id otherwise); the rest are the input's attributes (class, placeholder).
 */
export function TextField({
  field,
  label,
  type,
  id = field.id,
  boxClassName,
  errorTestId,
  className = "input",
  ...input
}: {
  field: AnyField;
  label: ReactNode;
  type?: InputType;
  boxClassName?: string;
  errorTestId?: string;
} & Omit<InputHTMLAttributes<HTMLInputElement>, "type" | "name" | "defaultValue" | "form">) {
  return (
    <div className={boxClassName}>
      <label className="label" htmlFor={id}>
        {label}
      </label>
      <input {...inputProps(field, type)} id={id} className={className} {...input} />
      <FieldError field={field} testId={errorTestId} />
    </div>
  );
}

/**
 * The action's answer for the form named `form` (`formReply` in app/forms.server.ts), or null: another form's
 * answer on a page with several, or no answer yet.
 */
export function resultOf(actionData: unknown, form: string): SubmissionResult<string[]> | null {
  if (!actionData || typeof actionData !== "object" || !("result" in actionData) || !("form" in actionData)) return null;
  return actionData.form === form ? (actionData.result as SubmissionResult<string[]>) : null;
}
/**
 * conform's props for the `<Form>` (its id, its check on submit), always with `noValidate`: without JavaScript too
 * the browser's own checks (a `type="number"`'s range, `required`) never stop a post the server answers in Russian.
 */
export function formProps<F extends Record<string, unknown>>(form: FormMetadata<F, string[]>) {
  return { ...getFormProps(form), noValidate: true };
}

/** Whether a checkbox's value was ticked in a field's initial value (one value or a list, as conform keeps it). */
export function isChosen(initialValue: unknown, value: string | number): boolean {
  const list = Array.isArray(initialValue) ? initialValue : initialValue === undefined ? [] : [initialValue];
  return list.map(String).includes(String(value));
}

/**
 * The first message of the action's answer that no field on screen shows: the form's own (core refused it), or one
 * about a hidden field (a stale page's id). Shown with `<ServerMessage>` above the form.
 */
export function unshownError(lastResult: SubmissionResult<string[]> | null | undefined, shown: readonly string[]): string | null {
  for (const [name, messages] of Object.entries(lastResult?.error ?? {})) {
    if (!shown.includes(name) && messages?.length) return messages[0];
  }
  return null;
}

/** The Russian message of an action's `actionError` answer (`{ error: { code, message } }`), or null. */
export function actionMessage(actionData: unknown): string | null {
  if (!actionData || typeof actionData !== "object" || !("error" in actionData)) return null;
  const { error } = actionData as { error: unknown };
  return error && typeof error === "object" && "message" in error && typeof error.message === "string" ? error.message : null;
}

/**
 * A form's last buttons: Отмена (back to the page, the form unsent) and Сохранить (a submit with the form's
 * `intent`; «Сохраняем...» while `busy`).
 */
export function CancelAndSave({ cancelHref, intent, busy = false }: { cancelHref: string; intent: string; busy?: boolean }) {
  return (
    <>
      <Link to={cancelHref} preventScrollReset className="btn-secondary">
        Отмена
      </Link>
      <button type="submit" name="intent" value={intent} className="btn-primary" disabled={busy}>
        {busy ? "Сохраняем..." : "Сохранить"}
      </button>
    </>
  );
}
