import * as z from "zod";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { ConfirmAction, ConfirmDelete } from "../components/ui/ConfirmAction";
import { TableFrame, TableHead } from "../components/ui/Table";
import { Pager, pageParams } from "../components/ui/Pager";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError, orAppMessage } from "../errors.server";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { idFields, idSchema } from "../../common/validation";
import { redirectWithToast } from "../toast.server";
import { formatKyiv } from "../../common/business-zone";
import { WEBHOOK_EVENT_TYPES, WEBHOOK_EVENTS, webhookInputSchema } from "../../common/schemas/webhooks";
import { FieldError, formProps, isChosen, resultOf, unshownError, useSchemaForm, TextField } from "../components/ui/forms";
import {
  createApiKey,
  createWebhook,
  deleteWebhook,
  listApiKeys,
  listWebhooks,
  resendDelivery,
  revokeApiKey,
  rotateWebhookSecret,
  setWebhookEnabled,
  updateWebhook,
  webhookLog,
  type WebhookView,
} from "../webhooks.server";
import { API_KEY_SCOPE_NAMES, API_KEY_SCOPES, apiKeyInputSchema } from "../../common/schemas/api-keys";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Интеграции" }];

const PAGE = "/integrations";
/** Deliveries a page of the log shows (the first is the default). */
const LOG_SIZES = [50] as const;

/** The create form: an unticked «Включён» is sent as nothing, which is «off» here (the API's default is on). */
const webhookFormSchema = webhookInputSchema.extend({ enabled: z.boolean().default(false) });
/** The edit form: the create form's fields and the webhook's id. */
const webhookEditSchema = webhookFormSchema.extend({ id: idSchema });

const toggleFields = idFields.extend({ on: z.enum(["0", "1"]) });
const resendFields = idFields.extend({ delivery: idSchema });

