import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
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
  return { worker };
}

export async function action(args: ActionFunctionArgs) {
  return paymentsAction(args);
}

/** SPEC §5: a payout of 0 is refused in the browser before anything is sent (and by the server anyway). */
function isZero(text: string) {
  const normalised = text.trim().replace(",", ".");
  return normalised !== "" && Number(normalised) === 0;
}

export default function PayDialog() {
  const { worker } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigation = useNavigation();
  const location = useLocation();
  const query = tableQuery(readTableParams(location.search));
  const busy = navigation.state === "submitting";

  function check(event: FormEvent<HTMLFormElement>) {
    const amount = String(new FormData(event.currentTarget).get("amount") ?? "");
    if (isZero(amount)) {
      event.preventDefault();
      notify("warning", "Сумма выплаты не может быть 0");
    }
  }

  return (
    <MoneyDialog title={`Выплата: ${worker.login}`} closeTo={`/payments${query}`} testId="pay-dialog">
      {actionData && "error" in actionData ? (
        <ServerMessage key={answerKey} kind="error" message={actionData.error.message} />
      ) : null}
      <p className="mb-3 text-sm">
        Заработано: <span className="font-semibold">{formatUsd(worker.totalEarned)}</span>
      </p>
      <Form method="post" onSubmit={check} className="flex flex-wrap items-end gap-2" preventScrollReset>
        <input type="hidden" name="intent" value="payout" />
        <input type="hidden" name="userId" value={worker.id} />
        <input type="hidden" name="back" value={query.slice(1)} />
        <label className="text-sm">
          <span className="label">Сумма выплаты, $</span>
          <input name="amount" className="input w-40" inputMode="decimal" defaultValue={worker.totalEarned} autoFocus />
        </label>
        <button type="submit" className="btn-primary" disabled={busy}>
          Выплатить
        </button>
      </Form>
    </MoneyDialog>
  );
}
