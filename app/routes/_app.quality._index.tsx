import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { ScoreNextList, ScoreNumbersTable } from "../components/quality/QualityNumbers";
import { ScoreBadge } from "../components/quality/ScoreBadge";
import { TableFrame, TableHead } from "../components/ui/Table";
import { formatDateTime } from "../lib/format";
import { listScorecards, listScores, scoreNext, scoreNumbers } from "../quality.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Оценка звонков" }];

/**
 * /quality: call scoring for admins (issue 39, decision 073): the open disputes, which calls to score next, the numbers
 * per week, the scorecards, the latest scores.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const [cards, disputes, latest, next, numbers] = await Promise.all([
    listScorecards(db, actor),
    listScores(db, actor, { disputed: "open" }),
    listScores(db, actor),
    scoreNext(db, actor),
    scoreNumbers(db, actor, { weeks: 8 }),
  ]);
  return { cards, disputes, latest: latest.slice(0, 20), next, numbers };
}

const muted = "text-sm text-slate-600 dark:text-slate-400";
const link = "text-blue-600 hover:underline dark:text-blue-400";

export default function QualityPage() {
  const { cards, disputes, latest, next, numbers } = useLoaderData<typeof loader>();
  return (
    <section className="space-y-4">
      <h1 className="page-title">Оценка звонков</h1>
      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Спорные оценки</h2>
        {disputes.length === 0 ? (
          <p className={muted} data-testid="disputes-empty">
            Открытых споров нет.
          </p>
        ) : (
          <ul className="space-y-2 text-sm" data-testid="open-disputes">
            {disputes.map((s) => (
              <li
                key={s.id}
                className="flex flex-wrap items-center gap-2 border-t border-slate-200 pt-2 first:border-t-0 first:pt-0 dark:border-slate-700"
              >
                <ScoreBadge score={s.score} />
                <span>
                  {s.manager ?? "—"} · {s.topic ?? "—"} · <time dateTime={s.call.startedAt}>{formatDateTime(s.call.startedAt)}</time>
                </span>
                <span className="min-w-0 flex-1 basis-full break-words italic sm:basis-auto">«{s.dispute?.comment}»</span>
                <Link to={`/quality/call/${s.callId}`} className={link}>
                  Решить
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Что оценить дальше</h2>
        <ScoreNextList next={next} />
      </div>
      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Оценки по неделям</h2>
        <ScoreNumbersTable rows={numbers} />
      </div>
      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Оценочные листы тематик</h2>
        {cards.length === 0 ? (
          <p className={muted}>Тематик пока нет: оценочный лист заполняется для тематики.</p>
        ) : (
          <TableFrame>
            <table className="stack-table w-full text-sm" data-testid="scorecards">
              <TableHead
                columns={["Тематика", { label: "Пунктов", className: "text-right" }]}
                actions="Действие"
                row="text-left text-slate-600 dark:text-slate-400"
                cell="py-1 pr-4 font-medium"
              />
              <tbody>
                {cards.map((c) => (
                  <tr key={c.filterId} className="border-t border-slate-200 dark:border-slate-700">
                    <td className="py-1 pr-4" data-label="Тематика">
                      {c.filterName}
                    </td>
                    <td className="py-1 pr-4 tabular-nums md:text-right" data-label="Пунктов">
                      {c.criteria === 0 ? <span className={muted}>нет листа</span> : c.criteria}
                    </td>
                    <td className="py-1 md:text-right">
                      <Link
                        to={`/quality/scorecard/${c.filterId}`}
                        className={link}
                        aria-label={`${c.criteria === 0 ? "Заполнить" : "Изменить"} оценочный лист тематики ${c.filterName}`}
                      >
                        {c.criteria === 0 ? "Заполнить" : "Изменить"}
                      </Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableFrame>
        )}
      </div>
      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Последние оценки</h2>
        {latest.length === 0 ? (
          <p className={muted} data-testid="scores-empty">
            Оценок пока нет. Оценить звонок можно из его записи: на главной, в истории клиента.
          </p>
        ) : (
          <ul className="space-y-2 text-sm" data-testid="latest-scores">
            {latest.map((s) => (
              <li key={s.id} className="flex flex-wrap items-center gap-2">
                <ScoreBadge score={s.finalScore} />
                <span className="min-w-0 flex-1">
                  {s.manager ?? "—"} · {s.topic ?? "—"} · <time dateTime={s.call.startedAt}>{formatDateTime(s.call.startedAt)}</time>
                  {s.dispute && !s.decision ? <span className="text-amber-700 dark:text-amber-300"> · оспорена</span> : null}
                </span>
                <Link to={`/quality/call/${s.callId}`} className={link}>
                  Открыть
                </Link>
              </li>
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}
