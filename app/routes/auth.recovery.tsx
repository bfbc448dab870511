import type { ActionFunctionArgs, MetaFunction } from "@remix-run/node";
import { data } from "@remix-run/node";
import { Form, Link, useActionData } from "@remix-run/react";
import { ServerMessage } from "../components/ui/Toasts";
import { recoverySchema } from "../../common/schemas/auth";
import { readFormBody } from "../forms.server";
import { checkForm } from "../lib/form-check";

export const meta: MetaFunction = () => [{ title: "Восстановление доступа" }];

/**
 * SPEC leaves recovery's logic out. Passwords are only ever set by an administrator (/managers), so the honest
 * answer is to say so: we never claim to have sent a message we did not send.
 */
export async function action({ request }: ActionFunctionArgs) {
  const form = await readFormBody(request);
  const checked = checkForm(form, recoverySchema);
  if (!checked.ok) return data({ kind: "error" as const, message: checked.message }, { status: 400 });
  const { login } = checked.value;
  return data({
    kind: "info" as const,
    message: `Пароль для «${login}» меняет администратор: обратитесь к нему, и он выдаст новый пароль и ключ доступа.`,
  });
}

export default function RecoveryPage() {
  const result = useActionData<typeof action>();
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="card w-full max-w-sm">
        <h1 className="page-title text-center">Восстановление доступа</h1>
        {result ? <ServerMessage key={result.message} kind={result.kind} message={result.message} /> : null}
        <Form method="post" className="space-y-4">
          <div>
            <label className="label" htmlFor="login">
              Логин
            </label>
            <input id="login" name="login" className="input" autoComplete="username" />
          </div>
          <button type="submit" className="btn-primary w-full">
            Восстановить
          </button>
        </Form>
        <p className="mt-4 text-center text-sm">
          <Link to="/auth" className="text-blue-600 hover:underline dark:text-blue-400">
            Вернуться ко входу
          </Link>
        </p>
      </div>
    </main>
  );
}
