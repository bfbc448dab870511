import { Form, Link } from "@remix-run/react";
import type { SubmissionResult } from "@conform-to/react";
import type { ExportView } from "../../../server/core/exports/exports";
import { createExportSchema } from "../../../common/schemas/exports";
import { formatDateTime } from "../../lib/format";
import { FieldError, formProps, isChosen, unshownError, useSchemaForm, TextField } from "../ui/forms";
import { ServerMessage } from "../ui/Toasts";

/**
 * A list of checkboxes in the export dialog: tall enough for 17 long status names in two columns, and framed, so when it
 * does scroll (a phone, many bases) its edge shows it is a box that scrolls, not a last item cut off (issue 31).
 */
const CHOICE_LIST = "grid max-h-96 grid-cols-1 gap-1 overflow-auto rounded-md border border-slate-200 p-2 sm:grid-cols-2 dark:border-slate-700";

/** An export as the list shows it (the core's view without the chosen bases and statuses). */
export type ExportRow = Omit<ExportView, "databaseIds" | "statusIds">;

export function exportState(row: ExportRow) {
  if (row.error) return "Ошибка";
  if (row.isExported) return "Готов";
  // Every row is in the file: what is left is compressing and storing it.
  if (row.startTime && row.rowsTotal !== null && row.rowsWritten >= row.rowsTotal) return "Сохранение файла";
  if (row.startTime) return "Выполняется";
  return "В очереди";
}

/** A job the worker has not finished (queued, running or saving): the page follows it closely. */
export const isUnfinished = (row: ExportRow) => !row.isExported && !row.error;

const count = (n: number) => n.toLocaleString("ru-RU");

/** "строк: 35 000 из 100 000" (rows written of rows to write); a job from before rows were counted has its percent only. */
export function rowsText(row: ExportRow) {
  return row.rowsTotal === null ? null : `строк: ${count(row.rowsWritten)} из ${count(row.rowsTotal)}`;
}

export function ProgressCell({ row }: { row: ExportRow }) {
  const rows = rowsText(row);
  return (
    <div className="flex flex-wrap items-center gap-x-2" data-testid="export-progress">
      <div
        className="h-2 w-24 overflow-hidden rounded bg-slate-200 dark:bg-slate-700"
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={row.progress}
        aria-label={`Прогресс экспорта «${row.name}»`}
      >
        <div className="h-full bg-blue-600" style={{ width: `${row.progress}%` }} />
      </div>
      <span className="tabular-nums">{row.progress}%</span>
      {rows ? (
        <span className="whitespace-nowrap text-xs tabular-nums text-slate-600 dark:text-slate-400" data-testid="export-rows">
          {rows}
        </span>
      ) : null}
    </div>
  );
}

export function LastExportSummary({ last }: { last: ExportRow | null }) {
  return (
    <div className="card text-sm" data-testid="last-export">
      <h2 className="mb-2 text-base font-semibold">Последний экспорт</h2>
      {last ? (
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1">
          <dt className="text-slate-600 dark:text-slate-400">Название</dt>
          <dd>{last.name}</dd>
          <dt className="text-slate-600 dark:text-slate-400">Создан</dt>
          <dd>{formatDateTime(last.createdAt)}</dd>
          <dt className="text-slate-600 dark:text-slate-400">Состояние</dt>
          <dd data-testid="last-export-state">
            {exportState(last)}, {last.progress}%{rowsText(last) ? `, ${rowsText(last)}` : ""}
          </dd>
          {last.endTime ? (
            <>
              <dt className="text-slate-600 dark:text-slate-400">Завершён</dt>
              <dd>{formatDateTime(last.endTime)}</dd>
            </>
          ) : null}
        </dl>
      ) : (
        <p className="text-slate-600 dark:text-slate-400">Экспортов пока нет</p>
      )}
    </div>
  );
}

interface Choice {
  id: number;
  name: string;
}

/**
 * The create form, checked by core's export schema (decision 063) in the browser and in the action: SPEC §5's
 * messages under the name, the bases and the statuses. A refused post without JavaScript comes back as it was ticked.
 */
export function CreateExportForm({
  bases,
  statuses,
  lastResult,
}: {
  bases: Choice[];
  statuses: Choice[];
  lastResult?: SubmissionResult<string[]> | null;
}) {
  const [form, fields] = useSchemaForm(createExportSchema, { id: "create-export", lastResult, defaultValue: { format: "xlsx" } });
  const unshown = unshownError(lastResult, ["name", "databaseIds", "statusIds", "format"]);
  return (
    <Form method="post" action="/exportbase?dialog=create" {...formProps(form)} className="space-y-4" data-testid="create-export-form">
      {unshown ? <ServerMessage kind="error" message={unshown} /> : null}
      <input type="hidden" name="intent" value="create" />
      <TextField field={fields.name} label="Название экспорта" id="export-name" maxLength={200} />
      <fieldset aria-describedby={fields.databaseIds.errors ? fields.databaseIds.errorId : undefined}>
        <legend className="label">Базы</legend>
        {bases.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-400">Баз пока нет</p> : null}
        <div className={CHOICE_LIST}>
          {bases.map((base) => (
            <label key={base.id} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name={fields.databaseIds.name}
                value={base.id}
                defaultChecked={isChosen(fields.databaseIds.initialValue, base.id)}
              />
              {base.name}
            </label>
          ))}
        </div>
        <FieldError field={fields.databaseIds} />
      </fieldset>
      <fieldset aria-describedby={fields.statusIds.errors ? fields.statusIds.errorId : undefined}>
        <legend className="label">Статусы</legend>
        <div className={CHOICE_LIST} data-testid="export-status-list">
          {statuses.map((status) => (
            <label key={status.id} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name={fields.statusIds.name}
                value={status.id}
                defaultChecked={isChosen(fields.statusIds.initialValue, status.id)}
              />
              {status.name}
            </label>
          ))}
        </div>
        <FieldError field={fields.statusIds} />
      </fieldset>
      <fieldset>
        <legend className="label">Формат файла</legend>
        <div className="flex flex-wrap gap-4 text-sm">
          <label className="flex items-center gap-2">
            <input type="radio" name={fields.format.name} value="xlsx" defaultChecked={fields.format.initialValue !== "csv"} />
            Excel (.xlsx)
          </label>
          <label className="flex items-center gap-2">
            <input type="radio" name={fields.format.name} value="csv" defaultChecked={fields.format.initialValue === "csv"} />
            CSV (.csv, UTF-8, разделитель «;»)
          </label>
        </div>
        <FieldError field={fields.format} />
      </fieldset>
      <div className="flex justify-end gap-2">
        <Link to="/exportbase" className="btn-secondary" replace>
          Отмена
        </Link>
        <button type="submit" className="btn-primary">
          Создать
        </button>
      </div>
    </Form>
  );
}
