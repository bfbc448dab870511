import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useNavigation, useSubmit } from "@remix-run/react";
import type { FormEvent } from "react";
import { ServerMessage, clearNotices, notify, useAnswerKey } from "../components/ui/Toasts";
import { lazyModule, useLoadAfterHydration } from "../lib/lazy-module";
import {
  actionError,
  checkLogin,
  data,
  flashHeader,
  getUser,
  login,
  readFormBody,
  redirect,
  startSessionCookieHeader,
} from "../server-imports/login.server";

/** The browser's check of the form: zod and conform, fetched once the page is interactive (decision 088). */
const loginCheck = lazyModule(() => import("../lib/login-check"));

export const meta: MetaFunction = () => [{ title: "Вход" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  if (await getUser(request, context)) throw redirect("/leadpanel");
  return data(null);
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readFormBody(request);
  const checked = checkLogin(form);
  // The page re-renders without JavaScript: give the login back so only the secrets are typed again.
  const typed = typeof checked.payload.login === "string" ? checked.payload.login.slice(0, 200) : "";
  // The schema the page checks before sending (core parses it again): without JavaScript, its first message.
  if (!checked.ok) return data({ error: { code: "validation", message: checked.message }, login: typed }, { status: 400 });
  try {
    const result = await login(context.deps.db, context.deps.sessions, context.deps.passwords, checked.value, context.clientAddress);
    const headers = new Headers();
    headers.append("Set-Cookie", await startSessionCookieHeader(request, context, result.access_token));
    headers.append("Set-Cookie", await flashHeader({ type: "success", message: "Авторизирован" }));
    return redirect("/leadpanel", { headers });
  } catch (error) {
    const answer = actionError(error);
    return data({ ...answer.data, login: typed }, answer.init ?? undefined);
  }
}

export default function LoginPage() {
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigation = useNavigation();
  const busy = navigation.state !== "idle";
  const submit = useSubmit();
  useLoadAfterHydration(loginCheck);

  /**
   * SPEC §5: checked in the browser first; an empty field shows its message and nothing is sent. Sent before the
   * check is in (a slow link), the form waits for it, then is checked and sent.
   */
  function checkFields(event: FormEvent<HTMLFormElement>) {
    clearNotices();
    const form = event.currentTarget;
    const check = (module: typeof loginCheck.loaded & {}) => {
      const checked = module.checkLogin(new FormData(form));
      if (!checked.ok) notify("error", checked.message);
      return checked.ok;
    };
    if (loginCheck.loaded) {
      if (!check(loginCheck.loaded)) event.preventDefault();
      return;
    }
    event.preventDefault();
    loginCheck.load().then(
      (module) => check(module) && submit(form),
      // The check could not be fetched: the server checks the same schema.
      () => submit(form),
    );
  }

  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="card w-full max-w-sm">
        <h1 className="page-title text-center">Вход в систему</h1>
        {actionData?.error ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}
        <Form method="post" noValidate onSubmit={checkFields} className="space-y-4">
          <div>
            <label className="label" htmlFor="login">
              Логин
            </label>
            <input id="login" name="login" className="input" autoComplete="username" autoFocus defaultValue={actionData?.login ?? ""} />
          </div>
          <div>
            <label className="label" htmlFor="password">
              Пароль
            </label>
            <input id="password" name="password" type="password" className="input" autoComplete="current-password" />
          </div>
          <div>
            <label className="label" htmlFor="accessKey">
              Ключ доступа
            </label>
            <input id="accessKey" name="accessKey" type="password" className="input" autoComplete="off" />
          </div>
          <button type="submit" className="btn-primary w-full" disabled={busy}>
            {busy ? "Входим..." : "Войти"}
          </button>
        </Form>
        <p className="mt-4 text-center text-sm">
          <Link to="/auth/recovery" className="text-blue-600 hover:underline dark:text-blue-400">
            Забыли пароль?
          </Link>
        </p>
      </div>
    </main>
  );
}