/** The query string is the page's state (which log is open, the removal question), so it works without JavaScript. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const params = new URL(request.url).searchParams;
  const hooks = await listWebhooks(db, actor);
  const logOf = hooks.find((h) => String(h.id) === params.get("log")) ?? null;
  const paging = pageParams(params, LOG_SIZES, LOG_SIZES[0]);
  const logAt = async (page: number) =>
    logOf ? ((await orAppMessage(webhookLog(db, actor, logOf.id, { limit: paging.size, offset: (page - 1) * paging.size }))).value ?? null) : null;
  let logPage = await logAt(paging.page);
  // A page past the end (the log was cleared, an old link) shows the last one.
  const lastPage = Math.max(1, Math.ceil((logPage?.total ?? 0) / paging.size));
  if (paging.page > lastPage) [logPage, paging.page] = [await logAt(lastPage), lastPage];
  const log = logPage?.deliveries ?? [];
  const logTotal = logPage?.total ?? 0;
  const logPaging = { ...paging, pages: Math.max(1, Math.ceil(logTotal / paging.size)), total: logTotal };
  const removing = hooks.find((h) => String(h.id) === params.get("delete")) ?? null;
  // APPLICATION_FORWARD_URL's webhook is the variable's: the app sets its address and event again at start.
  const editing = hooks.find((h) => String(h.id) === params.get("edit") && !h.fromEnv) ?? null;
  const keys = await listApiKeys(db, actor);
  const revoking = keys.find((k) => String(k.id) === params.get("revoke") && !k.revokedAt) ?? null;
  return { hooks, logOf, log, logPaging, removing, editing, keys, revoking };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  try {
    switch (formIntent(form)) {
      case "create":
        return await submitForm(form, { name: "create", schema: webhookFormSchema }, async (value) => {
          const made = await createWebhook(db, actor, value);
          return redirectWithToast(`${PAGE}?log=${made.id}`, { type: "success", message: "Вебхук добавлен" });
        });
      case "edit":
        return await submitForm(form, { name: "edit", schema: webhookEditSchema }, async ({ id, ...value }) => {
          await updateWebhook(db, actor, id, value);
          return redirectWithToast(`${PAGE}?log=${id}`, { type: "success", message: "Вебхук изменён" });
        });
      case "toggle": {
        const { id, on } = readFields(form, toggleFields);
        await setWebhookEnabled(db, actor, id, on === "1");
        return redirectWithToast(PAGE, { type: "success", message: on === "1" ? "Вебхук включён" : "Вебхук выключен" });
      }
      case "secret": {
        const { id } = readFields(form, idFields);
        await rotateWebhookSecret(db, actor, id);
        return redirectWithToast(`${PAGE}?log=${id}`, { type: "success", message: "Секрет подписи заменён: сообщите новый получателю" });
      }
      case "resend": {
        const { id, delivery } = readFields(form, resendFields);
        await resendDelivery(db, actor, id, delivery);
        return redirectWithToast(`${PAGE}?log=${id}`, { type: "success", message: "Событие поставлено в очередь" });
      }
      case "createKey":
        return await submitForm(form, { name: "createKey", schema: apiKeyInputSchema }, async (value) => {
          const made = await createApiKey(db, actor, value);
          // Not a redirect: the key is shown in this answer only, and never again.
          return data({ madeKey: { key: made.key, name: made.apiKey.name } });
        });
      case "revokeKey": {
        const { id } = readFields(form, idFields);
        await revokeApiKey(db, actor, id);
        return redirectWithToast(`${PAGE}#keys`, { type: "success", message: "Ключ отозван" });
      }
      case "delete": {
        const { id } = readFields(form, idFields);
        await deleteWebhook(db, actor, id);
        return redirectWithToast(PAGE, { type: "success", message: "Вебхук удалён" });
      }
      default:
        throw unknownIntent();
    }
  } catch (error) {
    return actionError(error);
  }
}

const STATE_TEXT = { pending: "В очереди", delivered: "Доставлено", failed: "Не доставлено" } as const;

/** The webhook's form: a new one, or with `editing` that one's address, events and state (the same fields). */
function WebhookForm({ answer, busy, editing }: { answer: unknown; busy: boolean; editing?: WebhookView }) {
  const name = editing ? "edit" : "create";
  const lastResult = resultOf(answer, name);
  const [form, fields] = useSchemaForm(editing ? webhookEditSchema : webhookFormSchema, {
    id: editing ? `webhook-edit-${editing.id}` : "webhook-create",
    lastResult,
    defaultValue: editing ? { url: editing.url, events: editing.events, enabled: editing.enabled ? "on" : undefined } : { enabled: "on" },
  });
  const unshown = unshownError(lastResult, ["url", "events"]);
  return (
    <Form
      method="post"
      className={editing ? "space-y-3 border-t border-slate-200 pt-3 dark:border-slate-700" : "card space-y-3"}
      {...formProps(form)}
      data-testid={editing ? "webhook-edit" : undefined}
    >
      <h2 className="font-semibold">{editing ? "Изменить вебхук" : "Новый вебхук"}</h2>
      {editing ? <input type="hidden" name="id" value={editing.id} /> : null}
      <TextField
        field={fields.url}
        type="url"
        label="Адрес получателя"
        id={editing ? `webhook-url-${editing.id}` : "webhook-url"}
        className="input w-full"
        placeholder="https://crm.example.com/hooks/leaddesk"
      />
      <fieldset aria-describedby={fields.events.errors?.length ? fields.events.errorId : undefined}>
        <legend className="label">События</legend>
        <div className="grid gap-1 sm:grid-cols-2">
          {WEBHOOK_EVENT_TYPES.map((type) => (
            <label key={type} className="flex items-start gap-2 text-sm">
              <input
                type="checkbox"
                name={fields.events.name}
                value={type}
                defaultChecked={isChosen(fields.events.initialValue, type)}
                className="mt-0.5"
              />
              <span>
                {WEBHOOK_EVENTS[type]} <code className="text-xs text-slate-500 dark:text-slate-400">{type}</code>
              </span>
            </label>
          ))}
        </div>
        <FieldError field={fields.events} />
      </fieldset>
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" name={fields.enabled.name} defaultChecked={fields.enabled.initialValue === "on"} />
        Включён
      </label>
      {unshown ? <ServerMessage kind="error" message={unshown} /> : null}
      <div className="flex flex-wrap gap-2">
        <button type="submit" name="intent" value={name} className="btn-primary" disabled={busy}>
          {editing ? "Сохранить" : "Добавить вебхук"}
        </button>
        {editing ? (
          <Link to={PAGE} className="btn-secondary">
            Отмена
          </Link>
        ) : null}
      </div>
    </Form>
  );
}

