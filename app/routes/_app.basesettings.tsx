import { parseWithZod } from "@conform-to/zod/v4";
import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { readFormBody } from "../forms.server";
import { firstError } from "../lib/form-check";
import { databaseSettingsSchema, INBOUND_MAX_MANAGERS, INBOUND_RING_SECONDS } from "../../common/schemas/settings";
import { FieldError, formProps, inputProps, resultOf, textareaProps, useSchemaForm } from "../components/ui/forms";
import { getDatabaseSettings, isAppError, saveDatabaseSettings } from "../settings.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Настройки баз" }];

const PAGE = "/basesettings";
/** SPEC §8: both settings messages vanish after 3 s. */
const MESSAGE_MS = 3000;
const SAVED = "Настройки успешно сохранены";
type DatabaseSettingsView = Awaited<ReturnType<typeof getDatabaseSettings>>;
const FAILED = "Произошла ошибка при сохранении настроек";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  return { settings: await getDatabaseSettings(context.deps.db, actorOf(user)) };
}

/**
 * The form's one schema (decision 063): core's settings input; a switch left off is not posted at all, so it is
 * false here.
 */
const SettingsFormSchema = databaseSettingsSchema.extend({
  removeDuplicatesInBase: databaseSettingsSchema.shape.removeDuplicatesInBase.default(false),
  removeDuplicatesAcrossBases: databaseSettingsSchema.shape.removeDuplicatesAcrossBases.default(false),
});

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const form = await readFormBody(request);
  const submission = parseWithZod(form, { schema: SettingsFormSchema });
  // SPEC §8's failure message on top, the field's own message under it.
  const failed = (detail: string, status: number, result: ReturnType<typeof submission.reply>) =>
    data({ ok: false as const, message: FAILED, detail, settings: null, at: Date.now(), form: "settings", result }, { status });
  if (submission.status !== "success") {
    return failed(firstError(submission) ?? "", 400, submission.reply());
  }
  try {
    const settings = await saveDatabaseSettings(context.deps.db, actorOf(user), submission.value);
    return data({ ok: true as const, message: SAVED, detail: "", settings, at: Date.now() });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return failed(error.message, error.status, submission.reply({ formErrors: [error.message] }));
  }
}

/** A message that fades out after 3 s: a CSS animation (so also without JavaScript), then removed by React. */
function VanishingMessage({ ok, message, detail }: { ok: boolean; message: string; detail: string }) {
  const [shown, setShown] = useState(true);
  useEffect(() => {
    const timer = setTimeout(() => setShown(false), MESSAGE_MS);
    return () => clearTimeout(timer);
  }, []);
  if (!shown) return null;
  return (
    <div
      role={ok ? "status" : "alert"}
      data-testid="settings-message"
      className={`mb-4 ${ok ? "banner-success" : "banner-error"}`}
      style={{ animation: `settings-vanish 0s linear ${MESSAGE_MS}ms forwards` }}
    >
      <style>{"@keyframes settings-vanish { to { visibility: hidden; height: 0; padding: 0; margin: 0; border-width: 0; } }"}</style>
      {message}
      {detail ? `: ${detail}` : ""}
    </div>
  );
}

function Switch({ name, label, checked, disabled }: { name: string; label: string; checked: boolean; disabled: boolean }) {
  return (
    <label className={`flex items-center gap-3 ${disabled ? "cursor-default" : "cursor-pointer"}`}>
      <input type="checkbox" name={name} defaultChecked={checked} disabled={disabled} className="peer sr-only" role="switch" aria-label={label} />
      <span
        aria-hidden="true"
        className="relative inline-block h-6 w-11 shrink-0 rounded-full bg-slate-300 transition after:absolute after:left-0.5 after:top-0.5 after:h-5 after:w-5 after:rounded-full after:bg-white after:shadow after:transition peer-checked:bg-green-500 peer-checked:after:left-[1.375rem] peer-disabled:opacity-70 peer-focus-visible:ring-2 peer-focus-visible:ring-blue-300 dark:bg-slate-600"
      />
      <span className="text-sm">{label}</span>
    </label>
  );
}

export default function BaseSettingsPage() {
  const loaded = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const navigation = useNavigation();
  const [params] = useSearchParams();
  // A refused save stays open with what was typed and the field's message.
  const [editing, setEditing] = useState(params.has("edit") || actionData?.ok === false);
  const settings = actionData?.settings ?? loaded.settings;

  // A successful save leaves edit mode (with JavaScript the page stays, so the state must follow).
  useEffect(() => {
    if (actionData?.ok) setEditing(false);
  }, [actionData]);

  return (
    <section>
      <h1 className="page-title">Настройки баз</h1>
      {actionData ? <VanishingMessage key={actionData.at} ok={actionData.ok} message={actionData.message} detail={actionData.detail} /> : null}
      <SettingsForm
        key={`${editing}:${JSON.stringify(settings)}`}
        settings={settings}
        editing={editing}
        onEdit={() => setEditing(true)}
        lastResult={resultOf(actionData, "settings")}
        busy={navigation.state === "submitting"}
      />
    </section>
  );
}

