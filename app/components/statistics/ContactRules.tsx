import type { TopicRuleNumbers } from "../../../server/core/statistics/contact-rules";

const muted = "text-sm text-slate-600 dark:text-slate-400";

/** «10 000+» when the count stopped at its cap. */
const waitingText = (row: TopicRuleNumbers) => `${row.waitingForHours.toLocaleString("ru-RU")}${row.waitingCapped ? "+" : ""}`;

/**
 * Who the calling rules hold back now, per active topic (issue 43): clients at their contact limit, and never-worked
 * clients waiting for their hours. A list of small rows: readable at 390 and at desk width alike.
 */
export function ContactRulesNow({ topics }: { topics: TopicRuleNumbers[] }) {
  return (
    <div className="card mt-4" data-testid="contact-rules">
      <h2 className="mb-3 text-lg font-semibold">Правила звонков сейчас</h2>
      {topics.length === 0 ? (
        <p className={muted}>Активных тематик нет</p>
      ) : (
        <ul className="divide-y divide-slate-200 dark:divide-slate-700">
          {topics.map((row) => (
            <li
              key={row.filterId}
              className="flex flex-wrap items-baseline justify-between gap-x-6 gap-y-1 py-2"
              data-testid={`contact-rules-${row.filterId}`}
            >
              <span className="font-medium">{row.topic}</span>
              <span className="flex flex-wrap gap-x-6 gap-y-1 text-sm">
                <span>
                  <span className="text-slate-600 dark:text-slate-400">На пределе звонков: </span>
                  <b className="tabular-nums" data-testid="at-limit">
                    {row.atLimit === null ? "лимитов нет" : row.atLimit.toLocaleString("ru-RU")}
                  </b>
                </span>
                <span>
                  <span className="text-slate-600 dark:text-slate-400">Ждут рабочего времени: </span>
                  <b className="tabular-nums" data-testid="waiting-for-hours">
                    {waitingText(row)}
                  </b>
                </span>
              </span>
            </li>
          ))}
        </ul>
      )}
      <p className={`mt-2 text-xs ${muted}`}>
        На пределе — клиенты, которым в этом периоде уже звонили столько, сколько позволяет тематика. Ждут — новые клиенты, у которых сейчас нерабочее
        время. Дозвон и попыток на клиента — в «Звонках за сегодня».
      </p>
    </div>
  );
}