function CreateApiKey({ answer, busy }: { answer: unknown; busy: boolean }) {
  const lastResult = resultOf(answer, "createKey");
  const [form, fields] = useSchemaForm(apiKeyInputSchema, { id: "api-key-create", lastResult, defaultValue: { scopes: ["read"] } });
  const unshown = unshownError(lastResult, ["name", "scopes"]);
  return (
    <Form method="post" action={`${PAGE}#keys`} className="card space-y-3" {...formProps(form)}>
      <h3 className="font-semibold">Новый ключ</h3>
      <TextField field={fields.name} label="Название" id="api-key-name" className="input w-full" placeholder="amoCRM" />
      <fieldset>
        <legend className="label">Права</legend>
        <div className="flex flex-wrap gap-x-4 gap-y-1">
          {API_KEY_SCOPE_NAMES.map((scope) => (
            <label key={scope} className="flex items-center gap-2 text-sm">
              <input type="checkbox" name={fields.scopes.name} value={scope} defaultChecked={isChosen(fields.scopes.initialValue, scope)} />
              {API_KEY_SCOPES[scope]}
            </label>
          ))}
        </div>
        <FieldError field={fields.scopes} />
      </fieldset>
      {unshown ? <ServerMessage kind="error" message={unshown} /> : null}
      <button type="submit" name="intent" value="createKey" className="btn-primary" disabled={busy}>
        Создать ключ
      </button>
    </Form>
  );
}

