import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, Outlet, useActionData, useLoaderData, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import type { SubmissionResult } from "@conform-to/react";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { formProps, resultOf, unshownError, useSchemaForm, TextField } from "../components/ui/forms";
import { ratesSchema } from "../../common/schemas/money";
import { PAGE_SIZES, readTableParams, sortChange, tablePage, tableQuery, type SortKey, type TableParams } from "../components/money/workerTable";
import { formatUsd } from "../lib/format";
import { getRates, paymentsAction, paymentStats } from "../money.server";
import { SortIcon } from "../components/ui/Icons";
import { Pager } from "../components/ui/Pager";
import { OneLine, stickyStart, TableFrame } from "../components/ui/Table";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Выплаты" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const [stats, rates] = await Promise.all([paymentStats(context.deps.db, actor), getRates(context.deps.db, actor)]);
  return { stats, rates };
}

export async function action(args: ActionFunctionArgs) {
  return paymentsAction(args);
}

const COLUMNS: Array<[key: SortKey, label: string]> = [
  ["login", "Логин"],
  ["withPassport", "С паспортом"],
  ["withoutPassport", "Без паспорта"],
  ["totalEarned", "Заработано"],
];

export default function PaymentsPage() {
  const { stats, rates } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  const location = useLocation();
  const params = readTableParams(location.search);
  const table = tablePage(stats.workerStats, params);
  const query = tableQuery(params);
  const back = query.slice(1);

  return (
    <section>
      <h1 className="page-title">Выплаты</h1>
      {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}

      <div className="mb-6 grid gap-4 md:grid-cols-[1fr_1fr_2fr]">
        <div className="card" data-testid="count-with-passport">
          <p className="text-sm text-slate-600 dark:text-slate-400">С паспортом</p>
          <p className="text-2xl font-semibold tabular-nums">{stats.withPassport}</p>
        </div>
        <div className="card" data-testid="count-without-passport">
          <p className="text-sm text-slate-600 dark:text-slate-400">Без паспорта</p>
          <p className="text-2xl font-semibold tabular-nums">{stats.withoutPassport}</p>
        </div>
        {/* Saved rates come back as the form's new start (conform reads its default values once). */}
        <RatesForm key={`${rates.withPassport}:${rates.withoutPassport}`} rates={rates} back={back} lastResult={resultOf(actionData, "rates")} />
      </div>

      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Статистика по сотрудникам</h2>
        <TableControls params={params} />
        {/* On a phone the header row gives way to cards (.stack-table): its sort links stay here. */}
        <nav className="mb-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-sm md:hidden" aria-label="Сортировка" data-testid="workers-sort">
          <span className="text-slate-600 dark:text-slate-400">Сортировать:</span>
          {COLUMNS.map(([key, label]) => (
            <SortLink key={key} params={params} column={key} label={label} current />
          ))}
        </nav>
        <TableFrame>
          <table className="stack-table w-full text-left text-sm" data-testid="workers">
            <thead>
              <tr className="border-b border-slate-200 dark:border-slate-700">
                {COLUMNS.map(([key, label]) => (
                  <th
                    key={key}
                    className={`px-2 py-2 ${key === "login" ? stickyStart : ""}`}
                    aria-sort={params.sort === key ? (params.dir === "asc" ? "ascending" : "descending") : undefined}
                  >
                    <SortLink params={params} column={key} label={label} />
                  </th>
                ))}
                <th className="whitespace-nowrap px-2 py-2">Действия</th>
              </tr>
            </thead>
            <tbody>
              {table.rows.length === 0 ? (
                <tr>
                  <td colSpan={5} className="px-2 py-4 text-center text-slate-600 dark:text-slate-400">
                    {params.q ? "Ничего не найдено" : "Сотрудников пока нет"}
                  </td>
                </tr>
              ) : (
                table.rows.map((w) => {
                  const paid = params.paid.includes(w.id);
                  return (
                    <tr key={w.id} className="border-b border-slate-100 dark:border-slate-700/50" data-testid={`worker-${w.login}`}>
                      {/* The login stays in view while the row scrolls to its buttons (issue 17: whose row it is). */}
                      <td className={`px-2 py-2 font-medium ${stickyStart}`} data-label="Логин">
                        <OneLine text={w.login} className="max-w-[13rem] md:max-w-[8rem] desk:max-w-[16rem]" />
                      </td>
                      <td className="px-2 py-2 tabular-nums" data-label="С паспортом">
                        {w.withPassport}
                      </td>
                      <td className="px-2 py-2 tabular-nums" data-label="Без паспорта">
                        {w.withoutPassport}
                      </td>
                      <td className="px-2 py-2 tabular-nums" data-label="Заработано">
                        {formatUsd(w.totalEarned)}
                      </td>
                      <td className="px-2 py-2" data-label="Действия">
                        <div className="flex flex-wrap gap-1 whitespace-nowrap md:flex-nowrap">
                          <RowLink paid={paid} to={`/payments/pay/${w.id}${query}`} label="Выплата" />
                          <RowLink paid={paid} to={`/payments/history/${w.id}${query}`} label="История" />
                          <Link
                            to={`/payments/balance/${w.id}${query}${query ? "&" : "?"}op=add`}
                            className="btn-secondary px-2 py-1 text-xs"
                            preventScrollReset
                          >
                            Добавить
                          </Link>
                          <Link
                            to={`/payments/balance/${w.id}${query}${query ? "&" : "?"}op=rem`}
                            className="btn-secondary px-2 py-1 text-xs"
                            preventScrollReset
                          >
                            Снять
                          </Link>
                          <Link
                            to={`/payments/balance/${w.id}${query}${query ? "&" : "?"}op=def`}
                            className="btn-secondary px-2 py-1 text-xs"
                            preventScrollReset
                          >
                            Обнулить
                          </Link>
                        </div>
                      </td>
                    </tr>
                  );
                })
              )}
            </tbody>
          </table>
        </TableFrame>
        <Pager page={table.page} pages={table.pages} total={table.total} hrefFor={(n) => tableQuery(params, { page: n }) || "?"} />
      </div>
      <Outlet />
    </section>
  );
}

