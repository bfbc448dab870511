import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { FilterCards } from "../components/filters/FilterCards";
import { FILTER_FORM, FilterForm, filterFormDefaults, FilterModal } from "../components/filters/FilterForm";
import { ConfirmAction } from "../components/ui/ConfirmAction";
import { actionMessage, resultOf } from "../components/ui/forms";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { filterFormAction, filterFormOptions, getFilter, isAppError, listFilters } from "../filters.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Изменить тематику" }];

/** /loadedbases/filters/{id}: the filter modal filled with the filter (a section of the page without JavaScript). */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  try {
    const [filter, filters, options] = await Promise.all([
      getFilter(context.deps.db, actor, params.id),
      listFilters(context.deps.db, actor),
      filterFormOptions(context.deps.db, actor),
    ]);
    return { filter, filters, options };
  } catch (error) {
    if (isAppError(error) && (error.status === 404 || error.status === 400)) {
      throw new Response(error.message, { status: 404 });
    }
    throw error;
  }
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  return filterFormAction(request, context, params.id ?? null);
}

export default function EditFilterRoute() {
  const { filter, filters, options } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const deleting = useSearchParams()[0].has("delete");
  const page = `/loadedbases/filters/${filter.id}`;
  // A refused delete (the topic gone meanwhile) answers with its message, not with the form's.
  const deleteError = actionMessage(answer);
  return (
    <div className="space-y-6">
      <ConfirmAction open={deleting} title="Удалить тематику?" closeHref={page} intent="delete" confirmLabel="Удалить" testId="delete-topic">
        Тематика «{filter.name}» будет удалена: её менеджеры вернутся к выбору тематики. Базы, клиенты и история звонков сохранятся. Отменить это
        нельзя.
      </ConfirmAction>
      {deleting ? null : (
        <FilterModal title={`Тематика «${filter.name}»`}>
          {deleteError ? <ServerMessage key={answerKey} kind="error" message={deleteError} /> : null}
          <FilterForm
            key={filter.id}
            options={options}
            defaultValue={filterFormDefaults(filter, options.defaultHours)}
            lastResult={resultOf(answer, FILTER_FORM)}
            filterId={filter.id}
            keptTemplate={filter.template?.id ?? null}
          />
        </FilterModal>
      )}
      <FilterCards filters={filters} />
    </div>
  );
}