export default function IntegrationsPage() {
  const { hooks, logOf, log, logPaging, removing, editing, keys, revoking } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const busy = useNavigation().state === "submitting";
  const error = answer && typeof answer === "object" && "error" in answer ? (answer.error as { message: string }).message : null;
  const madeKey = answer && typeof answer === "object" && "madeKey" in answer ? (answer.madeKey as { key: string; name: string }) : null;
  return (
    <section className="max-w-5xl space-y-4">
      <h1 className="page-title">Интеграции</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Вебхуки отправляют события (статусы, отчёты, звонки, записи, перезвоны, загрузку баз) в CRM или бота. Каждое событие подписано по спецификации{" "}
        <span lang="en">Standard Webhooks</span>; если получатель не отвечает, отправка повторяется сутки. Как проверить подпись — в{" "}
        <code>docs/integrations.md</code>.
      </p>
      {error ? <ServerMessage key={answerKey} kind="error" message={error} /> : null}
      <WebhookForm answer={answer} busy={busy} />

      <h2 className="text-lg font-semibold">Вебхуки</h2>
      {hooks.length === 0 ? (
        <div className="card text-center text-slate-600 dark:text-slate-400" data-testid="webhooks-empty">
          Вебхуков пока нет
        </div>
      ) : (
        <ul className="space-y-3" data-testid="webhooks">
          {hooks.map((hook) => (
            <li key={hook.id} id={`webhook-${hook.id}`} className="card space-y-2" data-testid="webhook">
              <div className="flex flex-wrap items-start justify-between gap-2">
                <div className="min-w-0">
                  <p className="break-all font-mono text-sm">{hook.url}</p>
                  {hook.fromEnv ? (
                    <p className="text-xs text-slate-500 dark:text-slate-400">
                      <code>APPLICATION_FORWARD_URL</code>: заявки в прежнем формате
                    </p>
                  ) : null}
                  <p className="text-sm text-slate-600 dark:text-slate-400">{hook.events.map((e) => WEBHOOK_EVENTS[e]).join(", ")}</p>
                </div>
                <span
                  className={`rounded px-2 py-0.5 text-xs font-semibold ${
                    hook.enabled
                      ? "bg-green-100 text-green-800 dark:bg-green-900 dark:text-green-100"
                      : "bg-slate-200 text-slate-700 dark:bg-slate-700 dark:text-slate-100"
                  }`}
                  data-testid="webhook-state"
                >
                  {hook.enabled ? "Включён" : "Выключен"}
                </span>
              </div>
              {hook.disabledReason ? (
                <p className="text-sm text-red-700 dark:text-red-400" role="alert">
                  {hook.disabledReason}
                </p>
              ) : hook.failingSince ? (
                <p className="text-sm text-amber-700 dark:text-amber-300">{`Отправки не проходят с ${formatKyiv(hook.failingSince)}`}</p>
              ) : null}
              <p className="text-sm">{`В очереди: ${hook.pending} · Не доставлено: ${hook.failed}`}</p>
              <details className="text-sm">
                <summary className="cursor-pointer">Секрет подписи</summary>
                <code className="block break-all rounded bg-slate-100 p-2 dark:bg-slate-800" data-testid="webhook-secret">
                  {hook.secret}
                </code>
              </details>
              <div className="flex flex-wrap gap-2">
                <Link to={`${PAGE}?log=${hook.id}#log`} className="btn-secondary">
                  Журнал отправок
                </Link>
                {hook.fromEnv ? null : (
                  <Link to={`${PAGE}?edit=${hook.id}#webhook-${hook.id}`} preventScrollReset className="btn-secondary">
                    Изменить
                  </Link>
                )}
                <Form method="post">
                  <input type="hidden" name="id" value={hook.id} />
                  <input type="hidden" name="on" value={hook.enabled ? "0" : "1"} />
                  <button type="submit" name="intent" value="toggle" className="btn-secondary" disabled={busy}>
                    {hook.enabled ? "Выключить" : "Включить"}
                  </button>
                </Form>
                <Form method="post">
                  <input type="hidden" name="id" value={hook.id} />
                  <button type="submit" name="intent" value="secret" className="btn-secondary" disabled={busy}>
                    Новый секрет
                  </button>
                </Form>
                <Link to={`${PAGE}?delete=${hook.id}`} preventScrollReset className="btn-secondary text-red-700 dark:text-red-400">
                  Удалить
                </Link>
              </div>
              {editing?.id === hook.id ? <WebhookForm key={hook.id} answer={answer} busy={busy} editing={editing} /> : null}
            </li>
          ))}
        </ul>
      )}

      {logOf ? (
        <section id="log" className="space-y-2" data-testid="webhook-log">
          <h2 className="break-all text-lg font-semibold">{`Журнал отправок: ${logOf.url}`}</h2>
          {log.length === 0 ? (
            <div className="card text-center text-slate-600 dark:text-slate-400">Событий ещё не было</div>
          ) : (
            <TableFrame className="card p-0">
              <table className="stack-table w-full text-sm [--stack-label:8rem]">
                <TableHead columns={["Событие", "Состояние", "Попытки"]} />
                <tbody>
                  {log.map((d) => (
                    <tr key={d.id} className="border-t border-slate-100 align-top dark:border-slate-700" data-testid="delivery">
                      <td data-label="Событие" className="px-3 py-2">
                        <div>{WEBHOOK_EVENTS[d.eventType] ?? d.eventType}</div>
                        <div className="text-xs text-slate-500 dark:text-slate-400">{formatKyiv(d.createdAt)}</div>
                        <code className="break-all text-xs text-slate-500 dark:text-slate-400">{d.messageId}</code>
                      </td>
                      <td data-label="Состояние" className="px-3 py-2" data-testid="delivery-state">
                        {STATE_TEXT[d.state]}
                        {d.nextAttemptAt && d.attempts.length ? (
                          <div className="text-xs text-slate-500 dark:text-slate-400">{`Следующая попытка: ${formatKyiv(d.nextAttemptAt)}`}</div>
                        ) : null}
                      </td>
                      <td data-label="Попытки" className="px-3 py-2">
                        <ol className="space-y-1">
                          {d.attempts.slice(-5).map((a, i) => (
                            <li key={i} data-testid="attempt">
                              <span>{formatKyiv(a.at)}</span>
                              {" · "}
                              <b>{a.httpStatus ?? "нет ответа"}</b>
                              {" · "}
                              {a.response ? (
                                <code className="text-xs text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
                                  {a.response.slice(0, 120)}
                                </code>
                              ) : (
                                <span className="text-slate-600 dark:text-slate-400">пустой ответ</span>
                              )}
                            </li>
                          ))}
                        </ol>
                        {d.attempts.length > 5 ? (
                          <div className="text-xs text-slate-500 dark:text-slate-400">{`Всего попыток: ${d.attempts.length}`}</div>
                        ) : null}
                      </td>
                      <td data-label="" className="px-3 py-2 text-right">
                        {d.state !== "pending" ? (
                          <Form method="post">
                            <input type="hidden" name="id" value={logOf.id} />
                            <input type="hidden" name="delivery" value={d.id} />
                            <button type="submit" name="intent" value="resend" className="btn-secondary" disabled={busy}>
                              Отправить ещё раз
                            </button>
                          </Form>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableFrame>
          )}
          <Pager
            page={logPaging.page}
            pages={logPaging.pages}
            total={logPaging.total}
            size={logPaging.size}
            hrefFor={(page, size) => `${PAGE}?log=${logOf.id}${size === LOG_SIZES[0] ? "" : `&size=${size}`}${page > 1 ? `&page=${page}` : ""}#log`}
          />
        </section>
      ) : null}

      <section id="keys" className="space-y-3">
        <h2 className="text-lg font-semibold">Ключи API</h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Ключ передаётся в заголовке <code>Authorization: Bearer …</code> и действует от имени создавшего его администратора в пределах своих прав.
          Описание API:{" "}
          <a href="/api/v1/openapi.json">
            <code>/api/v1/openapi.json</code>
          </a>
          .
        </p>
        {madeKey ? (
          <div className="card space-y-2 border-green-400 dark:border-green-700" role="status" data-testid="api-key-made">
            <p className="font-semibold">{`Ключ «${madeKey.name}» создан. Скопируйте его сейчас: больше он показан не будет.`}</p>
            <code className="block break-all rounded bg-slate-100 p-2 dark:bg-slate-800" data-testid="api-key-value">
              {madeKey.key}
            </code>
          </div>
        ) : null}
        <CreateApiKey answer={answer} busy={busy} />
        {keys.length === 0 ? (
          <div className="card text-center text-slate-600 dark:text-slate-400">Ключей пока нет</div>
        ) : (
          <TableFrame className="card p-0">
            <table className="stack-table w-full text-sm [--stack-label:9rem]" data-testid="api-keys">
              <TableHead columns={["Название", "Права", "Создан", "Последнее использование"]} />
              <tbody>
                {keys.map((k) => (
                  <tr key={k.id} className="border-t border-slate-100 dark:border-slate-700" data-testid="api-key">
                    <td data-label="Название" className="px-3 py-2">
                      <div>{k.name}</div>
                      <code className="text-xs text-slate-500 dark:text-slate-400">{`${k.prefix}…`}</code>
                    </td>
                    <td data-label="Права" className="px-3 py-2">
                      {k.scopes.map((s) => API_KEY_SCOPES[s]).join(", ")}
                    </td>
                    <td data-label="Создан" className="px-3 py-2">
                      {`${formatKyiv(k.createdAt)}, ${k.createdBy}`}
                    </td>
                    <td data-label="Последнее использование" className="px-3 py-2">
                      {k.lastUsedAt ? formatKyiv(k.lastUsedAt) : "не использовался"}
                    </td>
                    <td data-label="" className="px-3 py-2 text-right">
                      {k.revokedAt ? (
                        <span className="text-slate-500 dark:text-slate-400">{`Отозван ${formatKyiv(k.revokedAt)}`}</span>
                      ) : (
                        <Link to={`${PAGE}?revoke=${k.id}#keys`} preventScrollReset className="text-red-700 hover:underline dark:text-red-400">
                          Отозвать
                        </Link>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      </section>

      <ConfirmAction
        open={Boolean(revoking)}
        title="Отозвать ключ?"
        closeHref={PAGE}
        intent="revokeKey"
        fields={{ id: revoking?.id ?? "" }}
        confirmLabel="Отозвать"
        testId="revoke-api-key"
      >
        {`Интеграция «${revoking?.name ?? ""}» больше не сможет обращаться к API с этим ключом.`}
      </ConfirmAction>
      <ConfirmDelete row={removing} title="Удалить вебхук?" closeHref={PAGE} intent="delete" testId="remove-webhook">
        {`События перестанут уходить на ${removing?.url ?? ""}; его журнал отправок удалится.`}
      </ConfirmDelete>
    </section>
  );
}
