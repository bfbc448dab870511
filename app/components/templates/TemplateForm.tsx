import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import * as z from "zod";
import { fieldListOf, NEW_FIELD_LABEL, type TemplateField, templateFieldSchema, templateName } from "../../../common/schemas/templates";
import { idSchema } from "../../../common/validation";
import { CancelAndSave, FieldError, formProps, inputProps, selectProps, unshownError, useSchemaForm, TextField } from "../ui/forms";
import { CloseIcon, LockIcon, UnlockIcon } from "../ui/Icons";
import { notify, ServerMessage, useAnswerKey } from "../ui/Toasts";

/**
 * The template editor's one schema (decision 063): core's name and field rules, each row a field with its lock
 * ("1": read-only). The rows are index-named (`fields[0].label`), so a row whose label was emptied is still a
 * row (its type and lock are sent) and its error stands under it. /leadTemplate's action parses the post with it.
 */
export const TemplateFormSchema = z.object({
  id: idSchema.optional(),
  name: templateName,
  fields: fieldListOf(templateFieldSchema.extend({ locked: z.string().optional() })),
});

/** The action's answers to this form carry this name (`resultOf`). */
export const TEMPLATE_FORM = "template";

/** SPEC §5: an empty template name shows "Выберите базу данных". */
export const EMPTY_TEMPLATE_NAME = "Выберите базу данных";

/** SPEC §5: a new field is "Имя поля", type text (unlocked: it is there to be named). */
const NEW_FIELD = { label: NEW_FIELD_LABEL, type: "text" as const, column: "", locked: "0" };

const small =
  "inline-flex h-9 w-9 shrink-0 items-center justify-center rounded-md border border-slate-300 text-sm hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-700";

/**
 * The template editor (SPEC /leadTemplate modal): Имя шаблона, fields with lock/unlock and delete, Новое поле,
 * Отмена and Сохранить. The field buttons are conform's list and update intents: with JavaScript they change the
 * form in place; without it they post the form, and the action answers it changed, saving nothing.
 */
export function TemplateForm({
  template,
  columns,
  cancelHref,
  lastResult,
}: {
  /** The template being edited (its fields open locked), or null for a new one. */
  template: { id: number; name: string; fields: TemplateField[] } | null;
  /** The base columns «Столбец базы» suggests (the bases' headers and the columns' own names). */
  columns: string[];
  cancelHref: string;
  /** The action's answer to this form (errors, the rows as they were sent or changed), if it was just sent. */
  lastResult?: SubmissionResult<string[]> | null;
}) {
  const [form, fields] = useSchemaForm(TemplateFormSchema, {
    id: `template-form-${template?.id ?? "new"}`,
    lastResult,
    defaultValue: {
      id: template?.id,
      name: template?.name ?? "",
      fields: (template?.fields ?? []).map((field) => ({ ...field, locked: "1" })),
    },
  });
  const rows = fields.fields.getFieldList();
  // A new answer speaks again, even with the same message.
  const answerKey = useAnswerKey(lastResult);
  const unshown = unshownError(lastResult, ["name", ...rows.flatMap((row) => ["label", "type", "column"].map((name) => `${row.name}.${name}`))]);
  const props = formProps(form);

  return (
    <Form
      method="post"
      preventScrollReset
      {...props}
      onSubmit={(event) => {
        props.onSubmit(event);
        // SPEC's message for an empty name, as the toast; the field itself says «Введите имя шаблона».
        const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        const name = new FormData(event.currentTarget).get("name");
        if (event.defaultPrevented && submitter?.value === "template-save" && !String(name ?? "").trim()) notify("error", EMPTY_TEMPLATE_NAME);
      }}
      className="space-y-4"
      data-testid="template-form"
    >
      {/* Every post of this form is the template's, the field buttons' too (they say what changes in __intent__). */}
      <input type="hidden" name="intent" value="template-save" />
      {template ? <input type="hidden" name="id" value={template.id} /> : null}
      {lastResult?.error?.name ? <ServerMessage key={`name-${answerKey}`} kind="error" message={EMPTY_TEMPLATE_NAME} /> : null}
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      <TextField
        field={fields.name}
        label="Имя шаблона"
        id="template-name"
        placeholder="Название"
        autoComplete="off"
        errorTestId="template-name-hint"
      />
      <div className="space-y-2">
        {rows.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-400">Полей пока нет</p> : null}
        {rows.map((row, index) => {
          const field = row.getFieldset();
          const locked = field.locked.value === "1";
          const lockLabel = locked ? "Разблокировать поле" : "Заблокировать поле";
          return (
            <div key={row.key ?? row.name} data-testid="template-field">
              <div className="flex items-center gap-2">
                <input type="hidden" name={field.locked.name} value={locked ? "1" : "0"} />
                <button
                  {...form.update.getButtonProps({ name: field.locked.name, value: locked ? "0" : "1" })}
                  className={small}
                  aria-label={lockLabel}
                  title={lockLabel}
                >
                  {locked ? <LockIcon /> : <UnlockIcon />}
                </button>
                <input
                  {...inputProps(field.label)}
                  className={`input ${locked ? "bg-slate-50 dark:bg-slate-800" : ""}`}
                  readOnly={locked}
                  aria-label="Имя поля"
                />
                {/* A locked field's type is sent as it is; its select only shows it. */}
                {locked ? <input type="hidden" name={field.type.name} value={String(field.type.value ?? "text")} /> : null}
                <select
                  {...selectProps(field.type)}
                  name={locked ? undefined : field.type.name}
                  className="input w-36"
                  disabled={locked}
                  aria-label="Тип поля"
                >
                  <option value="text">Text</option>
                  <option value="textarea">TextArea</option>
                </select>
                <button
                  {...form.remove.getButtonProps({ name: fields.fields.name, index })}
                  className={`${small} text-red-600 dark:text-red-400`}
                  aria-label="Удалить поле"
                  title="Удалить поле"
                >
                  <CloseIcon />
                </button>
              </div>
              {/* Issue 41: the field starts with the client's value of this column; empty: of the column named as the field. */}
              <div className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 sm:pl-11">
                <label className="text-sm text-slate-600 dark:text-slate-400" htmlFor={field.column.id}>
                  Столбец базы
                </label>
                <input
                  {...inputProps(field.column)}
                  list="base-columns"
                  className={`input min-w-0 flex-[1_1_12rem] ${locked ? "bg-slate-50 dark:bg-slate-800" : ""}`}
                  readOnly={locked}
                  placeholder="как имя поля"
                  autoComplete="off"
                />
              </div>
              <FieldError field={field.label} />
              <FieldError field={field.type} />
              <FieldError field={field.column} />
            </div>
          );
        })}
        <button {...form.insert.getButtonProps({ name: fields.fields.name, defaultValue: NEW_FIELD })} className="btn-secondary">
          Новое поле
        </button>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Поле карточки начинается со значения клиента из столбца базы с тем же именем (регистр и пробелы не важны). Если столбец называется иначе,
          укажите его в «Столбец базы». То, что менеджер уже сохранил, не заменяется.
        </p>
        <datalist id="base-columns">
          {columns.map((column) => (
            <option key={column} value={column} />
          ))}
        </datalist>
      </div>
      <div className="flex justify-end gap-2">
        <CancelAndSave cancelHref={cancelHref} intent="template-save" />
      </div>
    </Form>
  );
}
