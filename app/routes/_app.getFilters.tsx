import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actorOf, requireUser } from "../auth.server";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { chooseFilter, ChoiceFields, enterOnlyTopic, topicChoices } from "../filters.server";
import { readFields, readFormBody } from "../forms.server";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Выбор тематики" }];

/**
 * SPEC /getFilters: the topics open to this user, each with its calling hours and the clients the panel would give
 * him now (issue 41); with a topic already chosen, straight to /leadpanel, and so with only one topic open to him
 * (he enters it: there is nothing to choose).
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  if (user.gettingFilter > 0) throw redirect("/leadpanel");
  const db = context.deps.db;
  if ((await enterOnlyTopic(db, actorOf(user), user.login)) !== null) {
    throw await redirectWithToast("/leadpanel", { type: "success", message: "Тематика выбрана" });
  }
  return { filters: await topicChoices(db, actorOf(user)), isAdmin: user.isAdmin };
}

/** Choosing a topic stores it, shows Тематика выбрана and goes to /leadpanel. */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const form = await readFormBody(request);
  try {
    const { filterId } = readFields(form, ChoiceFields);
    await chooseFilter(context.deps.db, actorOf(user), { filterId, userId: user.id, login: user.login });
  } catch (error) {
    return actionError(error);
  }
  return redirectWithToast("/leadpanel", { type: "success", message: "Тематика выбрана" });
}

const count = (n: number) => n.toLocaleString("ru-RU");

/**
 * What the panel would give now (its own rules: new clients, due callbacks, retries whose delay has passed,
 * re-worked statuses), and of how many, when new clients wait for their hours.
 */
function topicFreeText({ callableNow, waitingForHours }: { callableNow: number; waitingForHours: number }): string {
  if (callableNow === 0 && waitingForHours === 0) return "Сейчас звонить некому";
  if (waitingForHours === 0) return `Можно звонить сейчас: ${count(callableNow)}`;
  return `Можно звонить сейчас: ${count(callableNow)} из ${count(callableNow + waitingForHours)} (у остальных нерабочее время)`;
}

export default function GetFiltersPage() {
  const { filters, isAdmin } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const navigation = useNavigation();
  return (
    <section className="mx-auto max-w-xl">
      <h1 className="page-title">Выберите тематику:</h1>
      {answer?.error ? <ServerMessage key={answerKey} kind="error" message={answer.error.message} /> : null}
      {filters.length === 0 ? (
        isAdmin ? (
          <div className="card space-y-3 text-sm" data-testid="no-topics">
            <p>Вы не назначены менеджером ни в одной активной тематике.</p>
            <p className="text-slate-600 dark:text-slate-400">
              Чтобы работать с клиентами самому, добавьте себя в менеджеры тематики (и включите её) или создайте новую.
            </p>
            <div className="flex flex-wrap gap-2">
              <Link to="/loadedbases" className="btn-primary">
                Тематики и базы
              </Link>
              <Link to="/loadedbases/filters/new" className="btn-secondary">
                Создать тематику
              </Link>
            </div>
          </div>
        ) : (
          <p className="card text-sm text-slate-600 dark:text-slate-400" data-testid="no-topics">
            Для вас пока нет тематик. Обратитесь к администратору.
          </p>
        )
      ) : (
        <Form method="post">
          <ul className="space-y-2" data-testid="topic-list">
            {filters.map((filter) => (
              <li key={filter.id}>
                <button
                  type="submit"
                  name="filterId"
                  value={filter.id}
                  disabled={navigation.state !== "idle"}
                  className="card block w-full text-left transition hover:border-blue-400 hover:bg-blue-50 dark:hover:bg-slate-700"
                  data-testid="topic-choice"
                >
                  <span className="block text-base font-medium [overflow-wrap:anywhere]">{filter.name}</span>
                  <span className="mt-1 block text-sm text-slate-600 dark:text-slate-400" data-testid="topic-hours">
                    Часы звонков: {filter.hours}
                  </span>
                  <span className="mt-1 block text-sm" data-testid="topic-free">
                    {topicFreeText(filter)}
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </Form>
      )}
    </section>
  );
}
