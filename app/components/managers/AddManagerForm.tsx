import { RefreshIcon } from "../ui/Icons";
import { useFetcher } from "@remix-run/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useEffect, useRef, type MouseEvent, type ReactNode } from "react";
import * as z from "zod";
import { notify, ServerMessage, useAnswerKey } from "../ui/Toasts";
import { FieldError, formProps, inputProps, resultOf, selectProps, unshownError, useSchemaForm } from "../ui/forms";
import { generateAccessKey, generatePassword, SIP_PREFIXES } from "../../../common/credentials";
import { LOGIN_NEEDED_FOR_SIP, registerSchema, sipRequestSchema } from "../../../common/schemas/users";
import { useHydrated } from "../ui/hydrated";
import { ADD_FORM, EMPTY_ADD_FORM, type ManagersActionData } from "./types";

export const CREATE_FAILED = "Ошибка при создании менеджера";

/** The add form (decision 063): core's register input, and the number prefix the SIP button asks for. */
export const AddManagerSchema = registerSchema.extend({ sipPrefix: z.string().optional() });

/** The SIP button's fields: core's SIP request, read from the add form's login and prefix. */
export const SipButtonSchema = z.object({ login: sipRequestSchema.shape.login, sipPrefix: sipRequestSchema.shape.prefix });

/** The fields that show their own errors; any other message of an answer is the form's. */
const SHOWN = ["login", "password", "displayName", "telegram", "accessKey", "sipLogin", "sipPassword"];

interface AddManagerFormProps {
  /** With JavaScript off: what the last post answered (the form's fields and errors, or a failure to show). */
  actionData?: unknown;
}

/**
 * SPEC /managers add form, checked by core's register schema in the browser and the action. With JavaScript the
 * password and access key are generated in the browser, SIP generation and saving go through fetchers, and the
 * answers are toasts or errors under the fields. Without it, every button is a submit with its own intent and the
 * server fills in what was asked (the form comes back with what was typed).
 */
