import type { ReactNode } from "react";
import type { CallDayNumbers, CallNumbers } from "../../../server/core/statistics/call-numbers";
import { formatHoursMinutesSeconds, formatPercent, formatRatio } from "../../lib/format";

/** The four numbers of issue 29 in the order the dashboard shows them, with their Russian labels (decision 060). */
const COLUMNS: Array<{ label: string; hint: string; value: (n: CallNumbers) => string; key: string }> = [
  { key: "attempts", label: "Попытки", hint: "Исходящие звонки за день", value: (n) => n.attempts.toLocaleString("ru-RU") },
  { key: "answered", label: "Дозвон", hint: "Звонки, на которые ответили", value: (n) => n.answered.toLocaleString("ru-RU") },
  { key: "percent", label: "Дозвон, %", hint: "Доля отвеченных попыток", value: (n) => formatPercent(n.answeredPercent) },
  { key: "talk", label: "Время разговоров", hint: "ч:мм:сс", value: (n) => formatHoursMinutesSeconds(n.talkSeconds) },
  { key: "per-contact", label: "Попыток на клиента", hint: "В среднем на одного клиента", value: (n) => formatRatio(n.attemptsPerContact) },
];

const muted = "text-sm text-slate-600 dark:text-slate-400";

/**
 * Today's calls out (issue 29): the day's totals as cards, then per topic and per manager. At desk width each
 * breakdown is a table; on a phone each row is a small card, so nothing scrolls sideways.
 */
export function CallNumbersToday({ calls }: { calls: CallDayNumbers }) {
  return (
    <div className="card mt-4" data-testid="call-numbers">
      <h2 className="mb-3 text-lg font-semibold">Звонки за сегодня</h2>
      <p className="mb-3 text-sm" data-testid="call-inbound">
        {`Входящие: ${calls.inbound.calls}, отвечено ${calls.inbound.answered}, пропущено ${calls.inbound.missed}, перезвонили ${calls.inbound.calledBack}`}
        {calls.inbound.callBackSeconds !== null ? `, время до перезвона ${formatHoursMinutesSeconds(calls.inbound.callBackSeconds)}` : ""}
      </p>
      {calls.total.attempts === 0 ? (
        <p className={muted} data-testid="call-numbers-empty">
          Сегодня ещё никто не звонил: попыток нет
        </p>
      ) : (
        <>
          <dl className="mb-4 grid grid-cols-2 gap-3 sm:grid-cols-3 desk:grid-cols-5" data-testid="call-totals">
            {COLUMNS.map((column) => (
              <div key={column.key} className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid={`call-total-${column.key}`}>
                <dt className={muted} title={column.hint}>
                  {column.label}
                </dt>
                <dd className="text-xl font-semibold tabular-nums">{column.value(calls.total)}</dd>
              </div>
            ))}
          </dl>
          <Breakdown
            title="По тематикам"
            nameHeader="Тематика"
            testId="call-topics"
            rows={calls.topics.map((row) => ({ key: String(row.filterId), name: row.topic, numbers: row }))}
          />
          <Breakdown
            title="По менеджерам"
            nameHeader="Менеджер"
            testId="call-managers"
            rows={calls.managers.map((row) => ({
              key: String(row.userId),
              name: <span title={row.login || undefined}>{row.manager}</span>,
              numbers: row,
            }))}
          />
        </>
      )}
    </div>
  );
}

function Breakdown({
  title,
  nameHeader,
  testId,
  rows,
}: {
  title: string;
  nameHeader: string;
  testId: string;
  rows: Array<{ key: string; name: ReactNode; numbers: CallNumbers }>;
}) {
  return (
    <section className="mt-4">
      <h3 className="mb-2 font-semibold">{title}</h3>
      {/* Fixed layout: both breakdowns line up their columns, a long name wraps in its own. */}
      <table className="hidden w-full table-fixed text-sm desk:table" data-testid={testId}>
        <thead>
          <tr className="text-left text-slate-600 dark:text-slate-400">
            <th className="w-[28%] py-1 pr-4 font-medium">{nameHeader}</th>
            {COLUMNS.map((column) => (
              <th key={column.key} className="py-1 pr-4 text-right font-medium last:pr-0" title={column.hint}>
                {column.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key} className="border-t border-slate-200 dark:border-slate-700">
              <td className="py-1 pr-4">{row.name}</td>
              {COLUMNS.map((column) => (
                <td key={column.key} className="py-1 pr-4 text-right tabular-nums last:pr-0">
                  {column.value(row.numbers)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <ul className="space-y-2 desk:hidden" data-testid={`${testId}-cards`}>
        {rows.map((row) => (
          <li key={row.key} className="rounded-md border border-slate-200 p-3 dark:border-slate-700">
            <p className="mb-1 font-medium">{row.name}</p>
            <dl className="grid grid-cols-1 gap-x-6 gap-y-1 text-sm sm:grid-cols-2">
              {COLUMNS.map((column) => (
                <div key={column.key} className="flex justify-between gap-2">
                  <dt className="text-slate-600 dark:text-slate-400">{column.label}</dt>
                  <dd className="tabular-nums">{column.value(row.numbers)}</dd>
                </div>
              ))}
            </dl>
          </li>
        ))}
      </ul>
    </section>
  );
}
