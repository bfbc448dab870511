import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Form, Link, useLoaderData, useLocation } from "@remix-run/react";
import { Fragment } from "react";
import { actorOf, requireAdminUser } from "../auth.server";
import { readableApplicationText } from "../components/money/applicationText";
import { DialogOrSection } from "../components/ui/DialogOrSection";
import { readTableParams, tableQuery } from "../components/money/workerTable";
import { formatDateTime, formatUsd } from "../lib/format";
import { loaderError, paymentsAction, paymentStats, payoutDetails, payoutHistory } from "../money.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const history = await payoutHistory(db, actor, params.workerId).catch(loaderError);
  const { workerStats } = await paymentStats(db, actor);
  const login = workerStats.find((w) => String(w.id) === params.workerId)?.login ?? `#${params.workerId}`;
  const search = new URL(request.url).searchParams;
  const openId = Number(search.get("open"));
  const open = history.find((p) => p.id === openId) ?? null;
  const details = open ? await payoutDetails(db, actor, { workerId: params.workerId, processTime: Date.parse(open.date) }) : [];
  return { login, history, openId: open?.id ?? null, details, confirmCancel: open !== null && search.get("cancel") === "1" };
}

export async function action(args: ActionFunctionArgs) {
  return paymentsAction(args);
}

/** SPEC /payments История выплат: payouts (date and time, amount); one click opens what it covered. */
export default function HistoryDialog() {
  const { login, history, openId, details, confirmCancel } = useLoaderData<typeof loader>();
  const location = useLocation();
  const query = tableQuery(readTableParams(location.search));
  const here = location.pathname;
  const withOpen = (id: number | null) => {
    const params = new URLSearchParams(query);
    if (id !== null) params.set("open", String(id));
    const text = params.toString();
    return `${here}${text ? `?${text}` : ""}`;
  };

  return (
    <DialogOrSection open title={`История выплат: ${login}`} closeHref={`/payments${query}`} width="medium" testId="history-dialog">
      {history.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">Нет истории выплат</p>
      ) : (
        <ul className="space-y-2" data-testid="payout-list">
          {history.map((p) => (
            <Fragment key={p.id}>
              <li>
                <Link
                  to={withOpen(openId === p.id ? null : p.id)}
                  preventScrollReset
                  replace
                  className={`flex justify-between gap-4 rounded-md border px-3 py-2 text-sm hover:bg-slate-50 dark:hover:bg-slate-700 ${
                    openId === p.id ? "border-blue-500" : "border-slate-200 dark:border-slate-700"
                  }`}
                  aria-expanded={openId === p.id}
                >
                  <span>{formatDateTime(p.date)}</span>
                  <span className="font-semibold tabular-nums">{formatUsd(p.amount)}</span>
                </Link>
              </li>
              {openId === p.id ? (
                <li className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="payout-details">
                  <table className="w-full text-left text-sm">
                    <thead>
                      <tr className="border-b border-slate-200 dark:border-slate-700">
                        <th className="px-2 py-1">Дата</th>
                        <th className="px-2 py-1">Сумма</th>
                        <th className="px-2 py-1">Текст</th>
                      </tr>
                    </thead>
                    <tbody>
                      {details.map((d, i) => (
                        <tr key={i} className="border-b border-slate-100 align-top dark:border-slate-700/50">
                          <td className="whitespace-nowrap px-2 py-1">{formatDateTime(d.date)}</td>
                          <td className="whitespace-nowrap px-2 py-1 tabular-nums">{formatUsd(d.amount)}</td>
                          <td className="whitespace-pre-line px-2 py-1">{readableApplicationText(d.applicationText)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <div className="mt-2 flex flex-wrap gap-2">
                    <Link to={withOpen(null)} preventScrollReset replace className="btn-secondary">
                      Закрыть
                    </Link>
                    {confirmCancel ? null : (
                      <Link to={`${withOpen(p.id)}&cancel=1`} preventScrollReset replace className="btn-secondary text-red-700 dark:text-red-400">
                        Отменить выплату
                      </Link>
                    )}
                  </div>
                  {confirmCancel ? (
                    <Form method="post" className="mt-3 rounded-md border border-red-300 bg-red-50 p-3 text-sm dark:bg-red-950" preventScrollReset>
                      <p className="mb-2">
                        Отменить выплату {formatUsd(p.amount)}? Сумма вернётся на баланс сотрудника, а её заявки перейдут в следующую выплату.
                      </p>
                      <input type="hidden" name="intent" value="cancel" />
                      <input type="hidden" name="paymentId" value={p.id} />
                      <input type="hidden" name="back" value={query.slice(1)} />
                      <div className="flex gap-2">
                        <button type="submit" className="btn-danger">
                          Да, отменить
                        </button>
                        <Link to={withOpen(p.id)} preventScrollReset replace className="btn-secondary">
                          Нет
                        </Link>
                      </div>
                    </Form>
                  ) : null}
                </li>
              ) : null}
            </Fragment>
          ))}
        </ul>
      )}
    </DialogOrSection>
  );
}
