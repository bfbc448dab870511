import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { StatusRow, StatusRowSchema } from "../components/statuses/StatusRow";
import { resultOf } from "../components/ui/forms";
import { ConfirmDelete } from "../components/ui/ConfirmAction";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { idFields } from "../../common/validation";
import {
  createDefaultStatus,
  deleteStatus,
  listStatuses,
  toggleStatusDoNotCall,
  toggleStatusCallback,
  toggleStatusReport,
  toggleStatusTechnical,
  toggleStatusVisibility,
  updateStatus,
  withKeys,
} from "../statuses.server";
import { redirectWithToast } from "../toast.server";

export const meta: MetaFunction = () => [{ title: "Статусы" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const all = await listStatuses(context.deps.db, actorOf(user));
  // The lead panel's digits as they stand (issue 31): the admin sees which key each status has.
  const keys = Object.fromEntries(withKeys(all.filter((status) => !status.isHidden)).map((status) => [status.id, status.key]));
  return { statuses: all, keys };
}

const PAGE = "/edit-statuses";
const ROW_BUTTONS = new Set(["visibility", "report", "technical", "do-not-call", "callback", "delete"]);

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
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
      case "create": {
        const created = await createDefaultStatus(db, actor);
        return redirectWithToast(`${PAGE}?edit=${created.id}&new=1`, { type: "success", message: "Статус успешно создан" });
      }
      case "visibility":
        await toggleStatusVisibility(db, actor, id);
        return redirect(PAGE);
      case "report":
        await toggleStatusReport(db, actor, id);
        return redirect(PAGE);
      case "technical":
        await toggleStatusTechnical(db, actor, id);
        return redirect(PAGE);
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
  const { statuses, keys } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigation = useNavigation();
  const [searchParams] = useSearchParams();
  const editId = Number(searchParams.get("edit") ?? 0);
  const deleting = statuses.find((status) => String(status.id) === searchParams.get("delete"));
  // Issue 31: the status just added comes first, under the button that made it, its name field focused; once
  // saved it takes its place in the list.
  const isNew = searchParams.has("new");
  const visible = statuses.filter((status) => !status.isHidden).sort((a, b) => Number(isNew && b.id === editId) - Number(isNew && a.id === editId));
  const hidden = statuses.filter((status) => status.isHidden);
  const creating = navigation.state !== "idle" && navigation.formData?.get("intent") === "create";

  return (
    <section>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-4">
        <h1 className="page-title mb-0">Статусы</h1>
        <Form method="post" preventScrollReset>
          <button type="submit" name="intent" value="create" className="btn-primary" disabled={creating}>
            Добавить статус
          </button>
        </Form>
      </div>
      {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}
      <ul className="space-y-2" data-testid="visible-statuses">
        {visible.map((status) => (
          <StatusRow
            key={`${status.id}:${status.text}:${status.buttonText}:${status.color}:${status.hotkey}`}
            status={status}
            initiallyEditing={status.id === editId}
            isNew={isNew && status.id === editId}
            keyDigit={keys[status.id] ?? null}
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
