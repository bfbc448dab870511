import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Link, useActionData, useLoaderData, useLocation, useSearchParams } from "@remix-run/react";
import { useEffect } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { SAME_AS_TEXT, StatusDraftSchema, StatusRow, StatusRowSchema } from "../components/statuses/StatusRow";
import { resultOf } from "../components/ui/forms";
import { ConfirmDelete } from "../components/ui/ConfirmAction";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { idFields } from "../../common/validation";
import {
  createStatus,
  DEFAULT_STATUS_COLOR,
  deleteStatus,
  listStatusesInPanelOrder,
  NEW_STATUS_TEXT,
  toggleStatusDoNotCall,
  toggleStatusCallback,
  toggleStatusReport,
  toggleStatusTechnical,
  toggleStatusVisibility,
  updateStatus,
} from "../statuses.server";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Статусы" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  // Issue 41: the lead panel's order, each visible status with its digit (issue 31).
  const { visible, hidden } = await listStatusesInPanelOrder(context.deps.db, actorOf(user));
  // What a new status starts as (SPEC: «Новый статус», #f59e0b): a draft row until «Сохранить».
  return { visible, hidden, draft: { text: NEW_STATUS_TEXT, color: DEFAULT_STATUS_COLOR } };
}

const PAGE = "/edit-statuses";
const ROW_BUTTONS = new Set(["visibility", "report", "technical", "do-not-call", "callback", "delete"]);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
  if (intent === "create") {
    // Issue 41: «Добавить статус» opens a draft row; the status exists once its «Сохранить» posts it here.
    return submitForm(form, { name: "status-new", schema: StatusDraftSchema }, async (values) => {
      await createStatus(db, actor, values);
      return redirectWithToast(PAGE, { type: "success", message: "Статус успешно создан" });
    });
  }
  if (intent === "update") {
    // A row's form is named by its id, as sent: the page gives each row its own answer.
    return submitForm(form, { name: (fields) => `status-${fields.id}`, schema: StatusRowSchema }, async ({ id, ...changes }) => {
      await updateStatus(db, actor, id, changes);
      return redirectWithToast(PAGE, { type: "success", message: "Статус сохранён" });
    });
  }
  try {
    // Every other form of the page is a button on a row: its id only.
    const id = ROW_BUTTONS.has(intent) ? readFields(form, idFields).id : 0;
    switch (intent) {
      case "visibility":
        await toggleStatusVisibility(db, actor, id);
        return redirect(PAGE);
      // Either flag moves the row to its group (technical, normal, report: decision 085): the page goes to it.
      case "report":
        await toggleStatusReport(db, actor, id);
        return redirect(`${PAGE}#status-row-${id}`);
      case "technical":
        await toggleStatusTechnical(db, actor, id);
        return redirect(`${PAGE}#status-row-${id}`);
      case "do-not-call":
        await toggleStatusDoNotCall(db, actor, id);
        return redirect(PAGE);
      case "callback":
        await toggleStatusCallback(db, actor, id);
        return redirect(PAGE);
      case "delete":
        await deleteStatus(db, actor, id);
        return redirectWithToast(PAGE, { type: "success", message: "Статус удалён" });
      default:
        throw unknownIntent();
    }
  } catch (error) {
    return actionError(error);
  }
}

export default function EditStatusesPage() {
  const { visible, hidden, draft } = useLoaderData<typeof loader>();
  const location = useLocation();
  // With JavaScript the switch's answer arrives without a page load: the row it moved is scrolled to and focused,
  // as the browser does for the anchor without JavaScript.
  useEffect(() => {
    if (!location.hash.startsWith("#status-row-")) return;
    const row = document.getElementById(location.hash.slice(1));
    row?.scrollIntoView({ block: "center" });
    row?.focus({ preventScroll: true });
  }, [location.key, location.hash]);
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const [searchParams] = useSearchParams();
  const editId = Number(searchParams.get("edit") ?? 0);
  const deleting = [...visible, ...hidden].find((status) => String(status.id) === searchParams.get("delete"));
  // Issue 41: the new status is a draft row (?new, a link: without JavaScript too) until saved; nothing is written
  // before, so an abandoned one never reaches the managers' row. A refused save keeps it open.
  const draftResult = resultOf(actionData, "status-new");
  const drafting = searchParams.has("new") || draftResult !== null;

  return (
    <section>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-4">
        <h1 className="page-title mb-0">Статусы</h1>
        <Link to="?new" preventScrollReset className="btn-primary">
          Добавить статус
        </Link>
      </div>
      {/* Issue 41 §11 (decision 081): what each of a row's two texts names, and that one name is the rule. */}
      <p className="mb-4 max-w-3xl text-sm text-slate-600 dark:text-slate-400" data-testid="status-names-hint">
        {`Текст статуса — его имя в тематиках, статистике, истории клиента и экспорте, а пока текст кнопки пуст («${SAME_AS_TEXT}»), ` +
          "то и на кнопке менеджера, и в столбце таблицы «Мои базы». Свой текст кнопки задавайте, только если там нужна нарочно " +
          "более короткая надпись: у статуса станет два имени."}
      </p>
      {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}
      <ul className="space-y-2" data-testid="visible-statuses">
        {drafting ? (
          <StatusRow
            key="new"
            status={{
              id: 0,
              text: draft.text,
              buttonText: "",
              color: draft.color,
              isHidden: false,
              isReportStatus: false,
              isTechnical: false,
              isDoNotCall: false,
              asksCallback: false,
              hotkey: null,
            }}
            draft
            initiallyEditing
            isNew
            keyDigit={null}
            lastResult={draftResult}
          />
        ) : null}
        {visible.map((status) => (
          <StatusRow
            key={`${status.id}:${status.text}:${status.buttonText}:${status.color}:${status.hotkey}`}
            status={status}
            initiallyEditing={status.id === editId}
            keyDigit={status.key}
            lastResult={resultOf(actionData, `status-${status.id}`)}
          />
        ))}
      </ul>
      <details className="mt-6" data-testid="hidden-statuses" open={hidden.some((status) => status.id === editId) || undefined}>
        <summary className="cursor-pointer select-none text-lg font-semibold">
          Скрытые статусы <span className="text-sm font-normal text-slate-600 dark:text-slate-400">({hidden.length})</span>
        </summary>
        {hidden.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">Скрытых статусов нет</p>
        ) : (
          <ul className="mt-2 space-y-2">
            {hidden.map((status) => (
              <StatusRow
                key={`${status.id}:${status.text}:${status.buttonText}:${status.color}:${status.hotkey}`}
                status={status}
                initiallyEditing={status.id === editId}
                keyDigit={null}
                lastResult={resultOf(actionData, `status-${status.id}`)}
              />
            ))}
          </ul>
        )}
      </details>
      <ConfirmDelete row={deleting} title="Удалить статус?" closeHref={PAGE} intent="delete" testId="delete-status">
        Статус «{deleting?.text}» будет удалён. Отменить это нельзя.
      </ConfirmDelete>
    </section>
  );
}
