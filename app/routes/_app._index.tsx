import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { CallRecording, formatTalkTime } from "../components/calls/ClientHistory";
import { formatDateTime } from "../lib/format";
import { PieChart } from "../components/charts/PieChart";
import { CallNumbersToday } from "../components/statistics/CallNumbers";
import { ContactRulesNow } from "../components/statistics/ContactRules";
import { useBackgroundRefresh } from "../lib/background-refresh";
import { TableFrame } from "../components/ui/Table";
import { ScoreNumbersTable } from "../components/quality/QualityNumbers";
import { callDirectionText } from "../../common/call-direction";
import type { PieDrawing } from "../components/charts/pie-drawing.server";
import type { ScoreNumbers } from "../quality.server";
import type { Statistics } from "../statistics.server";
import type { RecordedCall } from "../calls.server";
import type { ManagerBreakDay } from "../breaks.server";
import {
  actorOf,
  breakTimeToday,
  diskWarning,
  drawPie,
  getPersonalStatistics,
  getStatistics,
  recentRecordedCalls,
  requireUser,
  scoreNumbers,
  webhooksSwitchedOff,
} from "../server-imports/dashboard.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Главная" }];

/** Admins get today's dashboard; a manager (whose header profile link leads here) gets his own numbers. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const actor = actorOf(user);
  if (user.isAdmin) {
    const [stats, breaks, recordings, scores, hooksOff] = await Promise.all([
      getStatistics(context.deps.db, actor),
      breakTimeToday(context.deps.db, actor),
      recentRecordedCalls(context.deps.db, actor),
      scoreNumbers(context.deps.db, actor, { weeks: 1 }),
      webhooksSwitchedOff(context.deps.db, actor),
    ]);
    const { recordings: rec } = context.deps;
    const statuses = Object.entries(stats.statusCounts).map(([label, value]) => ({ label, value, color: stats.statusColors[label] }));
    return {
      view: "admin" as const,
      stats,
      statusPie: statuses.length === 0 ? null : drawPie(statuses),
      breaks,
      recordings,
      scores,
      hooksOff,
      diskWarning: diskWarning(rec.folder, rec.disk()),
    };
  }
  const personal = await getPersonalStatistics(context.deps.db, actor, user.id);
  return {
    view: "manager" as const,
    name: user.displayName || user.login,
    personalPie: personal.length === 0 ? null : drawPie(personal.map((p) => ({ label: p.status, value: p.count, color: p.color }))),
  };
}

/** SPEC §9: statistics refresh every 30 s. */
const STATISTICS_POLL_MS = 30_000;

export default function HomePage() {
  const data = useLoaderData<typeof loader>();
  useBackgroundRefresh(STATISTICS_POLL_MS);
  return data.view === "admin" ? (
    <Dashboard
      stats={data.stats}
      statusPie={data.statusPie}
      breaks={data.breaks}
      recordings={data.recordings}
      scores={data.scores}
      diskWarning={data.diskWarning}
      hooksOff={data.hooksOff}
    />
  ) : (
    <ManagerHome name={data.name} personalPie={data.personalPie} />
  );
}

function Dashboard({
  stats,
  statusPie,
  breaks,
  recordings,
  scores,
  diskWarning,
  hooksOff,
}: {
  stats: Statistics;
  /** The status shares' donut, drawn by the loader (null: no status today). */
  statusPie: PieDrawing | null;
  breaks: ManagerBreakDay[];
  recordings: RecordedCall[];
  scores: ScoreNumbers[];
  diskWarning: string | null;
  /** Webhooks switched off after failing for a day (issue 44). */
  hooksOff: Array<{ id: number; url: string; reason: string }>;
}) {
  const cards: Array<[label: string, value: number, testId: string]> = [
    ["Баз загружено", stats.databases, "stat-databases"],
    ["Контактов пришло в команду", stats.contacts, "stat-contacts"],
    ["Обработано клиентов", stats.reportStatuses, "stat-processed"],
    ["Всего передач", stats.totalReportStatuses, "stat-transfers"],
    ["Всего баз", stats.totalDatabases, "stat-total-databases"],
    ["Всего контактов", stats.totalContacts, "stat-total-contacts"],
  ];
  const top = Array.from({ length: 5 }, (_, i) => stats.topManagers[i]).filter(Boolean);
  return (
    <section>
      <h1 className="page-title">Statistics for Today</h1>
      {diskWarning ? (
        <p
          role="alert"
          className="mb-4 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-200"
          data-testid="recordings-disk-warning"
        >
          {diskWarning}
        </p>
      ) : null}
      {hooksOff.map((hook) => (
        <p
          key={hook.id}
          role="alert"
          className="mb-4 break-words rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-900 dark:border-red-700 dark:bg-red-950 dark:text-red-200"
          data-testid="webhook-off-warning"
        >
          {`Вебхук ${hook.url} выключен: сутки не принимал события. `}
          <Link to={`/integrations?log=${hook.id}#log`} className="underline">
            Журнал отправок
          </Link>
        </p>
      ))}
      <div className="mb-6 grid grid-cols-2 gap-4 md:grid-cols-3">
        {cards.map(([label, value, testId]) => (
          <div key={testId} className="card" data-testid={testId}>
            <p className="text-sm text-slate-600 dark:text-slate-400">{label}</p>
            <p className="text-2xl font-semibold tabular-nums">{value.toLocaleString("ru-RU")}</p>
          </div>
        ))}
      </div>
      <div className="grid gap-4 desk:grid-cols-[1fr_2fr]">
        <div className="card">
          <h2 className="mb-3 text-lg font-semibold">Топ 5 менеджеров</h2>
          {top.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">Сегодня ещё никто не обработал клиентов</p>
          ) : (
            <ol className="space-y-2" data-testid="top-managers">
              {top.map((m, i) => (
                <li key={`${m.manager}-${i}`} className="flex justify-between gap-4 text-sm">
                  <span>
                    {i + 1}. {m.manager || "Неизвестно"}
                  </span>
                  <span className="font-semibold tabular-nums">{m.count ?? 0}</span>
                </li>
              ))}
            </ol>
          )}
        </div>
        <div className="card">
          <h2 className="mb-3 text-lg font-semibold">Статусы за сегодня</h2>
          {statusPie === null ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">Не хватает информации для сбора статистики</p>
          ) : (
            <PieChart drawing={statusPie} title="Доли статусов за сегодня" testId="status-pie" />
          )}
        </div>
      </div>
      <CallNumbersToday calls={stats.calls} />
      <ContactRulesNow topics={stats.contactRules} />
      <WeekScores scores={scores} />
      <RecentRecordings recordings={recordings} />
      <BreaksToday breaks={breaks} />
    </section>
  );
}

