import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigate, useNavigation, useSearchParams } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { RichTextEditor } from "../components/editor/RichTextEditor";
import { ScriptContent } from "../components/scripts/ScriptViewer";
import { ConfirmDelete } from "../components/ui/ConfirmAction";
import { DialogOrSection } from "../components/ui/DialogOrSection";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { createScript, deleteScript, listScripts, updateScript } from "../scripts.server";
import { scriptSchema } from "../../common/schemas/scripts";
import { idFields, idSchema } from "../../common/validation";
import { FieldError, formProps, resultOf, unshownError, useSchemaForm, TextField } from "../components/ui/forms";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Настройка скриптов" }];

const PAGE = "/scripts";

/** The editor's one schema (decision 063): core's script input, and the id of the script being edited. */
const ScriptFormSchema = scriptSchema.extend({ id: idSchema.optional() });

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  return { scripts: await listScripts(context.deps.db, actorOf(user)), watermark: user.displayName || user.login };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const intent = formIntent(form);
  if (intent === "create" || intent === "update") {
    return submitForm(form, { name: "script", schema: ScriptFormSchema }, async ({ id, ...input }) => {
      await (id ? updateScript(db, actor, id, input) : createScript(db, actor, input));
      return redirectWithToast(PAGE, { type: "success", message: "Скрипт сохранён" });
    });
  }
  if (intent === "delete") {
    try {
      await deleteScript(db, actor, readFields(form, idFields).id);
    } catch (error) {
      return actionError(error);
    }
    return redirectWithToast(PAGE, { type: "success", message: "Скрипт удалён" });
  }
  return actionError(unknownIntent());
}

export default function ScriptsPage() {
  const { scripts, watermark } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigation = useNavigation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const creating = params.has("new");
  const editing = scripts.find((script) => String(script.id) === params.get("edit"));
  const viewing = scripts.find((script) => String(script.id) === params.get("view"));
  const deleting = scripts.find((script) => String(script.id) === params.get("delete"));
  const busy = navigation.state === "submitting";
  const close = () => navigate(PAGE, { preventScrollReset: true });
  const error = actionData && "error" in actionData ? actionData.error.message : null;

  return (
    <section>
      <div className="mb-4 flex flex-wrap items-center justify-between gap-4">
        <h1 className="page-title mb-0">Настройка скриптов</h1>
        <Link to="?new" preventScrollReset className="btn-primary whitespace-nowrap">
          Добавить скрипт
        </Link>
      </div>
      {error && !creating && !editing ? <ServerMessage key={answerKey} kind="error" message={error} /> : null}

      {scripts.length === 0 ? (
        <p className="card text-sm text-slate-600 dark:text-slate-400">Скриптов пока нет</p>
      ) : (
        <ul className="space-y-2" data-testid="script-list">
          {scripts.map((script) => (
            <li key={script.id} className="card flex flex-wrap items-center gap-3 p-3" data-testid="script-row">
              <span className="min-w-[12rem] flex-1 break-words font-medium">{script.name}</span>
              <Link to={`?view=${script.id}`} preventScrollReset className="btn-secondary px-2 py-1" aria-label={`Просмотр: ${script.name}`}>
                Просмотр
              </Link>
              <Link to={`?edit=${script.id}`} preventScrollReset className="btn-secondary px-2 py-1" aria-label={`Изменить: ${script.name}`}>
                Изменить
              </Link>
              <Link to={`?delete=${script.id}`} preventScrollReset className="btn-danger px-2 py-1" aria-label={`Удалить: ${script.name}`}>
                Удалить
              </Link>
            </li>
          ))}
        </ul>
      )}

      <DialogOrSection
        open={creating || Boolean(editing)}
        title={editing ? "Редактирование скрипта" : "Новый скрипт"}
        onClose={close}
        closeHref={PAGE}
        width="wide"
        testId="script-editor"
      >
        <ScriptEditor key={editing?.id ?? "new"} script={editing ?? null} lastResult={resultOf(actionData, "script")} busy={busy} />
      </DialogOrSection>

      <ConfirmDelete row={deleting} title="Удалить скрипт?" closeHref={PAGE} intent="delete" testId="delete-script">
        Скрипт «{deleting?.name}» будет удалён. Отменить это нельзя.
      </ConfirmDelete>

      <DialogOrSection open={Boolean(viewing)} title={viewing?.name ?? ""} onClose={close} closeHref={PAGE} width="wide" testId="script-view">
        {viewing ? <ScriptContent html={viewing.content} watermark={watermark} /> : null}
      </DialogOrSection>
    </section>
  );
}

/** The script editor: Название and the text, checked by the route's one schema in the browser and the action. */
function ScriptEditor({
  script,
  lastResult,
  busy,
}: {
  script: { id: number; name: string; content: string } | null;
  lastResult: SubmissionResult<string[]> | null;
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(ScriptFormSchema, {
    id: `script-${script?.id ?? "new"}`,
    lastResult,
    defaultValue: { id: script?.id, name: script?.name ?? "", content: script?.content ?? "" },
  });
  const unshown = unshownError(lastResult, ["name", "content"]);
  // Without JavaScript a refused post comes back with what was written (conform's initialValue).
  const content = typeof fields.content.initialValue === "string" ? fields.content.initialValue : (script?.content ?? "");
  return (
    <Form method="post" preventScrollReset className="space-y-3" {...formProps(form)}>
      {unshown ? <ServerMessage kind="error" message={unshown} /> : null}
      {script ? <input type="hidden" name="id" value={script.id} /> : null}
      <TextField field={fields.name} label="Название" id="script-name" autoComplete="off" />
      <div>
        <span className="label">Текст скрипта</span>
        <RichTextEditor name="content" defaultHtml={content} />
        <FieldError field={fields.content} />
      </div>
      <div className="flex justify-end gap-2">
        <Link to={PAGE} preventScrollReset className="btn-secondary">
          Отмена
        </Link>
        <button type="submit" name="intent" value={script ? "update" : "create"} className="btn-primary" disabled={busy}>
          Сохранить
        </button>
      </div>
    </Form>
  );
}