/** After a payout, that worker's payout and history buttons turn green and disabled for the rest of the visit. */
/** A column's sort link: the header's at desk width, the phone's row above the cards (`current` marks the chosen one). */
function SortLink({ params, column, label, current = false }: { params: TableParams; column: SortKey; label: string; current?: boolean }) {
  const sorted = params.sort === column;
  return (
    <Link
      to={tableQuery(params, sortChange(params, column)) || "?"}
      preventScrollReset
      className="inline-flex items-center gap-1 hover:underline"
      aria-current={current && sorted ? "true" : undefined}
    >
      {label}
      {sorted ? (
        <span aria-hidden="true">
          <SortIcon dir={params.dir} />
        </span>
      ) : null}
    </Link>
  );
}

function RowLink({ paid, to, label }: { paid: boolean; to: string; label: string }) {
  if (paid) {
    return (
      <button type="button" disabled className="btn bg-green-600 px-2 py-1 text-xs text-white disabled:opacity-100" data-paid="true">
        {label}
      </button>
    );
  }
  return (
    <Link to={to} className="btn-secondary px-2 py-1 text-xs" preventScrollReset>
      {label}
    </Link>
  );
}

/** The two rates, checked by core's rates schema in the browser and the action (decision 063). */
function RatesForm({
  rates,
  back,
  lastResult,
}: {
  rates: { withPassport: number; withoutPassport: number };
  back: string;
  lastResult: SubmissionResult<string[]> | null;
}) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "rates";
  const [form, fields] = useSchemaForm(ratesSchema, { id: "rates", lastResult, defaultValue: rates });
  const unshown = unshownError(lastResult, ["withPassport", "withoutPassport"]);
  return (
    <Form method="post" {...formProps(form)} className="card space-y-2" preventScrollReset>
      {unshown ? <ServerMessage kind="error" message={unshown} /> : null}
      <p className="text-sm font-medium">Ставка за заявку, $</p>
      <input type="hidden" name="intent" value="rates" />
      <input type="hidden" name="back" value={back} />
      <div className="flex flex-wrap items-start gap-2">
        <TextField field={fields.withPassport} label="С паспортом" boxClassName="text-sm" className="input w-28" inputMode="decimal" />
        <TextField field={fields.withoutPassport} label="Без паспорта" boxClassName="text-sm" className="input w-28" inputMode="decimal" />
        <button type="submit" className="btn-primary mt-6" disabled={busy}>
          Сохранить
        </button>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">Новые ставки действуют для следующих заявок.</p>
    </Form>
  );
}

function TableControls({ params }: { params: TableParams }) {
  const submit = useSubmit();
  return (
    <Form method="get" className="mb-3 flex flex-wrap items-center gap-3" preventScrollReset>
      <input
        type="search"
        name="q"
        defaultValue={params.q}
        placeholder="Поиск по логину..."
        aria-label="Поиск по логину"
        className="input max-w-xs"
        onChange={(e) => submit(e.currentTarget.form, { replace: true, preventScrollReset: true })}
      />
      {params.sort !== "login" ? <input type="hidden" name="sort" value={params.sort} /> : null}
      {params.dir !== "asc" ? <input type="hidden" name="dir" value={params.dir} /> : null}
      {params.paid.length ? <input type="hidden" name="paid" value={params.paid.join(",")} /> : null}
      <label className="flex items-center gap-2 text-sm">
        Показывать по:
        <select
          name="size"
          defaultValue={params.size}
          className="input w-20"
          onChange={(e) => submit(e.currentTarget.form, { preventScrollReset: true })}
        >
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" className="btn-secondary">
        Найти
      </button>
    </Form>
  );
}
