import { Form, Link, useFetcher } from "@remix-run/react";
import { useState, type ReactNode } from "react";
import { textColorFor } from "../../lib/color";
import { TrashIcon } from "../ui/Icons";

export interface StatusRowData {
  id: number;
  text: string;
  buttonText: string;
  color: string;
  isHidden: boolean;
  isReportStatus: boolean;
  isTechnical: boolean;
}

const iconButton =
  "inline-flex h-8 w-8 items-center justify-center rounded-md border border-slate-300 text-sm hover:bg-slate-100 dark:border-slate-600 dark:hover:bg-slate-700";
const iconOn = "border-blue-500 bg-blue-50 text-blue-700 dark:bg-blue-900/40 dark:text-blue-200";

/**
 * One hidden intent + id; the button inside submits it (a plain post without JavaScript). With JavaScript a
 * fetcher shows the flipped state at once (optimistic), until the reloaded list arrives.
 */
function RowAction({ id, intent, label, children, active }: { id: number; intent: string; label: string; children: ReactNode; active?: boolean }) {
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
        aria-label={label}
        title={label}
        aria-pressed={shown}
        disabled={fetcher.state !== "idle"}
      >
        {children}
      </button>
    </fetcher.Form>
  );
}

/**
 * A status row of SPEC /edit-statuses: status text → button text, colour swatch with picker, preview button,
 * Скрыть, edit/save, report and technical toggles, delete. Fields are editable only in edit mode.
 */
export function StatusRow({ status, initiallyEditing }: { status: StatusRowData; initiallyEditing: boolean }) {
  const [editing, setEditing] = useState(initiallyEditing);
  const [color, setColor] = useState(status.color);
  const [text, setText] = useState(status.text);
  const [buttonText, setButtonText] = useState(status.buttonText);
  const formId = `status-${status.id}`;
  const kind = status.isTechnical ? "технический" : status.isReportStatus ? "отчётный" : "обычный";

  return (
    <li className="card flex flex-wrap items-center gap-2 p-3" data-testid="status-row" data-status-id={status.id} data-kind={kind}>
      <Form method="post" id={formId} preventScrollReset onSubmit={() => setEditing(false)}>
        <input type="hidden" name="id" value={status.id} />
      </Form>
      <input
        type="color"
        name="color"
        form={formId}
        value={color}
        onChange={(event) => setColor(event.target.value)}
        disabled={!editing}
        className="h-8 w-10 cursor-pointer rounded border border-slate-300 bg-transparent p-0.5 disabled:cursor-default"
        aria-label="Цвет статуса"
        title={color}
      />
      <input
        name="text"
        form={formId}
        value={text}
        onChange={(event) => setText(event.target.value)}
        readOnly={!editing}
        className={`input w-48 ${editing ? "" : "border-transparent bg-transparent dark:bg-transparent"}`}
        aria-label="Текст статуса"
      />
      <span aria-hidden="true" className="text-slate-600 dark:text-slate-400">
        →
      </span>
      <input
        name="buttonText"
        form={formId}
        value={buttonText}
        onChange={(event) => setButtonText(event.target.value)}
        readOnly={!editing}
        className={`input w-40 ${editing ? "" : "border-transparent bg-transparent dark:bg-transparent"}`}
        aria-label="Текст кнопки"
      />
      <button
        type="button"
        className="rounded-md px-3 py-1.5 text-sm font-medium shadow-sm"
        style={{ backgroundColor: color, color: textColorFor(color) }}
        data-testid="status-preview"
        tabIndex={-1}
      >
        {buttonText || text}
      </button>
      <div className="flex-1" />
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
            {status.isHidden ? "✓" : ""}
          </span>
          Скрыть
        </button>
      </Form>
      {editing ? (
        <button type="submit" form={formId} name="intent" value="update" className={iconButton} aria-label="Сохранить" title="Сохранить">
          ✔
        </button>
      ) : (
        <Link
          to={`?edit=${status.id}`}
          preventScrollReset
          className={iconButton}
          aria-label="Редактировать"
          title="Редактировать"
          onClick={(event) => {
            event.preventDefault();
            setEditing(true);
          }}
        >
          ✎
        </Link>
      )}
      <RowAction id={status.id} intent="report" label="Отчётный статус" active={status.isReportStatus}>
        ★
      </RowAction>
      <RowAction id={status.id} intent="technical" label="Технический статус" active={status.isTechnical}>
        ⚙
      </RowAction>
      {/* Deleting asks first (issue 17): the page shows the question for ?delete=id. */}
      <Link to={`?delete=${status.id}`} preventScrollReset className={iconButton} aria-label="Удалить" title="Удалить">
        <TrashIcon />
      </Link>
    </li>
  );
}
