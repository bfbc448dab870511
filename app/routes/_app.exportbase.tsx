import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigate } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import {
  baseOptions,
  createExport,
  deleteExport,
  deleteExports,
  listExports,
  NO_STATUS_ID,
  NO_STATUS_LABEL,
  restartExport,
  statusColumns,
} from "../bases.server";
import { CreateExportForm, exportState, isUnfinished, LastExportSummary, ProgressCell } from "../components/bases/ExportParts";
import { ConfirmAction } from "../components/ui/ConfirmAction";
import { DialogOrSection } from "../components/ui/DialogOrSection";
import { useBackgroundRefresh } from "../lib/background-refresh";
import { resultOf } from "../components/ui/forms";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { formIntent, formRefused, formReply, readFields, readFormBody, unknownIntent } from "../forms.server";
import { createExportSchema } from "../../common/schemas/exports";
import { idFields, idSchema } from "../../common/validation";
import { redirectWithToast } from "../toast.server";
import { DateTime, TableFrame } from "../components/ui/Table";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Экспорт баз" }];

/** SPEC §9: export progress is polled every 30 s; while a job is queued or running, every second (issue 17). */
const POLL_MS = 30_000;
const LIVE_POLL_MS = 1000;
/** Without JavaScript the page reloads itself this often while a job is unfinished. */
const NO_JS_REFRESH_SECONDS = 2;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const params = new URL(request.url).searchParams;
  const [exportsList, bases, statuses] = await Promise.all([
    listExports(context.deps.db, actor),
    baseOptions(context.deps.db, actor),
    statusColumns(context.deps.db),
  ]);
  const confirm = params.get("confirm");
  const selected = params
    .getAll("ids")
    .map(Number)
    .filter((id) => exportsList.some((e) => e.id === id));
  return {
    exports: exportsList,
    bases: bases.filter((b) => b.id !== 0),
    statuses: [{ id: NO_STATUS_ID, name: NO_STATUS_LABEL }, ...statuses.map((s) => ({ id: s.id, name: s.text }))],
    dialog: params.get("dialog") === "create" ? "create" : null,
    confirm:
      confirm === "all"
        ? { kind: "all" as const, ids: [] as number[] }
        : confirm === "selected"
          ? { kind: "selected" as const, ids: selected }
          : confirm && exportsList.some((e) => e.id === Number(confirm))
            ? { kind: "one" as const, ids: [Number(confirm)] }
            : null,
  };
}

/** «Удалить выбранные»: the ticked rows' ids (none ticked: core says so). */
const SelectedFields = z.object({ id: z.array(idSchema).default([]) });

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
  if (intent === "create") {
    const submission = parseWithZod(form, { schema: createExportSchema });
    if (submission.status !== "success") return formReply("create", submission);
    try {
      const created = await createExport(db, actor, submission.value);
      return redirectWithToast("/exportbase", { type: "success", message: `Экспорт «${created.name}» создан` });
    } catch (error) {
      return formRefused("create", submission, error);
    }
  }
  try {
    if (intent === "delete") {
      const result = await deleteExport(db, actor, readFields(form, idFields).id);
      return redirectWithToast("/exportbase", { type: "success", message: result.message });
    }
    if (intent === "delete-selected") {
      const result = await deleteExports(db, actor, readFields(form, SelectedFields).id);
      return redirectWithToast("/exportbase", { type: "success", message: result.message });
    }
    if (intent === "delete-all") {
      const result = await deleteExports(db, actor, "all");
      return redirectWithToast("/exportbase", { type: "success", message: result.message });
    }
    if (intent === "restart") {
      const restarted = await restartExport(db, actor, readFields(form, idFields).id);
      return redirectWithToast("/exportbase", { type: "success", message: `Экспорт «${restarted.name}» перезапущен` });
    }
    throw unknownIntent();
  } catch (error) {
    return actionError(error);
  }
}

