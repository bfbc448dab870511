import { Form, useNavigation } from "@remix-run/react";
import { ServerMessage, useAnswerKey } from "../ui/Toasts";
import { formProps, resultOf, unshownError, useSchemaForm, TextField } from "../ui/forms";
import type { adjustSchema, payoutSchema } from "../../../common/schemas/money";

interface AmountFormProps {
  /** Core's schema of the post (common/schemas/money.ts): checked in the browser before anything is sent. */
  schema: typeof payoutSchema | typeof adjustSchema;
  /** The form's name in the action's answers, and its id. */
  name: string;
  id: string;
  actionData: unknown;
  /** What the amount field starts with (the payout: the whole balance). */
  amount?: number;
  /** The post's fixed fields: intent, the worker, the table's query to come back to. */
  hidden: Record<string, string | number>;
  label: string;
  submit: string;
}

/**
 * The amount form of a /payments dialog (payout, add, subtract), decision 063: the amount's error under it (SPEC §5's
 * «Введите число в поле», «Сумма выплаты не может быть 0», core's «больше баланса»), any other above the form.
 */
export function AmountForm({ schema, name, id, actionData, amount, hidden, label, submit }: AmountFormProps) {
  const lastResult = resultOf(actionData, name);
  const answerKey = useAnswerKey(actionData);
  const busy = useNavigation().state === "submitting";
  const [form, fields] = useSchemaForm(schema, { id, lastResult, defaultValue: { amount } });
  const unshown = unshownError(lastResult, ["amount"]);
  return (
    <>
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      <Form method="post" {...formProps(form)} className="flex flex-wrap items-start gap-2" preventScrollReset>
        {Object.entries(hidden).map(([field, value]) => (
          <input key={field} type="hidden" name={field} value={value} />
        ))}
        <TextField field={fields.amount} label={label} boxClassName="text-sm" className="input w-40" inputMode="decimal" autoFocus />
        <button type="submit" className="btn-primary mt-6" disabled={busy}>
          {submit}
        </button>
      </Form>
    </>
  );
}
