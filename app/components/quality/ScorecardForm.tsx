import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import * as z from "zod";
import { criteriaListOf, criterionSchema } from "../../../common/schemas/scoring";
import { CancelAndSave, FieldError, formProps, inputProps, unshownError, useSchemaForm } from "../ui/forms";
import { CloseIcon } from "../ui/Icons";
import { ServerMessage, useAnswerKey } from "../ui/Toasts";

/**
 * The scorecard editor's schema (decision 063): core's criterion rules, the box «Критичный» as the form sends it
 * ("on" or absent). Rows are index-named (`criteria[0].text`); /quality/scorecard/:id's action parses the post.
 */
export const ScorecardFormSchema = z.object({
  criteria: criteriaListOf(criterionSchema.extend({ critical: z.string().optional() })),
});

export const SCORECARD_FORM = "scorecard";

const NEW_CRITERION = { text: "", weight: "10", critical: undefined };

const small =
  "inline-flex h-9 w-9 shrink-0 items-center justify-center rounded-md border border-slate-300 text-sm hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-700";

/**
 * A topic's criteria: text, weight, «Критичный», delete; «Добавить пункт». The row buttons are conform's intents:
 * with JavaScript they change the form in place, without it they post it and the action answers it changed.
 */
export function ScorecardForm({
  filterId,
  criteria,
  lastResult,
}: {
  filterId: number;
  criteria: Array<{ text: string; weight: number; critical: boolean }>;
  lastResult?: SubmissionResult<string[]> | null;
}) {
  const [form, fields] = useSchemaForm(ScorecardFormSchema, {
    id: `scorecard-${filterId}`,
    lastResult,
    defaultValue: { criteria: criteria.map((c) => ({ text: c.text, weight: String(c.weight), critical: c.critical ? "on" : undefined })) },
  });
  const rows = fields.criteria.getFieldList();
  const answerKey = useAnswerKey(lastResult);
  const unshown = unshownError(
    lastResult,
    rows.flatMap((row) => ["text", "weight", "critical"].map((name) => `${row.name}.${name}`)),
  );
  return (
    <Form method="post" preventScrollReset {...formProps(form)} className="space-y-4" data-testid="scorecard-form">
      <input type="hidden" name="intent" value="scorecard-save" />
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      {rows.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="scorecard-empty">
          Пунктов нет: звонки этой тематики не оцениваются. Добавьте первый пункт.
        </p>
      ) : (
        <ol className="space-y-3">
          {rows.map((row, index) => {
            const field = row.getFieldset();
            return (
              <li key={row.key ?? row.name} className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="criterion-row">
                <div className="flex flex-wrap items-start gap-2">
                  <span className="mt-2 w-6 shrink-0 text-right text-sm tabular-nums text-slate-600 dark:text-slate-400">{index + 1}.</span>
                  <div className="min-w-0 flex-1 basis-56">
                    <label className="sr-only" htmlFor={field.text.id}>
                      Пункт {index + 1}
                    </label>
                    <input {...inputProps(field.text)} className="input" placeholder="Например: выяснил потребность клиента" autoComplete="off" />
                    <FieldError field={field.text} />
                  </div>
                  <div className="w-24">
                    <label className="sr-only" htmlFor={field.weight.id}>
                      Вес пункта {index + 1}
                    </label>
                    <div className="flex items-center gap-1">
                      <span className="text-sm text-slate-600 dark:text-slate-400" aria-hidden>
                        вес
                      </span>
                      <input {...inputProps(field.weight)} inputMode="numeric" className="input w-16 text-right tabular-nums" />
                    </div>
                  </div>
                  <label className="mt-2 flex items-center gap-2 text-sm">
                    <input
                      type="checkbox"
                      name={field.critical.name}
                      value="on"
                      defaultChecked={field.critical.initialValue === "on"}
                      key={`${row.key}-${String(field.critical.initialValue)}`}
                      className="h-4 w-4"
                    />
                    Критичный
                  </label>
                  <button
                    {...form.remove.getButtonProps({ name: fields.criteria.name, index })}
                    className={`${small} text-red-600 dark:text-red-400`}
                    aria-label={`Удалить пункт ${index + 1}`}
                    title="Удалить пункт"
                  >
                    <CloseIcon />
                  </button>
                </div>
                <FieldError field={field.weight} className="ml-8" />
              </li>
            );
          })}
        </ol>
      )}
      <FieldError field={fields.criteria} />
      <button
        {...form.insert.getButtonProps({ name: fields.criteria.name, defaultValue: NEW_CRITERION })}
        className="btn-secondary"
        data-testid="add-criterion"
      >
        Добавить пункт
      </button>
      <div className="flex justify-end gap-2">
        <CancelAndSave cancelHref="/quality" intent="scorecard-save" />
      </div>
    </Form>
  );
}