export default function ExportBasePage() {
  const { exports, bases, statuses, dialog, confirm } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigate = useNavigate();

  const live = exports.some(isUnfinished);
  useBackgroundRefresh(live ? LIVE_POLL_MS : POLL_MS);

  const close = () => navigate("/exportbase", { replace: true, preventScrollReset: true });
  const confirmText =
    confirm?.kind === "all"
      ? `Удалить все экспорты (${exports.length})? Файлы будут удалены.`
      : confirm?.kind === "selected"
        ? `Удалить выбранные экспорты (${confirm.ids.length})?`
        : confirm
          ? `Удалить экспорт «${exports.find((e) => e.id === confirm.ids[0])?.name ?? ""}»?`
          : "";

  return (
    <section className="space-y-4">
      {/* Without JavaScript: reload while a job runs, unless a form is open (its input would be lost). */}
      {live && dialog === null && confirm === null && !actionData ? (
        <noscript>
          <meta httpEquiv="refresh" content={String(NO_JS_REFRESH_SECONDS)} />
        </noscript>
      ) : null}
      <h1 className="page-title">Экспорт баз</h1>
      {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}

      <LastExportSummary last={exports[0] ?? null} />

      <div className="flex flex-wrap gap-2">
        <Link to="/exportbase?dialog=create" className="btn-primary" preventScrollReset>
          Создать экспорт
        </Link>
        <button type="submit" form="export-selection" name="confirm" value="selected" className="btn-secondary" disabled={exports.length === 0}>
          Удалить выбранные
        </button>
        {exports.length > 0 ? (
          <Link to="/exportbase?confirm=all" className="btn-danger" preventScrollReset>
            Удалить все
          </Link>
        ) : null}
      </div>

      <Form method="get" id="export-selection" className="card p-0" preventScrollReset>
        <TableFrame>
          {/* On a phone one card per export, each value labelled (.stack-table). */}
          <table className="stack-table min-w-full text-sm" data-testid="exports-table">
            <thead className="bg-slate-50 text-left dark:bg-slate-900">
              <tr>
                <th className="p-2">
                  <span className="sr-only">Выбрать</span>
                </th>
                <th className="p-2">Название</th>
                <th className="p-2">Создан</th>
                <th className="p-2">Прогресс</th>
                <th className="p-2">Начало</th>
                <th className="p-2">Окончание</th>
                <th className="p-2">Состояние</th>
                <th className="p-2">
                  <span className="sr-only">Действия</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {exports.length === 0 ? (
                <tr>
                  <td colSpan={8} className="p-4 text-center text-slate-600 dark:text-slate-400">
                    Экспортов пока нет
                  </td>
                </tr>
              ) : (
                exports.map((row) => (
                  <tr key={row.id} className="border-t border-slate-100 dark:border-slate-700" data-testid="export-row">
                    <td className="p-2" data-label="Выбрать">
                      <input type="checkbox" name="ids" value={row.id} aria-label={`Выбрать ${row.name}`} />
                    </td>
                    <td className="p-2 font-medium" data-label="Название">
                      {/*
                        The whole name, wrapping where the row needs it (issue 41 §14: it was cut at 12rem with room to
                        spare); at least 12rem wide at desk width, so a long one takes a few lines rather than many.
                      */}
                      <div className="md:min-w-[12rem] [overflow-wrap:anywhere]">
                        {row.name}{" "}
                        <span className="whitespace-nowrap text-xs font-normal text-slate-500 dark:text-slate-400" data-testid="export-format">
                          .{row.format}
                        </span>
                      </div>
                    </td>
                    <td className="p-2" data-label="Создан">
                      <div>
                        <DateTime at={row.createdAt} />
                      </div>
                    </td>
                    <td className="p-2" data-label="Прогресс">
                      <ProgressCell row={row} />
                    </td>
                    <td className="p-2" data-label="Начало">
                      <div>{row.startTime ? <DateTime at={row.startTime} /> : "—"}</div>
                    </td>
                    <td className="p-2" data-label="Окончание">
                      <div>{row.endTime ? <DateTime at={row.endTime} /> : "—"}</div>
                    </td>
                    <td className="p-2" title={row.error ?? undefined} data-testid="export-state" data-label="Состояние">
                      {exportState(row)}
                    </td>
                    <td className="p-2 md:text-right" data-label="">
                      {/* The actions wrap under each other when the row is narrow (no sideways scroll at 1280 px). */}
                      <div className="flex flex-wrap gap-x-3 gap-y-1 md:justify-end">
                        {row.isExported ? (
                          <a href={`/exportbase/${row.id}/download`} className="text-blue-600 dark:text-blue-400 hover:underline" download>
                            Скачать
                          </a>
                        ) : null}
                        <button type="submit" form={`restart-${row.id}`} className="text-slate-700 hover:underline dark:text-slate-300">
                          Перезапустить
                        </button>
                        <Link to={`/exportbase?confirm=${row.id}`} className="text-red-600 dark:text-red-400 hover:underline" preventScrollReset>
                          Удалить
                        </Link>
                      </div>
                    </td>
                  </tr>
                ))
              )}
            </tbody>
          </table>
        </TableFrame>
      </Form>
      {exports.map((row) => (
        <Form key={row.id} method="post" action="/exportbase" id={`restart-${row.id}`} preventScrollReset hidden>
          <input type="hidden" name="intent" value="restart" />
          <input type="hidden" name="id" value={row.id} />
        </Form>
      ))}

      <DialogOrSection open={dialog === "create"} title="Новый экспорт" onClose={close} closeHref="/exportbase" width="medium" testId="create-export">
        <CreateExportForm bases={bases} statuses={statuses} lastResult={resultOf(actionData, "create")} />
      </DialogOrSection>

      {confirm?.kind === "selected" && confirm.ids.length === 0 ? (
        <DialogOrSection open title="Подтвердите удаление" onClose={close} closeHref="/exportbase" testId="confirm-export-delete">
          <p className="text-sm">Выберите хотя бы один экспорт в таблице.</p>
        </DialogOrSection>
      ) : (
        <ConfirmAction
          open={confirm !== null}
          title="Подтвердите удаление"
          closeHref="/exportbase"
          intent={confirm?.kind === "all" ? "delete-all" : confirm?.kind === "selected" ? "delete-selected" : "delete"}
          fields={{ id: confirm?.ids ?? [] }}
          confirmLabel="Удалить"
          testId="confirm-export-delete"
        >
          {confirmText}
        </ConfirmAction>
      )}
    </section>
  );
}
