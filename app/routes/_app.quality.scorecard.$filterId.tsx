import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { SCORECARD_FORM, ScorecardForm, ScorecardFormSchema } from "../components/quality/ScorecardForm";
import { ScoreFormula } from "../components/quality/ScoreParts";
import { resultOf } from "../components/ui/forms";
import { actionError, isAppError } from "../errors.server";
import { formIntent, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { getScorecard, saveScorecard } from "../quality.server";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Оценочный лист" }];

/** /quality/scorecard/:filterId: a topic's scorecard for call scoring (admins; issue 39, decision 073). */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  try {
    return await getScorecard(context.deps.db, actorOf(user), params.filterId);
  } catch (error) {
    if (isAppError(error) && (error.status === 404 || error.status === 400)) throw new Response(error.message, { status: 404 });
    throw error;
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const form = await readFormBody(request);
  if (formIntent(form) !== "scorecard-save") return actionError(unknownIntent());
  // A row's button without JavaScript (Добавить пункт, a delete) answers the changed form, nothing saved.
  return submitForm(form, { name: SCORECARD_FORM, schema: ScorecardFormSchema }, async ({ criteria }) => {
    const saved = await saveScorecard(context.deps.db, actorOf(user), params.filterId, {
      criteria: criteria.map((c) => ({ text: c.text, weight: c.weight, critical: c.critical === "on" })),
    });
    return redirectWithToast(`/quality/scorecard/${saved.filterId}`, { type: "success", message: "Оценочный лист сохранён" });
  });
}

export default function ScorecardPage() {
  const card = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <section className="max-w-3xl space-y-4">
      <p className="text-sm">
        <Link to="/quality" className="text-blue-600 hover:underline dark:text-blue-400">
          ← Оценка звонков
        </Link>
      </p>
      <h1 className="page-title">{`Оценочный лист: ${card.filterName}`}</h1>
      <div className="card space-y-4">
        <ScoreFormula />
        <ScorecardForm filterId={card.filterId} criteria={card.criteria} lastResult={resultOf(answer, SCORECARD_FORM)} />
      </div>
    </section>
  );
}
