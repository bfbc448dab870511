import { RefreshIcon } from "../ui/Icons";
import { useFetcher } from "@remix-run/react";
import { useEffect, useRef, useState, type FormEvent, type MouseEvent } from "react";
import { notify, ServerMessage } from "../ui/Toasts";
import { DEFAULT_SIP_PREFIX, generateAccessKey, generatePassword, SIP_PREFIXES } from "../../../common/credentials";
import { useHydrated } from "../ui/Pager";
import { EMPTY_ADD_FORM, type AddFormValues, type ManagersActionData } from "./types";

export const FILL_ALL_FIELDS = "Пожалуйста, заполните все поля";
export const LOGIN_NEEDED_FOR_SIP = "Заполните логин, для генерации SIPa";
export const CREATE_FAILED = "Ошибка при создании менеджера";

interface AddManagerFormProps {
  /** With JavaScript off: what the last post answered (values echoed back, an error to show). */
  result?: ManagersActionData | null;
}

/**
 * SPEC /managers add form. With JavaScript the password and access key are generated in the browser, SIP
 * generation and saving go through fetchers, and messages are toasts. Without it, every button is a submit
 * with its own intent and the server fills in what was asked.
 */
export function AddManagerForm({ result }: AddManagerFormProps) {
  const hydrated = useHydrated();
  const createFetcher = useFetcher<ManagersActionData>({ key: "add-manager" });
  const sipFetcher = useFetcher<ManagersActionData>({ key: "generate-sip" });
  const [values, setValues] = useState<AddFormValues>(() => ({ ...EMPTY_ADD_FORM, ...result?.values }));
  const formRef = useRef<HTMLFormElement>(null);
  const set = (name: keyof AddFormValues, value: string) => setValues((v) => ({ ...v, [name]: value }));

  // SPEC §5: the access key is generated on the client.
  useEffect(() => {
    setValues((v) => (v.accessKey ? v : { ...v, accessKey: generateAccessKey() }));
  }, []);

  useEffect(() => {
    const answer = sipFetcher.data;
    if (sipFetcher.state !== "idle" || !answer) return;
    if (answer.error) notify("error", answer.error.message);
    else if (answer.values) {
      setValues((v) => ({ ...v, sipLogin: answer.values!.sipLogin, sipPassword: answer.values!.sipPassword }));
    }
  }, [sipFetcher.state, sipFetcher.data]);

  useEffect(() => {
    const answer = createFetcher.data;
    if (createFetcher.state !== "idle" || !answer) return;
    if (answer.ok) {
      notify("success", answer.message ?? "Менеджер создан");
      setValues({ ...EMPTY_ADD_FORM, accessKey: generateAccessKey() });
    } else {
      notify("error", answer.error?.message || CREATE_FAILED);
    }
  }, [createFetcher.state, createFetcher.data]);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!values.login.trim() || !values.password || !values.displayName.trim()) {
      notify("error", FILL_ALL_FIELDS);
      return;
    }
    const form = new FormData(event.currentTarget);
    form.set("intent", "create");
    createFetcher.submit(form, { method: "post" });
  }

  function onGeneratePassword(event: MouseEvent) {
    event.preventDefault();
    set("password", generatePassword());
  }

  function onGenerateAccessKey(event: MouseEvent) {
    event.preventDefault();
    set("accessKey", generateAccessKey());
  }

  function onGenerateSip(event: MouseEvent) {
    event.preventDefault();
    if (!values.login.trim()) {
      notify("error", LOGIN_NEEDED_FOR_SIP);
      return;
    }
    sipFetcher.submit(
      { intent: "generateSip", _js: "1", login: values.login, sipPrefix: values.sipPrefix },
      { method: "post" },
    );
  }

  const busy = createFetcher.state !== "idle";
  const sipBusy = sipFetcher.state !== "idle";
  const input = (name: keyof AddFormValues, label: string, extra: Record<string, unknown> = {}) => (
    <div>
      <label className="label" htmlFor={`add-${name}`}>
        {label}
      </label>
      <input
        id={`add-${name}`}
        name={name}
        className="input"
        value={values[name]}
        onChange={(e) => set(name, e.target.value)}
        autoComplete="off"
        {...extra}
      />
    </div>
  );

  return (
    <section className="card mb-6" aria-labelledby="add-manager-title">
      <h2 id="add-manager-title" className="mb-4 text-lg font-semibold">
        Добавить менеджера
      </h2>
      {!hydrated && result?.error && result.intent !== "update" ? (
        <ServerMessage kind="error" message={result.error.message} />
      ) : null}
      <form
        ref={formRef}
        method="post"
        noValidate
        onSubmit={hydrated ? onSubmit : undefined}
        className="grid gap-4 md:grid-cols-2 xl:grid-cols-4"
        data-testid="add-manager-form"
      >
        {hydrated ? <input type="hidden" name="_js" value="1" /> : null}
        {/* Enter in a field submits the first submit button: make that the create one, not a generator. */}
        <button type="submit" name="intent" value="create" className="sr-only" tabIndex={-1} aria-hidden="true">
          Добавить менеджера
        </button>
        {input("login", "Логин")}
        <div>
          <label className="label" htmlFor="add-password">
            Пароль
          </label>
          <div className="flex gap-2">
            <input
              id="add-password"
              name="password"
              className="input min-w-0 font-mono"
              value={values.password}
              onChange={(e) => set("password", e.target.value)}
              autoComplete="new-password"
            />
            <button
              type="submit"
              name="intent"
              value="generatePassword"
              className="btn-secondary shrink-0 px-2.5"
              onClick={hydrated ? onGeneratePassword : undefined}
              title="Сгенерировать пароль"
              aria-label="Сгенерировать пароль"
              data-testid="generate-password"
            >
              <RefreshIcon />
            </button>
          </div>
        </div>
        {input("displayName", "Имя")}
        {input("telegram", "Telegram")}
        <div>
          <label className="label" htmlFor="add-accessKey">
            Ключ доступа
          </label>
          <div className="flex gap-2">
            <input
              id="add-accessKey"
              name="accessKey"
              className="input min-w-0 font-mono"
              value={values.accessKey}
              readOnly
              placeholder="Автоматически"
            />
            <button
              type="submit"
              name="intent"
              value="generateAccessKey"
              className="btn-secondary shrink-0 px-2.5"
              onClick={hydrated ? onGenerateAccessKey : undefined}
              title="Сгенерировать ключ доступа"
              aria-label="Сгенерировать ключ доступа"
            >
              <RefreshIcon />
            </button>
          </div>
        </div>
        <div>
          <label className="label" htmlFor="add-sipPrefix">
            Префикс SIP
          </label>
          <div className="flex gap-2">
            <select
              id="add-sipPrefix"
              name="sipPrefix"
              className="input"
              value={values.sipPrefix || String(DEFAULT_SIP_PREFIX)}
              onChange={(e) => set("sipPrefix", e.target.value)}
            >
              {SIP_PREFIXES.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <button
              type="submit"
              name="intent"
              value="generateSip"
              className="btn-secondary shrink-0 px-2.5"
              onClick={hydrated ? onGenerateSip : undefined}
              disabled={sipBusy}
              title="Сгенерировать SIP логин и пароль"
              aria-label="Сгенерировать SIP логин и пароль"
              data-testid="generate-sip"
            >
              <RefreshIcon />
            </button>
          </div>
        </div>
        {input("sipLogin", "SIP логин")}
        {input("sipPassword", "SIP пароль")}
        <div className="md:col-span-2 xl:col-span-4">
          <button type="submit" name="intent" value="create" className="btn-primary" disabled={busy} data-testid="create-manager">
            {busy ? "Создаём..." : "Добавить менеджера"}
          </button>
        </div>
      </form>
    </section>
  );
}
