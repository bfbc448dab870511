import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { actorOf, requireUser } from "../auth.server";
import { PieChart } from "../components/charts/PieChart";
import { drawPie } from "../components/charts/pie-drawing.server";
import { LogoutForm } from "../components/layout/LogoutForm";
import { disputeFormName, DisputeFormSchema, MyScores } from "../components/quality/MyScores";
import { actionError } from "../errors.server";
import { formIntent, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { disputeScore, listScores } from "../quality.server";
import { redirectWithToast } from "../toast.server";
import { useBackgroundRefresh } from "../lib/background-refresh";
import { getPersonalStatistics } from "../statistics.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Профиль" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  const actor = actorOf(user);
  const [personal, scores] = await Promise.all([
    getPersonalStatistics(context.deps.db, actor, user.id),
    // A manager's own scored calls (issue 39); an admin's scores of everyone are on /quality.
    user.isAdmin ? Promise.resolve(null) : listScores(context.deps.db, actor),
  ]);
  const personalPie = personal.length === 0 ? null : drawPie(personal.map((p) => ({ label: p.status, value: p.count, color: p.color })));
  return { name: user.displayName || user.login, personalPie, scores };
}

/** The manager disputes one of his scores (once; core checks that it is his and the first). */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const form = await readFormBody(request);
  if (formIntent(form) !== "dispute") return actionError(unknownIntent());
  return submitForm(form, { name: disputeFormName, schema: DisputeFormSchema }, async ({ id, comment }) => {
    await disputeScore(context.deps.db, actorOf(user), id, { comment });
    return redirectWithToast("/profile", { type: "success", message: "Оценка оспорена: администратор рассмотрит спор" });
  });
}

/** SPEC §7: personal statistics are polled every 30 s. */
const PERSONAL_POLL_MS = 30_000;

export default function ProfilePage() {
  const { name, personalPie, scores } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  useBackgroundRefresh(PERSONAL_POLL_MS);
  return (
    <section>
      <h1 className="page-title">Профиль</h1>
      <div className="card space-y-4">
        <h2 className="text-lg font-semibold">{name}</h2>
        {personalPie === null ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">Не хватает информации для сбора статистики</p>
        ) : (
          <PieChart drawing={personalPie} title="Моя статистика" testId="personal-pie" />
        )}
        <LogoutForm buttonClassName="btn-danger" />
      </div>
      {scores ? (
        <div className="mt-4">
          <MyScores scores={scores} answer={answer} />
        </div>
      ) : null}
    </section>
  );
}
