import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { FilterCards } from "../components/filters/FilterCards";
import { AUTODIAL_DEFAULT_SECONDS, FilterForm, FilterModal, retryRuleValues } from "../components/filters/FilterForm";
import { ConfirmAction } from "../components/ui/ConfirmAction";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { filterFormAction, filterFormOptions, getFilter, isAppError, listFilters } from "../filters.server";


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
  const values =
    answer && "values" in answer
      ? {
          ...answer.values,
          callingHours: answer.values.callingHours ?? filter.callingHours,
          retryRules: answer.values.retryRules ?? filter.retryRules.map(retryRuleValues),
        }
      : {
          name: filter.name,
          template: filter.template?.id ?? null,
          managers: filter.managers.map((m) => m.id),
          databases: filter.databases.map((d) => d.id),
          statuses: filter.statuses.map((s) => s.id),
          scripts: filter.scripts.map((s) => s.id),
          callingHours: filter.callingHours,
          recordCalls: filter.recordCalls,
          recordingRetentionDays: filter.recordingRetentionDays === null ? "" : String(filter.recordingRetentionDays),
          managersHearRecordings: filter.managersHearRecordings,
          retryRules: filter.retryRules.map(retryRuleValues),
          retryCountedBy: filter.retryCountedBy,
          autodial: filter.autodialSeconds !== null,
          autodialSeconds: String(filter.autodialSeconds ?? AUTODIAL_DEFAULT_SECONDS),
        };
  return (
    <div className="space-y-6">
      <ConfirmAction
        open={deleting}
        title="Удалить тематику?"
        closeHref={page}
        intent="delete"
        confirmLabel="Удалить"
        testId="delete-topic"
      >
        Тематика «{filter.name}» будет удалена: её менеджеры вернутся к выбору тематики. Базы, клиенты и история звонков
        сохранятся. Отменить это нельзя.
      </ConfirmAction>
      {deleting ? null : (
        <FilterModal title={`Тематика «${filter.name}»`}>
          {answer && "error" in answer && answer.error ? (
            <ServerMessage key={answerKey} kind="error" message={answer.error.message} />
          ) : null}
          <FilterForm
            key={JSON.stringify(values)}
            options={options}
            initial={values}
            filterId={filter.id}
            keptTemplate={filter.template?.id ?? null}
          />
        </FilterModal>
      )}
      <FilterCards filters={filters} />
    </div>
  );
}
