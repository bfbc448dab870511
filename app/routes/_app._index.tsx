import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { actorOf, requireUser } from "../auth.server";
import { PieChart } from "../components/charts/PieChart";
import { useRevalidateEvery } from "../components/charts/useRevalidateEvery";
import { getPersonalStatistics, getStatistics, type Statistics } from "../statistics.server";

export const meta: MetaFunction = () => [{ title: "Главная" }];

/** Admins get today's dashboard; a manager (whose header profile link leads here) gets his own numbers. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const actor = actorOf(user);
  if (user.isAdmin) return { view: "admin" as const, stats: await getStatistics(context.deps.db, actor) };
  return {
    view: "manager" as const,
    name: user.displayName || user.login,
    personal: await getPersonalStatistics(context.deps.db, actor, user.id),
  };
}

/** SPEC §9: statistics refresh every 30 s. */
const STATISTICS_POLL_MS = 30_000;

export default function HomePage() {
  const data = useLoaderData<typeof loader>();
  useRevalidateEvery(STATISTICS_POLL_MS);
  return data.view === "admin" ? <Dashboard stats={data.stats} /> : <ManagerHome name={data.name} personal={data.personal} />;
}

function Dashboard({ stats }: { stats: Statistics }) {
  const cards: Array<[label: string, value: number, testId: string]> = [
    ["Баз загружено", stats.databases, "stat-databases"],
    ["Контактов пришло в команду", stats.contacts, "stat-contacts"],
    ["Обработано клиентов", stats.reportStatuses, "stat-processed"],
    ["Всего передач", stats.totalReportStatuses, "stat-transfers"],
    ["Всего баз", stats.totalDatabases, "stat-total-databases"],
    ["Всего контактов", stats.totalContacts, "stat-total-contacts"],
  ];
  const entries = Object.entries(stats.statusCounts).map(([label, value]) => ({ label, value }));
  const top = Array.from({ length: 5 }, (_, i) => stats.topManagers[i]).filter(Boolean);
  return (
    <section>
      <h1 className="page-title">Statistics for Today</h1>
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
          {entries.length === 0 ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">Не хватает информации для сбора статистики</p>
          ) : (
            <PieChart entries={entries} title="Доли статусов за сегодня" testId="status-pie" />
          )}
        </div>
      </div>
    </section>
  );
}

function ManagerHome({ name, personal }: { name: string; personal: Array<{ status: string; count: number }> }) {
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
        {personal.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">Не хватает информации для сбора статистики</p>
        ) : (
          <PieChart entries={personal.map((p) => ({ label: p.status, value: p.count }))} title="Мои статусы" testId="personal-pie" />
        )}
      </div>
    </section>
  );
}
