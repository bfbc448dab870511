import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { ConfirmAction } from "../components/ui/ConfirmAction";
import { DialogOrSection } from "../components/ui/DialogOrSection";
import { readTableParams, tableQuery } from "../components/money/workerTable";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { resultOf, unshownError } from "../components/ui/forms";
import { AmountForm } from "../components/money/AmountForm";
import { adjustSchema } from "../../common/schemas/money";
import { formatUsd } from "../lib/format";
import { paymentsAction, paymentStats } from "../money.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

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

export default function BalanceDialog() {
  const { worker, op } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const location = useLocation();
  const query = tableQuery(readTableParams(location.search));

  if (op === "def") {
    // The reset has no field: any refusal of it (a stale page's id) is said above the question.
    const unshown = unshownError(resultOf(actionData, "balance"), []);
    return (
      <ConfirmAction
        open
        title={`Обнулить баланс: ${worker.login}`}
        closeHref={`/payments${query}`}
        action={`${location.pathname}${location.search}`}
        intent="def"
        fields={{ userId: worker.id, back: query.slice(1) }}
        confirmLabel="Обнулить"
        testId="balance-dialog"
      >
        {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}
        {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
        Баланс {worker.login} ({formatUsd(worker.totalEarned)}) станет 0,00 $. Отменить это нельзя.
      </ConfirmAction>
    );
  }

  const title = op === "add" ? `Добавить к балансу: ${worker.login}` : `Снять с баланса: ${worker.login}`;
  return (
    <DialogOrSection open title={title} closeHref={`/payments${query}`} width="medium" testId="balance-dialog">
      {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}
      <p className="mb-3 text-sm">
        Сейчас на балансе: <span className="font-semibold">{formatUsd(worker.totalEarned)}</span>
      </p>
      {/* SPEC §5: add and subtract need a non-empty, non-zero number, checked before anything is sent (core's schema).
          The kind is there for that check; the action takes it from the intent. */}
      <AmountForm
        schema={adjustSchema}
        name="balance"
        id={`balance-${worker.id}-${op}`}
        actionData={actionData}
        label="Сумма, $"
        hidden={{ intent: op, kind: op, userId: worker.id, back: query.slice(1) }}
        submit={op === "add" ? "Добавить" : "Снять"}
      />
    </DialogOrSection>
  );
}
