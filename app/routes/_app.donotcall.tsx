import * as z from "zod";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { Pager } from "../components/ui/Pager";
import { ConfirmAction } from "../components/ui/ConfirmAction";
import { TableFrame, TableHead } from "../components/ui/Table";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import {
  addDoNotCall,
  type BulkReport,
  getDoNotCall,
  importDoNotCall,
  listDoNotCall,
  pasteDoNotCall,
  readForm,
  removeDoNotCall,
  removeUpload,
  uploadPath,
} from "../dnc.server";
import { actionError, orAppMessage } from "../errors.server";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { idFields } from "../../common/validation";
import { redirectWithToast } from "../toast.server";
import { formatKyiv } from "../../common/business-zone";
import { addOneSchema, pasteSchema } from "../../common/schemas/dnc";
import { FieldError, formProps, inputProps, resultOf, textareaProps, unshownError, useSchemaForm, type AnyField } from "../components/ui/forms";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Не звонить" }];

const PAGE = "/donotcall";

/** The query string is the page's state (search, page, the removal question), so it works without JavaScript. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db, config } = context.deps;
  const params = new URL(request.url).searchParams;
  const q = params.get("q") ?? "";
  const asked = await orAppMessage(listDoNotCall(db, actor, { q, page: params.get("page") || undefined }, { phoneRegion: config.phoneRegion }));
  // A search or page the core refuses shows its message over the first page of the whole list.
  const list = asked.value ?? (await listDoNotCall(db, actor, {}, { phoneRegion: config.phoneRegion }));
  // The removal question for a number that is gone (or a hand-edited id) is simply not asked.
  const removing = params.get("delete") ? (await orAppMessage(getDoNotCall(db, actor, params.get("delete")))).value : null;
  return { ...list, q, error: asked.message, removing };
}

const StoredFileField = z.object({ file: z.string().default("") });

type ActionAnswer = { report: BulkReport; what: string } | { error: { code: string; message: string } };

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db, config } = context.deps;
  const region = { phoneRegion: config.phoneRegion };
  const multipart = (request.headers.get("Content-Type") ?? "").startsWith("multipart/form-data");
  let form: FormData;
  try {
    form = multipart ? await readForm(request) : await readFormBody(request);
  } catch (error) {
    if (error instanceof Response) throw error;
    return actionError(error);
  }
  const intent = formIntent(form);
  try {
    switch (intent) {
      case "add":
        return await submitForm(
          form,
          { name: "add", schema: addOneSchema, fieldOf: { phone_invalid: "phone", already_listed: "phone" } },
          async (value) => {
            const item = await addDoNotCall(db, actor, value, region);
            return redirectWithToast(PAGE, { type: "success", message: `Номер ${item.phone} добавлен в список «Не звонить»` });
          },
        );
      case "paste":
        return await submitForm(
          form,
          { name: "paste", schema: pasteSchema, fieldOf: { numbers_required: "text", too_many_numbers: "text" } },
          async (value) => {
            const report = await pasteDoNotCall(db, actor, value, region);
            return data<ActionAnswer>({ report, what: "Вставленный список" });
          },
        );
      case "import": {
        // The upload as readForm stored it: "uploadId:original name" (none: core says a file is needed).
        const stored = readFields(form, StoredFileField).file;
        const [uploadId, ...rest] = stored.split(":");
        let path: string | null = null;
        try {
          path = stored ? uploadPath(uploadId) : null;
          const report = await importDoNotCall(db, actor, { file: path ? { path } : null }, region);
          return data<ActionAnswer>({ report, what: `Файл ${rest.join(":")}` });
        } finally {
          removeUpload(path);
        }
      }
      case "delete": {
        const done = await removeDoNotCall(db, actor, readFields(form, idFields).id);
        return redirectWithToast(PAGE, { type: "success", message: done.message });
      }
      default:
        throw unknownIntent();
    }
  } catch (error) {
    return actionError(error);
  }
}

function Report({ report, what }: { report: BulkReport; what: string }) {
  return (
    <div className="card" role="status" data-testid="dnc-report">
      <h2 className="mb-2 font-semibold">{`${what}: готово`}</h2>
      <ul className="space-y-1 text-sm">
        <li>
          Добавлено номеров: <b data-testid="dnc-added">{report.added}</b>
        </li>
        <li>
          Уже были в списке: <b data-testid="dnc-already">{report.already}</b>
        </li>
        <li>
          Не похожи на номер: <b data-testid="dnc-invalid">{report.invalid}</b>
        </li>
      </ul>
      {report.invalidSamples.length ? (
        <details className="mt-2 text-sm">
          <summary className="cursor-pointer">Строки, которые не похожи на номер</summary>
          <ul className="mt-1 list-inside list-disc">
            {report.invalidSamples.map((line, i) => (
              <li key={i}>{line}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}

/**
 * One of the page's one-field forms («Добавить номер», «Вставить список»), checked by core's schema in the browser
 * too (decision 063): its field's error under it, any other (a stale page's) above the button.
 */
function OneFieldForm(props: {
  /** The action's answer: this form's (named by its intent) or another's. */
  answer: unknown;
  busy: boolean;
  schema: typeof addOneSchema | typeof pasteSchema;
  intent: string;
  field: string;
  title: string;
  label: string;
  submit: string;
  children: (field: AnyField, id: string) => ReactNode;
}) {
  const lastResult = resultOf(props.answer, props.intent);
  const [form, fields] = useSchemaForm(props.schema, { id: `dnc-${props.intent}`, lastResult });
  const field = (fields as unknown as Record<string, AnyField>)[props.field];
  const unshown = unshownError(lastResult, [props.field]);
  const id = `dnc-${props.field}`;
  return (
    <Form method="post" className="card space-y-2" preventScrollReset {...formProps(form)}>
      <h2 className="font-semibold">{props.title}</h2>
      <label htmlFor={id} className="label">
        {props.label}
      </label>
      {props.children(field, id)}
      <FieldError field={field} />
      {unshown ? <ServerMessage kind="error" message={unshown} /> : null}
      <button type="submit" name="intent" value={props.intent} className="btn-primary" disabled={props.busy}>
        {props.submit}
      </button>
    </Form>
  );
}