export function AddManagerForm({ actionData }: AddManagerFormProps) {
  const hydrated = useHydrated();
  const createFetcher = useFetcher<ManagersActionData>({ key: "add-manager" });
  const sipFetcher = useFetcher<ManagersActionData>({ key: "generate-sip" });
  const formRef = useRef<HTMLFormElement>(null);
  const answer = createFetcher.data ?? actionData;
  const lastResult = resultOf(answer, ADD_FORM);
  const answerKey = useAnswerKey(answer);
  const [form, fields] = useSchemaForm(AddManagerSchema, { id: "add-manager", lastResult, defaultValue: EMPTY_ADD_FORM });
  const unshown = unshownError(lastResult, SHOWN);
  // A failure of the action itself (not a refusal of the form): without JavaScript, its banner.
  const failure = answer && typeof answer === "object" && "error" in answer ? (answer as ManagersActionData).error : undefined;
  type Field = (typeof fields)[keyof typeof EMPTY_ADD_FORM];
  // conform writes the value into the input (the inputs are the browser's own, not React state).
  const set = (field: Field, value: string) => form.update({ name: field.name, value });

  // SPEC §5: the access key is generated on the client.
  useEffect(() => {
    const accessKey = formRef.current?.elements.namedItem("accessKey") as HTMLInputElement | null;
    if (!accessKey?.value) set(fields.accessKey, generateAccessKey());
    // eslint-disable-next-line react-hooks/exhaustive-deps -- once, when the page runs
  }, []);

  useEffect(() => {
    const data = sipFetcher.data;
    if (sipFetcher.state !== "idle" || !data) return;
    const refused = unshownError(resultOf(data, ADD_FORM), []) ?? data.error?.message;
    if (refused) notify("error", refused);
    else if (data.sip) {
      set(fields.sipLogin, data.sip.sipLogin);
      set(fields.sipPassword, data.sip.sipPassword);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on each answer
  }, [sipFetcher.state, sipFetcher.data]);

  useEffect(() => {
    const data = createFetcher.data;
    if (createFetcher.state !== "idle" || !data) return;
    if (data.ok) {
      notify("success", data.message ?? "Менеджер создан");
      form.reset();
      set(fields.accessKey, generateAccessKey());
    } else if (data.error) {
      notify("error", data.error.message || CREATE_FAILED);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- on each answer
  }, [createFetcher.state, createFetcher.data]);

  function onGeneratePassword(event: MouseEvent) {
    event.preventDefault();
    set(fields.password, generatePassword());
  }

  function onGenerateAccessKey(event: MouseEvent) {
    event.preventDefault();
    set(fields.accessKey, generateAccessKey());
  }

  function onGenerateSip(event: MouseEvent) {
    event.preventDefault();
    // The SIP request's own schema, before anything is sent: a login is needed.
    const request = parseWithZod(new FormData(formRef.current!), { schema: SipButtonSchema });
    if (request.status !== "success") {
      notify("error", unshownError(request.reply(), []) ?? LOGIN_NEEDED_FOR_SIP);
      return;
    }
    const { login, sipPrefix } = request.payload;
    sipFetcher.submit({ intent: "generateSip", _js: "1", login: String(login), sipPrefix: String(sipPrefix) }, { method: "post" });
  }

  const busy = createFetcher.state !== "idle";
  const sipBusy = sipFetcher.state !== "idle";
  /** A field with its label and its error under it; `button` is its generator. */
  const field = (f: Field, label: string, extra: Record<string, unknown> = {}, button?: ReactNode) => {
    const input = <input {...inputProps(f)} id={`add-${f.name}`} className="input min-w-0" autoComplete="off" {...extra} />;
    return (
      <div>
        <label className="label" htmlFor={`add-${f.name}`}>
          {label}
        </label>
        {button ? (
          <div className="flex gap-2">
            {input}
            {button}
          </div>
        ) : (
          input
        )}
        <FieldError field={f} />
      </div>
    );
  };

  return (
    <section className="card mb-6" aria-labelledby="add-manager-title">
      <h2 id="add-manager-title" className="mb-4 text-lg font-semibold">
        Добавить менеджера
      </h2>
      {!hydrated && failure ? <ServerMessage kind="error" message={failure.message} /> : null}
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      <createFetcher.Form
        ref={formRef}
        method="post"
        {...formProps(form)}
        className="grid gap-4 md:grid-cols-2 xl:grid-cols-4"
        data-testid="add-manager-form"
      >
        {hydrated ? <input type="hidden" name="_js" value="1" /> : null}
        {/* Enter in a field submits the first submit button: make that the create one, not a generator. */}
        <button type="submit" name="intent" value="create" className="sr-only" tabIndex={-1} aria-hidden="true">
          Добавить менеджера
        </button>
        {field(fields.login, "Логин")}
        {field(
          fields.password,
          "Пароль",
          { className: "input min-w-0 font-mono", autoComplete: "new-password" },
          <Generator
            intent="generatePassword"
            title="Сгенерировать пароль"
            onClick={hydrated ? onGeneratePassword : undefined}
            testId="generate-password"
          />,
        )}
        {field(fields.displayName, "Имя")}
        {field(fields.telegram, "Telegram")}
        {field(
          fields.accessKey,
          "Ключ доступа",
          { className: "input min-w-0 font-mono", readOnly: true, placeholder: "Автоматически" },
          <Generator intent="generateAccessKey" title="Сгенерировать ключ доступа" onClick={hydrated ? onGenerateAccessKey : undefined} />,
        )}
        <div>
          <label className="label" htmlFor="add-sipPrefix">
            Префикс SIP
          </label>
          <div className="flex gap-2">
            <select {...selectProps(fields.sipPrefix)} id="add-sipPrefix" className="input">
              {SIP_PREFIXES.map((p) => (
                <option key={p} value={p}>
                  {p}
                </option>
              ))}
            </select>
            <Generator
              intent="generateSip"
              title="Сгенерировать SIP логин и пароль"
              onClick={hydrated ? onGenerateSip : undefined}
              disabled={sipBusy}
              testId="generate-sip"
            />
          </div>
        </div>
        {field(fields.sipLogin, "SIP логин")}
        {field(fields.sipPassword, "SIP пароль")}
        <div className="md:col-span-2 xl:col-span-4">
          <button type="submit" name="intent" value="create" className="btn-primary" disabled={busy} data-testid="create-manager">
            {busy ? "Создаём..." : "Добавить менеджера"}
          </button>
        </div>
      </createFetcher.Form>
    </section>
  );
}

/** A generator's button: without JavaScript a submit of its own intent (the server generates), with it `onClick`. */
function Generator(props: { intent: string; title: string; onClick?: (event: MouseEvent) => void; disabled?: boolean; testId?: string }) {
  return (
    <button
      type="submit"
      name="intent"
      value={props.intent}
      className="btn-secondary shrink-0 px-2.5"
      onClick={props.onClick}
      disabled={props.disabled}
      title={props.title}
      aria-label={props.title}
      data-testid={props.testId}
    >
      <RefreshIcon />
    </button>
  );
}
