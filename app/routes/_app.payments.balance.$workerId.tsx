import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import type { FormEvent } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { MoneyDialog } from "../components/money/MoneyDialog";
import { readTableParams, tableQuery } from "../components/money/workerTable";
import { ServerMessage, notify, useAnswerKey } from "../components/ui/Toasts";
import { formatUsd } from "../lib/format";
import { paymentsAction, paymentStats } from "../money.server";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const { workerStats } = await paymentStats(context.deps.db, actorOf(user));
  const worker = workerStats.find((w) => String(w.id) === params.workerId);
  if (!worker) throw new Response("Сотрудник не найден", { status: 404 });
  const asked = new URL(request.url).searchParams.get("op");
  // def (reset) only asks: it is destructive, so it is confirmed here like deleting a base (issue 17).
  const op = asked === "rem" || asked === "def" ? asked : ("add" as const);
  return { worker, op };
}

export async function action(args: ActionFunctionArgs) {
  return paymentsAction(args);
}

/** SPEC §5: add and subtract need a non-empty, non-zero number, checked before anything is sent. */
function isEmptyOrZero(text: string) {
  const normalised = text.trim().replace(",", ".");
  return normalised === "" || Number(normalised) === 0 || Number.isNaN(Number(normalised));
}

export default function BalanceDialog() {
  const { worker, op } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigation = useNavigation();
  const location = useLocation();
  const query = tableQuery(readTableParams(location.search));
  const busy = navigation.state === "submitting";

  function check(event: FormEvent<HTMLFormElement>) {
    if (isEmptyOrZero(String(new FormData(event.currentTarget).get("amount") ?? ""))) {
      event.preventDefault();
      notify("warning", "Введите число в поле");
    }
  }

  if (op === "def") {
    return (
      <MoneyDialog title={`Обнулить баланс: ${worker.login}`} closeTo={`/payments${query}`} testId="balance-dialog">
        {actionData && "error" in actionData ? (
          <ServerMessage key={answerKey} kind="error" message={actionData.error.message} />
        ) : null}
        <Form method="post" preventScrollReset>
          <input type="hidden" name="intent" value="def" />
          <input type="hidden" name="userId" value={worker.id} />
          <input type="hidden" name="back" value={query.slice(1)} />
          <p className="mb-4 text-sm">
            Баланс {worker.login} ({formatUsd(worker.totalEarned)}) станет 0,00 $. Отменить это нельзя.
          </p>
          <div className="flex justify-end gap-2">
            <Link to={`/payments${query}`} className="btn-secondary" preventScrollReset replace>
              Отмена
            </Link>
            <button type="submit" className="btn-danger" disabled={busy}>
              Обнулить
            </button>
          </div>
        </Form>
      </MoneyDialog>
    );
  }

  const title = op === "add" ? `Добавить к балансу: ${worker.login}` : `Снять с баланса: ${worker.login}`;
  return (
    <MoneyDialog title={title} closeTo={`/payments${query}`} testId="balance-dialog">
      {actionData && "error" in actionData ? (
        <ServerMessage key={answerKey} kind="error" message={actionData.error.message} />
      ) : null}
      <p className="mb-3 text-sm">
        Сейчас на балансе: <span className="font-semibold">{formatUsd(worker.totalEarned)}</span>
      </p>
      <Form method="post" onSubmit={check} className="flex flex-wrap items-end gap-2" preventScrollReset>
        <input type="hidden" name="intent" value={op} />
        <input type="hidden" name="userId" value={worker.id} />
        <input type="hidden" name="back" value={query.slice(1)} />
        <label className="text-sm">
          <span className="label">Сумма, $</span>
          <input name="amount" className="input w-40" inputMode="decimal" autoFocus />
        </label>
        <button type="submit" className="btn-primary" disabled={busy}>
          {op === "add" ? "Добавить" : "Снять"}
        </button>
      </Form>
    </MoneyDialog>
  );
}
