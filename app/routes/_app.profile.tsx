import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { actorOf, requireUser } from "../auth.server";
import { PieChart } from "../components/charts/PieChart";
import { useBackgroundRefresh } from "../lib/background-refresh";
import { getRealtimeClient } from "../lib/realtime";
import { getPersonalStatistics } from "../statistics.server";

export const meta: MetaFunction = () => [{ title: "Профиль" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const personal = await getPersonalStatistics(context.deps.db, actorOf(user), user.id);
  return { name: user.displayName || user.login, personal };
}

/** SPEC §7: personal statistics are polled every 30 s. */
const PERSONAL_POLL_MS = 30_000;

export default function ProfilePage() {
  const { name, personal } = useLoaderData<typeof loader>();
  useBackgroundRefresh(PERSONAL_POLL_MS);
  return (
    <section>
      <h1 className="page-title">Профиль</h1>
      <div className="card space-y-4">
        <h2 className="text-lg font-semibold">{name}</h2>
        {personal.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">Не хватает информации для сбора статистики</p>
        ) : (
          <PieChart entries={personal.map((p) => ({ label: p.status, value: p.count, color: p.color }))} title="Моя статистика" testId="personal-pie" />
        )}
        {/* The realtime socket stops first: a connect due in that moment would meet no session (a 401 the browser logs). */}
        <Form method="post" action="/logout" onSubmit={() => getRealtimeClient().stop()}>
          <button type="submit" className="btn-danger">
            Выйти
          </button>
        </Form>
      </div>
    </section>
  );
}
