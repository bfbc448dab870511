import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { actorOf, requireUser } from "../auth.server";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { chooseFilter, ChoiceFields, listOpenFilters } from "../filters.server";
import { readFields, readFormBody } from "../forms.server";
import { redirectWithToast } from "../toast.server";

export const meta: MetaFunction = () => [{ title: "Выбор тематики" }];

/** SPEC /getFilters: the topics open to this user; with a topic already chosen, straight to /leadpanel. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireUser(request, context);
  if (user.gettingFilter > 0) throw redirect("/leadpanel");
  const filters = await listOpenFilters(context.deps.db, user.id);
  return { filters: filters.map((f) => ({ id: f.id, name: f.name })) };
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

export default function GetFiltersPage() {
  const { filters } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const navigation = useNavigation();
  return (
    <section className="mx-auto max-w-xl">
      <h1 className="page-title">Выберите тематику:</h1>
      {answer?.error ? <ServerMessage key={answerKey} kind="error" message={answer.error.message} /> : null}
      {filters.length === 0 ? (
        <p className="card text-sm text-slate-600 dark:text-slate-400">Для вас пока нет тематик. Обратитесь к администратору.</p>
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
                  className="card w-full text-left text-base font-medium transition hover:border-blue-400 hover:bg-blue-50 dark:hover:bg-slate-700"
                >
                  {filter.name}
                </button>
              </li>
            ))}
          </ul>
        </Form>
      )}
    </section>
  );
}
