import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigate, useRevalidator } from "@remix-run/react";
import { useEffect } from "react";
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
import {
  ConfirmDelete,
  CreateExportForm,
  exportState,
  LastExportSummary,
  ProgressCell,
} from "../components/bases/ExportParts";
import { DialogOrSection } from "../components/ui/DialogOrSection";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { readFormBody } from "../forms.server";
import { formatDateTime } from "../lib/format";
import { redirectWithToast } from "../toast.server";

export const meta: MetaFunction = () => [{ title: "Экспорт баз" }];

/** SPEC §9: export progress is polled every 30 s. */
const POLL_MS = 30_000;

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

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = form.get("intent");
  try {
    if (intent === "create") {
      const created = await createExport(db, actor, {
        name: form.get("name"),
        databaseIds: form.getAll("databaseIds"),
        statusIds: form.getAll("statusIds"),
      });
      return redirectWithToast("/exportbase", { type: "success", message: `Экспорт «${created.name}» создан` });
    }
    if (intent === "delete") {
      const result = await deleteExport(db, actor, form.get("id"));
      return redirectWithToast("/exportbase", { type: "success", message: result.message });
    }
    if (intent === "delete-selected") {
      const result = await deleteExports(db, actor, form.getAll("id"));
      return redirectWithToast("/exportbase", { type: "success", message: result.message });
    }
    if (intent === "delete-all") {
      const result = await deleteExports(db, actor, "all");
      return redirectWithToast("/exportbase", { type: "success", message: result.message });
    }
    if (intent === "restart") {
      const restarted = await restartExport(db, actor, form.get("id"));
      return redirectWithToast("/exportbase", { type: "success", message: `Экспорт «${restarted.name}» перезапущен` });
    }
    return redirectWithToast("/exportbase", { type: "error", message: "Неизвестное действие" });
  } catch (error) {
    return actionError(error);
  }
}

export default function ExportBasePage() {
  const { exports, bases, statuses, dialog, confirm } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigate = useNavigate();
  const revalidator = useRevalidator();

  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && revalidator.state === "idle") revalidator.revalidate();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [revalidator]);

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
      <h1 className="page-title">Экспорт баз</h1>
      {actionData && "error" in actionData ? (
        <ServerMessage key={answerKey} kind="error" message={actionData.error.message} />
      ) : null}

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

      <Form method="get" id="export-selection" className="card overflow-x-auto p-0" preventScrollReset>
        <table className="min-w-full text-sm" data-testid="exports-table">
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
                  <td className="p-2">
                    <input type="checkbox" name="ids" value={row.id} aria-label={`Выбрать ${row.name}`} />
                  </td>
                  <td className="p-2 font-medium">{row.name}</td>
                  <td className="whitespace-nowrap p-2">{formatDateTime(row.createdAt)}</td>
                  <td className="p-2">
                    <ProgressCell progress={row.progress} />
                  </td>
                  <td className="whitespace-nowrap p-2">{row.startTime ? formatDateTime(row.startTime) : "—"}</td>
                  <td className="whitespace-nowrap p-2">{row.endTime ? formatDateTime(row.endTime) : "—"}</td>
                  <td className="p-2" title={row.error ?? undefined} data-testid="export-state">
                    {exportState(row)}
                  </td>
                  <td className="whitespace-nowrap p-2 text-right">
                    {row.isExported ? (
                      <a href={`/exportbase/${row.id}/download`} className="mr-3 text-blue-600 dark:text-blue-400 hover:underline" download>
                        Скачать
                      </a>
                    ) : null}
                    <button type="submit" form={`restart-${row.id}`} className="mr-3 text-slate-700 hover:underline dark:text-slate-300">
                      Перезапустить
                    </button>
                    <Link to={`/exportbase?confirm=${row.id}`} className="text-red-600 dark:text-red-400 hover:underline" preventScrollReset>
                      Удалить
                    </Link>
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </Form>
      {exports.map((row) => (
        <Form key={row.id} method="post" action="/exportbase" id={`restart-${row.id}`} preventScrollReset hidden>
          <input type="hidden" name="intent" value="restart" />
          <input type="hidden" name="id" value={row.id} />
        </Form>
      ))}

      <DialogOrSection open={dialog === "create"} title="Новый экспорт" onClose={close} closeHref="/exportbase" testId="create-export">
        <CreateExportForm bases={bases} statuses={statuses} />
      </DialogOrSection>

      <DialogOrSection open={confirm !== null} title="Подтвердите удаление" onClose={close} closeHref="/exportbase" testId="confirm-export-delete">
        {confirm?.kind === "selected" && confirm.ids.length === 0 ? (
          <p className="text-sm">Выберите хотя бы один экспорт в таблице.</p>
        ) : confirm ? (
          <ConfirmDelete
            text={confirmText}
            intent={confirm.kind === "all" ? "delete-all" : confirm.kind === "selected" ? "delete-selected" : "delete"}
            ids={confirm.ids}
          />
        ) : null}
      </DialogOrSection>
    </section>
  );
}
