import type { SubmissionResult } from "@conform-to/react";
import { Form, Link, useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import * as z from "zod";
import { buttonText, colorSchema, hotkey, statusText } from "../../../common/schemas/statuses";
import { idSchema } from "../../../common/validation";
import { formProps, useSchemaForm } from "../ui/forms";
import { statusEdgeClass, textColorFor, weakTextContrast } from "../../lib/color";
import { BanIcon, CheckIcon, ClockIcon, GearIcon, PencilIcon, StarIcon, TrashIcon } from "../ui/Icons";

export interface StatusRowData {
  id: number;
  text: string;
  buttonText: string;
  color: string;
  isHidden: boolean;
  isReportStatus: boolean;
  isTechnical: boolean;
  isDoNotCall: boolean;
  asksCallback: boolean;
  hotkey: number | null;
}

/**
 * A row's one schema (decision 063): core's status fields, checked in the browser and by the /edit-statuses action.
 * conform sends an emptied field as absent: an emptied button text is "" and «по порядку» is no key (null).
 */
export const StatusRowSchema = z.object({
  id: idSchema,
  text: statusText,
  buttonText: buttonText.default(""),
  color: colorSchema,
  hotkey: hotkey.default(null),
});

/** A draft row (issue 41): the same fields without an id; «Сохранить» creates the status. */
export const StatusDraftSchema = StatusRowSchema.omit({ id: true });

/**
 * The lead panel's key of a status (issue 31): shown as a keycap; while the row is edited, a choice of the digit
 * («по порядку»: the next digit nobody was given, report statuses first).
 */
function StatusKey({
  formId,
  editing,
  hidden,
  keyDigit,
  value,
  onChange,
}: {
  formId: string;
  editing: boolean;
  hidden: boolean;
  keyDigit: number | null;
  value: string;
  onChange: (value: string) => void;
}) {
  if (editing) {
    return (
      <label className="inline-flex items-center gap-1 text-sm">
        Клавиша
        <select
          name="hotkey"
          form={formId}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          className="input w-auto py-1"
          data-testid="status-hotkey"
        >
          <option value="">по порядку</option>
          {[1, 2, 3, 4, 5, 6, 7, 8, 9].map((digit) => (
            <option key={digit} value={digit}>
              {digit}
            </option>
          ))}
        </select>
      </label>
    );
  }
  return (
    <>
      <input type="hidden" name="hotkey" form={formId} value={value} />
      <span className="text-sm text-slate-600 dark:text-slate-400" data-testid="status-key">
        {hidden ? (
          "скрыт: без клавиши"
        ) : keyDigit === null ? (
          "без клавиши"
        ) : (
          <>
            клавиша{" "}
            <kbd className="inline-flex min-w-[1.25rem] justify-center rounded border border-slate-400 px-1 font-mono text-xs text-slate-900 dark:border-slate-500 dark:text-slate-100">
              {keyDigit}
            </kbd>
          </>
        )}
      </span>
    </>
  );
}

/** An empty button text: the button says the status's text (core saves it so, decision 081). */
export const SAME_AS_TEXT = "как текст статуса";

/**
 * An action with its icon and its name (issue 31: six icon-only buttons explained themselves only on hover, which
 * a touch screen never has).
 */
const iconButton =
  "inline-flex h-8 items-center justify-center gap-1 whitespace-nowrap rounded-md border border-slate-300 px-2 text-xs hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-700";
/**
 * A status text is as wide as it is (a long one is never cut short), within the row; short ones share one
 * width, so the arrows and previews of most rows line up.
 */
const fieldWidth = "w-auto min-w-[8rem] max-w-full [field-sizing:content]";
const textWidth = `${fieldWidth} sm:min-w-[15rem]`;
/**
 * A switched-on toggle is a filled button, not a tint (issue 17: ★ and ⚙ looked faint when on in the dark theme):
 * white on blue-600 (5.2:1) in the light theme, near-black on blue-400 (8:1) in the dark one, and the button
 * itself stands out of the card by more than 3:1 (test/e2e/a11y.test.ts measures both).
 */
const iconOn =
  "border-blue-600 bg-blue-600 text-white hover:bg-blue-700 dark:border-blue-400 dark:bg-blue-400 dark:text-slate-950 dark:hover:bg-blue-300";

/**
 * A status's text: a field while the row is edited; otherwise the text itself, wrapping on a narrow screen so a
 * long one is read whole (a read-only field cut it on a phone), with its value kept for the row's form.
 */
function StatusText({
  name,
  formId,
  editing,
  value,
  onChange,
  label,
  className,
  inputRef,
  autoFocus,
  required,
  invalid,
  placeholder,
}: {
  name: string;
  formId: string;
  editing: boolean;
  value: string;
  onChange: (value: string) => void;
  label: string;
  className: string;
  inputRef?: React.Ref<HTMLInputElement>;
  autoFocus?: boolean;
  required?: boolean;
  invalid?: string;
  /** Said for an empty value: in the field while it is edited, in a paler line otherwise. */
  placeholder?: string;
}) {
  if (editing) {
    return (
      <input
        ref={inputRef}
        name={name}
        form={formId}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        className={`input ${className}`}
        aria-label={label}
        title={value}
        placeholder={placeholder}
        autoFocus={autoFocus}
        required={required}
        aria-invalid={invalid ? true : undefined}
        aria-describedby={invalid ? `${formId}-${name}-error` : undefined}
      />
    );
  }
  return (
    <>
      <input type="hidden" name={name} form={formId} value={value} aria-label={label} readOnly />
      <span className={`input-static whitespace-normal break-words ${className} ${value ? "" : "text-slate-600 dark:text-slate-400"}`} title={label}>
        {value || placeholder}
      </span>
    </>
  );
}

/**
 * One hidden intent + id; the button inside submits it (a plain post without JavaScript). With JavaScript a
 * fetcher shows the flipped state at once (optimistic), until the reloaded list arrives.
 */
function RowAction({
  id,
  intent,
  label,
  shown: short,
  children,
  active,
}: {
  id: number;
  intent: string;
  /** The accessible name; `shown` is the visible part of it. */
  label: string;
  shown: string;
  children: ReactNode;
  active?: boolean;
}) {
  const fetcher = useFetcher();
  const shown = active === undefined ? undefined : fetcher.formData ? !active : active;
  return (
    <fetcher.Form method="post" preventScrollReset className="inline">
      <input type="hidden" name="id" value={id} />
      <button
        type="submit"
        name="intent"
        value={intent}
        className={`${iconButton} ${shown ? iconOn : ""}`}
        data-on={shown ? "true" : undefined}
        aria-label={label}
        aria-pressed={shown}
        disabled={fetcher.state !== "idle"}
      >
        {children}
        <span>{short}</span>
      </button>
    </fetcher.Form>
  );
}

/**
 * A status row of SPEC /edit-statuses: status text → button text, colour swatch with picker, preview button,
 * Скрыть, edit/save, report and technical toggles, delete. Fields are editable only in edit mode.
 */
export function StatusRow({
  status,
  initiallyEditing,
  isNew = false,
  draft = false,
  keyDigit,
  lastResult,
}: {
  status: StatusRowData;
  /** Not saved yet (issue 41): its form creates the status; no switches, «Отмена» drops it. */
  draft?: boolean;
  initiallyEditing: boolean;
  /** Just made by «Добавить статус»: its name field takes the focus (issue 31). */
  isNew?: boolean;
  /** The lead panel's digit for it now (null: none; hidden statuses have none). */
  keyDigit: number | null;
  /** The action's answer to this row's form, if it was just sent (its field errors). */
  lastResult?: SubmissionResult<string[]> | null;
}) {
  const formId = draft ? "status-new" : `status-${status.id}`;
  const [form, fields] = useSchemaForm(draft ? StatusDraftSchema : StatusRowSchema, { id: formId, lastResult });
  // A refused row stays open with what was typed (conform's initialValue, without JavaScript too). conform sends
  // an emptied text as absent: it is shown empty, not as the saved text (issue 41).
  const typed = (name: "text" | "buttonText" | "color", fallback: string) => {
    if (!lastResult) return fallback;
    const value = fields[name].initialValue;
    return typeof value === "string" ? value : name === "color" ? fallback : "";
  };
  const [editing, setEditing] = useState(initiallyEditing || Boolean(lastResult?.error));
  const [color, setColor] = useState(() => typed("color", status.color));
  const [text, setText] = useState(() => typed("text", status.text));
  // Issue 41 §11 (decision 081): a button that says the status's own text shows an empty field («как текст
  // статуса»), so renaming the status renames its button too; a shorter button label is typed on purpose.
  const [buttonLabel, setButtonLabel] = useState(() => typed("buttonText", status.buttonText === status.text ? "" : status.buttonText));
  const [key, setKey] = useState(status.hotkey === null ? "" : String(status.hotkey));
  const textField = useRef<HTMLInputElement>(null);
  // The text's own message is under its field (issue 41); the first of the others' under the row.
  const rowError =
    fields.buttonText.errors?.[0] ??
    fields.color.errors?.[0] ??
    fields.hotkey.errors?.[0] ??
    form.errors?.[0] ??
    (fields as Partial<Record<string, { errors?: string[] }>>).id?.errors?.[0];
  const textError = fields.text.errors?.[0] ?? "";
  // The pencil opens the row with the focus in its name field.
  const [focusText, setFocusText] = useState(false);
  useEffect(() => {
    if (editing && focusText) textField.current?.focus();
  }, [editing, focusText]);
  // Decision 078: SPEC's black-or-white text stays; a colour where it reads poorly is pointed out, not refused.
  const weakContrast = weakTextContrast(color);
  const kind = status.isTechnical ? "технический" : status.isReportStatus ? "отчётный" : "обычный";

  return (
    <li
      // A flag switched moves the row to its group (decision 085): the page is sent to it (#status-row-<id>).
      id={draft ? undefined : `status-row-${status.id}`}
      tabIndex={-1}
      className="card flex flex-wrap items-center gap-2 p-3 outline-none focus-visible:ring-2 focus-visible:ring-sky-500"
      data-testid={draft ? "status-draft" : "status-row"}
      data-status-id={draft ? undefined : status.id}
      data-kind={kind}
    >
      <Form
        method="post"
        preventScrollReset
        {...formProps(form)}
        onSubmit={(event) => {
          // Issue 31: an empty name saved a blank row. The row's schema refuses it here with the server's words.
          form.onSubmit(event);
          if (event.defaultPrevented) {
            textField.current?.focus();
            return;
          }
          setEditing(false);
        }}
      >
        {draft ? null : <input type="hidden" name="id" value={status.id} />}
      </Form>
      <input
        type="color"
        name="color"
        form={formId}
        value={color}
        onChange={(event) => setColor(event.target.value)}
        disabled={!editing}
        className="h-8 w-10 cursor-pointer rounded border border-slate-300 bg-transparent p-0.5 disabled:cursor-default disabled:border-transparent dark:border-slate-600 dark:disabled:border-transparent"
        aria-label="Цвет статуса"
        title={color}
      />
      <span className="inline-flex max-w-full flex-col gap-1">
        <StatusText
          name="text"
          formId={formId}
          editing={editing}
          value={text}
          onChange={setText}
          label="Текст статуса"
          className={textWidth}
          inputRef={textField}
          // A refused text takes the focus, so without JavaScript the reloaded page opens at it (on a phone it was below).
          autoFocus={isNew || Boolean(textError)}
          required
          invalid={textError}
        />
        {textError ? (
          <span id={`${formId}-text-error`} role="alert" className="text-sm text-red-700 dark:text-red-300" data-testid="status-text-error">
            {textError}
          </span>
        ) : null}
      </span>
      <span aria-hidden="true" className="text-slate-600 dark:text-slate-400">
        →
      </span>
      <StatusText
        name="buttonText"
        formId={formId}
        editing={editing}
        value={buttonLabel}
        onChange={setButtonLabel}
        label="Текст кнопки"
        className={fieldWidth}
        placeholder={SAME_AS_TEXT}
      />
      <button
        type="button"
        className={`rounded-md px-3 py-1.5 text-sm font-medium shadow-sm ${statusEdgeClass(color)}`}
        style={{ backgroundColor: color, color: textColorFor(color) }}
        data-testid="status-preview"
        tabIndex={-1}
      >
        {buttonLabel || text}
      </button>
      <StatusKey formId={formId} editing={editing} hidden={status.isHidden} keyDigit={keyDigit} value={key} onChange={setKey} />
      {weakContrast !== null ? (
        <p className="w-full text-sm text-amber-800 dark:text-amber-300" data-testid="status-contrast-hint">
          {`Текст на этом цвете читается хуже нужного (контраст ${weakContrast.toFixed(1).replace(".", ",")}:1, нужно 4,5:1): выберите цвет темнее или светлее.`}
        </p>
      ) : null}
      {rowError ? (
        <p id={`${formId}-row-error`} role="alert" className="w-full text-sm text-red-700 dark:text-red-300" data-testid="status-row-error">
          {rowError}
        </p>
      ) : null}
      {/* The row's switches and actions stay together, at the right; on a narrow row they move down as one. */}
      {draft ? (
        <div className="ml-auto flex flex-wrap items-center justify-end gap-1 sm:gap-2">
          <button type="submit" form={formId} name="intent" value="create" className={iconButton}>
            <CheckIcon />
            <span>Сохранить</span>
          </button>
          <Link to="." preventScrollReset className={iconButton}>
            <span>Отмена</span>
          </Link>
        </div>
      ) : (
        <div className="ml-auto flex flex-wrap items-center justify-end gap-1 sm:gap-2">
          <Form method="post" preventScrollReset className="inline">
            <input type="hidden" name="id" value={status.id} />
            <button
              type="submit"
              name="intent"
              value="visibility"
              role="checkbox"
              aria-checked={status.isHidden}
              className="inline-flex items-center gap-1.5 rounded-md px-2 py-1 text-sm hover:bg-slate-100 dark:hover:bg-slate-700"
            >
              <span
                aria-hidden="true"
                className={`inline-flex h-4 w-4 items-center justify-center rounded border text-[10px] ${
                  status.isHidden ? "border-blue-600 bg-blue-600 text-white" : "border-slate-400"
                }`}
              >
                {status.isHidden ? <CheckIcon /> : null}
              </span>
              Скрыть
            </button>
          </Form>
          {editing ? (
            <button type="submit" form={formId} name="intent" value="update" className={iconButton}>
              <CheckIcon />
              <span>Сохранить</span>
            </button>
          ) : (
            <Link
              to={`?edit=${status.id}`}
              preventScrollReset
              className={iconButton}
              onClick={(event) => {
                event.preventDefault();
                setEditing(true);
                setFocusText(true);
              }}
            >
              <PencilIcon />
              <span>Редактировать</span>
            </Link>
          )}
          <RowAction id={status.id} intent="report" label="Отчётный статус" shown="Отчётный" active={status.isReportStatus}>
            <StarIcon />
          </RowAction>
          <RowAction id={status.id} intent="technical" label="Технический статус" shown="Технический" active={status.isTechnical}>
            <GearIcon />
          </RowAction>
          <RowAction id={status.id} intent="do-not-call" label="Добавить в список «Не звонить»" shown="«Не звонить»" active={status.isDoNotCall}>
            <BanIcon />
          </RowAction>
          <RowAction id={status.id} intent="callback" label="Спрашивает время перезвона" shown="Время перезвона" active={status.asksCallback}>
            <ClockIcon />
          </RowAction>
          {/* Deleting asks first (issue 17): the page shows the question for ?delete=id. */}
          <Link to={`?delete=${status.id}`} preventScrollReset className={iconButton}>
            <TrashIcon />
            <span>Удалить</span>
          </Link>
        </div>
      )}
    </li>
  );
}
