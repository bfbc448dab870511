import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { AmountForm } from "../components/money/AmountForm";
import { DialogOrSection } from "../components/ui/DialogOrSection";
import { readTableParams, tableQuery } from "../components/money/workerTable";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { payoutSchema } from "../../common/schemas/money";
import { formatUsd } from "../lib/format";
import { paymentsAction, paymentStats } from "../money.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

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
  const location = useLocation();
  const query = tableQuery(readTableParams(location.search));

  return (
    <DialogOrSection open title={`Выплата: ${worker.login}`} closeHref={`/payments${query}`} width="medium" testId="pay-dialog">
      {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}
      <p className="mb-3 text-sm">
        Заработано: <span className="font-semibold">{formatUsd(worker.totalEarned)}</span>
      </p>
      {/* SPEC §5: a payout of 0 is refused in the browser before anything is sent (core's schema; the server refuses too). */}
      <AmountForm
        schema={payoutSchema}
        name="payout"
        id={`pay-${worker.id}`}
        actionData={actionData}
        amount={worker.totalEarned}
        label="Сумма выплаты, $"
        hidden={{ intent: "payout", userId: worker.id, back: query.slice(1) }}
        submit="Выплатить"
      />
    </DialogOrSection>
  );
}