export default function DoNotCallPage() {
  const list = useLoaderData<typeof loader>();
  const answer = useActionData<ActionAnswer>();
  const answerKey = useAnswerKey(answer);
  const busy = useNavigation().state === "submitting";
  const href = (page: number) => {
    const params = new URLSearchParams();
    if (list.q) params.set("q", list.q);
    if (page > 1) params.set("page", String(page));
    const query = params.toString();
    return query ? `${PAGE}?${query}` : PAGE;
  };
  const back = href(list.page);

  return (
    <section className="max-w-5xl space-y-4">
      <h1 className="page-title">Не звонить</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Номера из этого списка никогда не выдаются менеджерам и не импортируются в новые базы. Номер узнаётся в любой привычной записи.
      </p>
      {answer && "error" in answer ? <ServerMessage key={answerKey} kind="error" message={answer.error.message} /> : null}
      {answer && "report" in answer ? <Report report={answer.report} what={answer.what} /> : null}
      <div className="grid gap-4 md:grid-cols-3">
        <OneFieldForm
          // A new list (the number added) starts the form anew: its field is cleared after a good add (issue 41).
          key={`add-${list.total}-${list.items[0]?.id ?? 0}`}
          answer={answer}
          busy={busy}
          schema={addOneSchema}
          intent="add"
          field="phone"
          title="Добавить номер"
          label="Номер телефона"
          submit="Добавить"
        >
          {(field, id) => <input {...inputProps(field, "tel")} id={id} className="input w-full" placeholder="050 123 45 67" />}
        </OneFieldForm>
        <OneFieldForm
          answer={answer}
          busy={busy}
          schema={pasteSchema}
          intent="paste"
          field="text"
          title="Вставить список"
          label="Номера, по одному в строке"
          submit="Добавить все"
        >
          {(field, id) => <textarea {...textareaProps(field)} id={id} rows={4} className="input w-full" />}
        </OneFieldForm>
        <Form method="post" encType="multipart/form-data" className="card space-y-2" preventScrollReset>
          <h2 className="font-semibold">Загрузить файл</h2>
          <label htmlFor="dnc-file" className="label">
            .xlsx, .xls или текст (номер в строке)
          </label>
          <input id="dnc-file" name="file" type="file" accept=".xlsx,.xls,.txt,.csv,text/plain" className="w-full text-sm" required />
          <button type="submit" name="intent" value="import" className="btn-primary" disabled={busy}>
            Загрузить
          </button>
        </Form>
      </div>

      <Form method="get" className="flex flex-wrap items-end gap-2" role="search">
        <div>
          <label htmlFor="dnc-q" className="label">
            Поиск номера
          </label>
          <input id="dnc-q" name="q" className="input w-full sm:w-72" defaultValue={list.q} placeholder="Номер или часть цифр" />
        </div>
        <button type="submit" className="btn-secondary">
          Найти
        </button>
        {list.q ? (
          <Link to={PAGE} className="btn-secondary">
            Сбросить
          </Link>
        ) : null}
      </Form>
      {list.error ? (
        <p className="text-sm text-red-700 dark:text-red-400" role="alert">
          {list.error}
        </p>
      ) : null}

      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="dnc-total">
        {`${list.q ? "Найдено" : "Номеров в списке"}: ${list.total}`}
      </p>
      {list.items.length === 0 ? (
        <div className="card text-center text-slate-600 dark:text-slate-400" data-testid="dnc-empty">
          {list.q ? "Ничего не найдено" : "Список пуст"}
        </div>
      ) : (
        // On a phone one card per number, each value labelled (.stack-table): the page never scrolls sideways.
        <TableFrame className="card p-0">
          <table className="stack-table w-full text-sm [--stack-label:9rem]" data-testid="dnc-list">
            <TableHead columns={["Номер", "Нормализованный", "Кто добавил", "Когда"]} />
            <tbody>
              {list.items.map((item) => (
                <tr key={item.id} className="border-t border-slate-100 dark:border-slate-700" data-testid="dnc-row">
                  <td data-label="Номер" className="px-3 py-2">
                    {item.phone}
                  </td>
                  <td data-label="Нормализованный" className="px-3 py-2 font-mono">
                    +{item.phoneKey}
                  </td>
                  <td data-label="Кто добавил" className="px-3 py-2">
                    {item.addedBy || "—"}
                  </td>
                  <td data-label="Когда" className="px-3 py-2">
                    {formatKyiv(item.addedAt)}
                  </td>
                  <td className="px-3 py-2 text-right" data-label="">
                    <Link
                      to={`${back}${back.includes("?") ? "&" : "?"}delete=${item.id}`}
                      preventScrollReset
                      className="text-red-700 hover:underline dark:text-red-400"
                    >
                      Убрать
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
      <Pager page={list.page} pages={list.pages} hrefFor={href} maxButtons={5} />
      <ConfirmAction
        open={Boolean(list.removing)}
        title="Убрать номер из списка?"
        closeHref={back}
        intent="delete"
        fields={{ id: list.removing?.id ?? "" }}
        confirmLabel="Убрать"
        testId="remove-dnc"
      >
        {`Номер ${list.removing?.phone ?? ""} снова смогут выдавать менеджерам.`}
      </ConfirmAction>
    </section>
  );
}
