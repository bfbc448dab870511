import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { MoneyDialog } from "../components/money/MoneyDialog";
import { readTableParams, tableQuery } from "../components/money/workerTable";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { FieldError, formProps, inputProps, resultOf, unshownError, useSchemaForm } from "../components/ui/forms";
import { payoutSchema } from "../../common/schemas/money";
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

export default function PayDialog() {
  const { worker } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const navigation = useNavigation();
  const location = useLocation();
  const query = tableQuery(readTableParams(location.search));
  const busy = navigation.state === "submitting";
  // SPEC §5: a payout of 0 is refused in the browser before anything is sent (core's schema; the server refuses too).
  const [form, fields] = useSchemaForm(payoutSchema, {
    id: `pay-${worker.id}`,
    lastResult: resultOf(actionData, "payout"),
    defaultValue: { userId: worker.id, amount: worker.totalEarned },
  });
  const unshown = unshownError(resultOf(actionData, "payout"), ["amount"]);

  return (
    <MoneyDialog title={`Выплата: ${worker.login}`} closeTo={`/payments${query}`} testId="pay-dialog">
      {actionData && "error" in actionData && actionData.error ? (
        <ServerMessage key={answerKey} kind="error" message={actionData.error.message} />
      ) : null}
      <p className="mb-3 text-sm">
        Заработано: <span className="font-semibold">{formatUsd(worker.totalEarned)}</span>
      </p>
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      <Form method="post" {...formProps(form)} className="flex flex-wrap items-start gap-2" preventScrollReset>
        <input type="hidden" name="intent" value="payout" />
        <input type="hidden" name="userId" value={worker.id} />
        <input type="hidden" name="back" value={query.slice(1)} />
        <div className="text-sm">
          <label className="label" htmlFor={fields.amount.id}>
            Сумма выплаты, $
          </label>
          <input {...inputProps(fields.amount)} className="input w-40" inputMode="decimal" autoFocus />
          <FieldError field={fields.amount} />
        </div>
        <button type="submit" className="btn-primary mt-6" disabled={busy}>
          Выплатить
        </button>
      </Form>
    </MoneyDialog>
  );
}