/**
 * A manager as the dashboard names him everywhere (issue 31: it used the login, the name and «name (login)"):
 * his display name as in the top managers, the login when he has none; the login on hover.
 */
function ManagerName({ displayName, login }: { displayName: string; login: string }) {
  return <span title={login}>{displayName || login}</span>;
}

/** Today's break time per manager (issue 18): a break over midnight counts only its part after it. */
function BreaksToday({ breaks }: { breaks: ManagerBreakDay[] }) {
  return (
    <div className="card mt-4">
      <h2 className="mb-3 text-lg font-semibold">Перерывы сегодня</h2>
      {breaks.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="breaks-today-empty">
          Сегодня перерывов не было
        </p>
      ) : (
        <TableFrame>
          <table className="stack-table w-full text-sm" data-testid="breaks-today">
            <thead>
              <tr className="text-left text-slate-600 dark:text-slate-400">
                <th className="py-1 pr-4 font-medium">Менеджер</th>
                <th className="py-1 pr-4 text-right font-medium">Перерывов</th>
                <th className="py-1 text-right font-medium">Всего</th>
              </tr>
            </thead>
            <tbody>
              {breaks.map((row) => (
                <tr key={row.userId} className="border-t border-slate-200 dark:border-slate-700" data-testid={`break-row-${row.login}`}>
                  <td className="py-1 pr-4" data-label="Менеджер">
                    <ManagerName {...row} />
                    {row.onBreak ? <span className="ml-2 text-xs text-amber-700 dark:text-amber-300">сейчас на перерыве</span> : null}
                  </td>
                  <td className="py-1 pr-4 tabular-nums md:text-right" data-label="Перерывов">
                    {row.breaks}
                  </td>
                  <td className="py-1 tabular-nums md:text-right" data-label="Всего" data-testid="break-total">
                    {formatTalkTime(row.seconds)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableFrame>
      )}
    </div>
  );
}

/** This week's call scores per manager and topic (issue 39 §3); the rest is on /quality. */
function WeekScores({ scores }: { scores: ScoreNumbers[] }) {
  return (
    <div className="card mt-4" data-testid="week-scores">
      <div className="mb-3 flex flex-wrap items-baseline justify-between gap-2">
        <h2 className="text-lg font-semibold">Оценка звонков за неделю</h2>
        <Link to="/quality" className="text-sm text-blue-600 hover:underline dark:text-blue-400">
          Что оценить дальше
        </Link>
      </div>
      <ScoreNumbersTable rows={scores} testId="week-score-numbers" showWeek={false} />
    </div>
  );
}

/** The newest recorded calls, each with its player and download (or what became of its recording). */
function RecentRecordings({ recordings }: { recordings: RecordedCall[] }) {
  return (
    <div className="card mt-4">
      <h2 className="mb-3 text-lg font-semibold">Записи разговоров</h2>
      {recordings.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">Записей пока нет: включите «Записывать разговоры» в тематике.</p>
      ) : (
        <ol className="space-y-3 text-sm" data-testid="recent-recordings">
          {recordings.map((call) => (
            <li key={call.id} className="border-t border-slate-200 pt-2 first:border-t-0 first:pt-0 dark:border-slate-700">
              <div className="text-xs text-slate-600 dark:text-slate-400">
                <time dateTime={call.at}>{formatDateTime(call.at)}</time>
                {`${call.manager ? ` · ${call.manager}` : ""} · ${callDirectionText(call.direction)} · ${call.number} · ${formatTalkTime(call.talkSeconds)}`}
              </div>
              <CallRecording entry={{ ...call, downloadable: call.playable }} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function ManagerHome({ name, personalPie }: { name: string; personalPie: PieDrawing | null }) {
  return (
    <section>
      <h1 className="page-title">Главная</h1>
      <div className="card mb-4 space-y-3">
        <p>Здравствуйте, {name}!</p>
        <p className="text-sm text-slate-600 dark:text-slate-400">Лиды для работы ждут в разделе Клиенты.</p>
        <Link to="/leadpanel" className="btn-primary">
          Клиенты
        </Link>
      </div>
      <div className="card">
        <h2 className="mb-3 text-lg font-semibold">Моя статистика</h2>
        {personalPie === null ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">Не хватает информации для сбора статистики</p>
        ) : (
          <PieChart drawing={personalPie} title="Мои статусы" testId="personal-pie" />
        )}
      </div>
    </section>
  );
}
