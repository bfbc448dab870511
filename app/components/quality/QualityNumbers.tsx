import { Link } from "@remix-run/react";
import { formatDateTime } from "../../lib/format";
import type { NextForManager, ScoreNumbers } from "../../quality.server";
import { formatTalkTime } from "../calls/ClientHistory";
import { TableFrame } from "../ui/Table";
import { callDirectionText } from "../../../common/call-direction";

const muted = "text-sm text-slate-600 dark:text-slate-400";
const link = "text-blue-600 hover:underline dark:text-blue-400";
const REASON: Record<NextForManager["calls"][number]["reasons"][number], string> = {
  longest: "самый длинный",
  shortest: "самый короткий",
  report: "заявка",
};

/** «6 мая» for a week's Monday (YYYY-MM-DD). */
function weekLabel(monday: string): string {
  const [y, m, d] = monday.split("-").map(Number);
  const start = new Date(Date.UTC(y, m - 1, d));
  const end = new Date(Date.UTC(y, m - 1, d + 6));
  const day = new Intl.DateTimeFormat("ru-RU", { day: "numeric", month: "short", timeZone: "UTC" });
  return `${day.format(start)} – ${day.format(end)}`;
}

/** Scores per week, manager and topic: average, scored, disputed. */
export function ScoreNumbersTable({
  rows,
  testId = "score-numbers",
  showWeek = true,
}: {
  rows: ScoreNumbers[];
  testId?: string;
  showWeek?: boolean;
}) {
  if (rows.length === 0) {
    return (
      <p className={muted} data-testid={`${testId}-empty`}>
        Оценённых звонков за это время нет.
      </p>
    );
  }
  return (
    <TableFrame>
      <table className="stack-table w-full text-sm" data-testid={testId}>
        <thead>
          <tr className="text-left text-slate-600 dark:text-slate-400">
            {showWeek ? <th className="py-1 pr-4 font-medium">Неделя</th> : null}
            <th className="py-1 pr-4 font-medium">Менеджер</th>
            <th className="py-1 pr-4 font-medium">Тематика</th>
            <th className="py-1 pr-4 text-right font-medium">Средняя оценка</th>
            <th className="py-1 pr-4 text-right font-medium">Оценено</th>
            <th className="py-1 text-right font-medium">Оспорено</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr
              key={`${r.week}-${r.managerId}-${r.filterId}`}
              className="border-t border-slate-200 dark:border-slate-700"
              data-testid="score-numbers-row"
            >
              {showWeek ? (
                <td className="py-1 pr-4 whitespace-nowrap" data-label="Неделя">
                  {weekLabel(r.week)}
                </td>
              ) : null}
              <td className="py-1 pr-4" data-label="Менеджер">
                {r.manager ?? "Удалён"}
              </td>
              <td className="py-1 pr-4" data-label="Тематика">
                {r.topic ?? "Удалена"}
              </td>
              <td className="py-1 pr-4 font-semibold tabular-nums md:text-right" data-label="Средняя оценка">
                {r.average.toLocaleString("ru-RU", { maximumFractionDigits: 1 })}
              </td>
              <td className="py-1 pr-4 tabular-nums md:text-right" data-label="Оценено">
                {r.scored}
              </td>
              <td className="py-1 tabular-nums md:text-right" data-label="Оспорено">
                {r.disputed}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableFrame>
  );
}

/** «Что оценить дальше»: per manager, this week's unscored calls worth a listen, each a link to score it. */
export function ScoreNextList({ next }: { next: NextForManager[] }) {
  if (next.length === 0) {
    return (
      <p className={muted} data-testid="score-next-empty">
        На этой неделе все состоявшиеся разговоры оценены (или их ещё не было).
      </p>
    );
  }
  return (
    <ul className="space-y-3 text-sm" data-testid="score-next">
      {next.map((m) => (
        <li
          key={m.managerId}
          className="border-t border-slate-200 pt-2 first:border-t-0 first:pt-0 dark:border-slate-700"
          data-testid="score-next-manager"
        >
          <p>
            <strong>{m.manager}</strong>
            <span className={muted}>
              {" "}
              · не оценено {m.unscored}, оценено {m.scored}
            </span>
          </p>
          <ul className="mt-1 space-y-1">
            {m.calls.map((c) => (
              <li key={c.id} className="flex flex-wrap items-center gap-x-2">
                <Link to={`/quality/call/${c.id}`} className={link} data-testid="score-next-call">
                  {`${formatDateTime(c.startedAt)} · ${callDirectionText(c.direction)} · ${formatTalkTime(c.talkSeconds)}`}
                </Link>
                <span className={muted}>
                  {c.topic ? `${c.topic} · ` : ""}
                  {c.reasons.map((r) => REASON[r]).join(", ")}
                </span>
              </li>
            ))}
          </ul>
        </li>
      ))}
    </ul>
  );
}
