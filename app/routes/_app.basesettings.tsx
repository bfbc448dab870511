import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { useEffect, useState } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { readFormBody } from "../forms.server";
import { getDatabaseSettings, isAppError, saveDatabaseSettings } from "../settings.server";


export const meta: MetaFunction = () => [{ title: "Настройки баз" }];

const PAGE = "/basesettings";
/** SPEC §8: both settings messages vanish after 3 s. */
const MESSAGE_MS = 3000;
const SAVED = "Настройки успешно сохранены";
const FAILED = "Произошла ошибка при сохранении настроек";

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  return { settings: await getDatabaseSettings(context.deps.db, actorOf(user)) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const form = await readFormBody(request);
  try {
    const settings = await saveDatabaseSettings(context.deps.db, actorOf(user), {
      removeDuplicatesInBase: form.get("removeDuplicatesInBase") === "on",
      removeDuplicatesAcrossBases: form.get("removeDuplicatesAcrossBases") === "on",
      defaultInfo: String(form.get("defaultInfo") ?? ""),
      callbackGraceMinutes: form.get("callbackGraceMinutes") ?? undefined,
    });
    return data({ ok: true as const, message: SAVED, detail: "", settings, at: Date.now() });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return data({ ok: false as const, message: FAILED, detail: error.message, settings: null, at: Date.now() }, { status: error.status });
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
  const [editing, setEditing] = useState(params.has("edit"));
  const settings = actionData?.settings ?? loaded.settings;

  // A successful save leaves edit mode (with JavaScript the page stays, so the state must follow).
  useEffect(() => {
    if (actionData?.ok) setEditing(false);
  }, [actionData]);

  return (
    <section>
      <h1 className="page-title">Настройки баз</h1>
      {actionData ? <VanishingMessage key={actionData.at} ok={actionData.ok} message={actionData.message} detail={actionData.detail} /> : null}
      <Form method="post" action={PAGE} preventScrollReset className="card space-y-5" key={`${editing}:${JSON.stringify(settings)}`}>
        <Switch name="removeDuplicatesInBase" label="Удалять дубликаты внутри базы" checked={settings.removeDuplicatesInBase} disabled={!editing} />
        <Switch
          name="removeDuplicatesAcrossBases"
          label="Удалять дубликаты между базами"
          checked={settings.removeDuplicatesAcrossBases}
          disabled={!editing}
        />
        <div>
          <label className="label" htmlFor="defaultInfo">
            Информация по умолчанию
          </label>
          <textarea
            id="defaultInfo"
            name="defaultInfo"
            rows={5}
            className={`input ${editing ? "" : "bg-slate-50 dark:bg-slate-800"}`}
            defaultValue={settings.defaultInfo}
            readOnly={!editing}
            // An empty box says what it is for (issue 17 walk).
            placeholder={editing ? "Текст по умолчанию" : "Не задана. Нажмите «Изменить», чтобы добавить."}
          />
        </div>
        <div>
          <label className="label" htmlFor="callbackGraceMinutes">
            Ожидание перезвона, минут
          </label>
          <input
            id="callbackGraceMinutes"
            name="callbackGraceMinutes"
            type="number"
            min={1}
            max={1440}
            step={1}
            required
            className={`input w-32 ${editing ? "" : "bg-slate-50 dark:bg-slate-800"}`}
            defaultValue={settings.callbackGraceMinutes}
            readOnly={!editing}
            aria-describedby="callbackGraceHelp"
          />
          <p id="callbackGraceHelp" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            Если менеджер не работает, когда подошло время перезвона, дольше этого времени, клиент уходит любому менеджеру
            тематики.
          </p>
        </div>
        <div className="flex justify-end gap-2">
          {editing ? (
            <button type="submit" name="intent" value="save" className="btn-primary" disabled={navigation.state === "submitting"}>
              Сохранить
            </button>
          ) : (
            <Link
              to="?edit"
              preventScrollReset
              className="btn-primary"
              onClick={(event) => {
                event.preventDefault();
                setEditing(true);
              }}
            >
              Изменить
            </Link>
          )}
        </div>
      </Form>
    </section>
  );
}