/** The call-in settings (issue 42, decision 077): what each is called, its bounds and what it does. */
const INBOUND_FIELDS = [
  {
    name: "inboundRingSeconds",
    label: "Звонок одному менеджеру, секунд",
    bounds: INBOUND_RING_SECONDS,
    help: "Столько секунд звонит телефон менеджера, затем звонок клиента переходит к следующему свободному.",
  },
  {
    name: "inboundMaxManagers",
    label: "Менеджеров на один звонок",
    bounds: INBOUND_MAX_MANAGERS,
    help: "Если не ответил ни один из стольких менеджеров, звонок считается пропущенным и становится перезвоном.",
  },
] as const;

/** A whole-number setting with its bounds, its message and what it does (read-only until «Изменить»). */
function NumberSetting({
  field,
  label,
  bounds,
  editing,
  help,
}: {
  name?: string;
  field: ReturnType<typeof useSchemaForm<typeof SettingsFormSchema>>[1]["inboundRingSeconds" | "inboundMaxManagers"];
  label: string;
  bounds: { min: number; max: number };
  editing: boolean;
  help: string;
}) {
  const helpId = `${field.id}-help`;
  return (
    <div>
      <label className="label" htmlFor={field.name}>
        {label}
      </label>
      <input
        {...inputProps(field, "number")}
        id={field.name}
        min={bounds.min}
        max={bounds.max}
        step={1}
        className={`input w-32 ${editing ? "" : "bg-slate-50 dark:bg-slate-800"}`}
        readOnly={!editing}
        aria-describedby={field.errors ? `${field.errorId} ${helpId}` : helpId}
      />
      <FieldError field={field} />
      <p id={helpId} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
        {help} От {bounds.min} до {bounds.max}.
      </p>
    </div>
  );
}

/** The settings as a form, read-only until «Изменить»; keyed by what it shows, so a save starts it afresh. */
function SettingsForm({
  settings,
  editing,
  onEdit,
  lastResult,
  busy,
}: {
  settings: DatabaseSettingsView;
  editing: boolean;
  onEdit: () => void;
  lastResult: SubmissionResult<string[]> | null;
  busy: boolean;
}) {
  const [form, fields] = useSchemaForm(SettingsFormSchema, { id: "settings", lastResult, defaultValue: settings });
  // A refused post shows the switches as they were sent (an unticked one is not sent at all).
  const ticked = (name: "removeDuplicatesInBase" | "removeDuplicatesAcrossBases") =>
    lastResult ? fields[name].initialValue === "on" : settings[name];
  return (
    <Form method="post" action={PAGE} preventScrollReset {...formProps(form)} className="card space-y-5">
      <Switch name="removeDuplicatesInBase" label="Удалять дубликаты внутри базы" checked={ticked("removeDuplicatesInBase")} disabled={!editing} />
      <Switch
        name="removeDuplicatesAcrossBases"
        label="Удалять дубликаты между базами"
        checked={ticked("removeDuplicatesAcrossBases")}
        disabled={!editing}
      />
      <div>
        <label className="label" htmlFor="defaultInfo">
          Информация по умолчанию
        </label>
        <textarea
          {...textareaProps(fields.defaultInfo)}
          id="defaultInfo"
          rows={5}
          className={`input ${editing ? "" : "bg-slate-50 dark:bg-slate-800"}`}
          readOnly={!editing}
          // An empty box says what it is for (issue 17 walk).
          placeholder={editing ? "Текст по умолчанию" : "Не задана. Нажмите «Изменить», чтобы добавить."}
        />
        <FieldError field={fields.defaultInfo} />
      </div>
      <div>
        <label className="label" htmlFor="callbackGraceMinutes">
          Ожидание перезвона, минут
        </label>
        <input
          {...inputProps(fields.callbackGraceMinutes, "number")}
          id="callbackGraceMinutes"
          min={1}
          max={1440}
          step={1}
          className={`input w-32 ${editing ? "" : "bg-slate-50 dark:bg-slate-800"}`}
          readOnly={!editing}
          aria-describedby={fields.callbackGraceMinutes.errors ? `${fields.callbackGraceMinutes.errorId} callbackGraceHelp` : "callbackGraceHelp"}
        />
        <FieldError field={fields.callbackGraceMinutes} />
        <p id="callbackGraceHelp" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          Если менеджер не работает, когда подошло время перезвона, дольше этого времени, клиент уходит любому менеджеру тематики.
        </p>
      </div>
      <fieldset className="space-y-3 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="inbound-settings">
        <legend className="px-1 text-sm font-medium">Входящие звонки</legend>
        {INBOUND_FIELDS.map((setting) => (
          <NumberSetting key={setting.name} field={fields[setting.name]} editing={editing} {...setting} />
        ))}
      </fieldset>
      <div className="flex justify-end gap-2">
        {editing ? (
          <button type="submit" name="intent" value="save" className="btn-primary" disabled={busy}>
            Сохранить
          </button>
        ) : (
          <Link
            to="?edit"
            preventScrollReset
            className="btn-primary"
            onClick={(event) => {
              event.preventDefault();
              onEdit();
            }}
          >
            Изменить
          </Link>
        )}
      </div>
    </Form>
  );
}
