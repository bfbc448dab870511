import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useActionData, useLoaderData } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { FilterCards } from "../components/filters/FilterCards";
import { FILTER_FORM, FilterForm, filterFormDefaults, FilterModal } from "../components/filters/FilterForm";
import { resultOf } from "../components/ui/forms";
import { filterFormAction, filterFormOptions, listFilters } from "../filters.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Новая тематика" }];

/** /loadedbases/filters/new: the filter modal over the cards (a section of the page without JavaScript). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const [filters, options] = await Promise.all([listFilters(context.deps.db, actor), filterFormOptions(context.deps.db, actor)]);
  return { filters, options };
}

export async function action({ request, context }: ActionFunctionArgs) {
  return filterFormAction(request, context, null);
}

export default function NewFilterRoute() {
  const { filters, options } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  return (
    <div className="space-y-6">
      <FilterModal title="Новая тематика">
        <FilterForm
          options={options}
          defaultValue={filterFormDefaults(null, options.defaultHours)}
          lastResult={resultOf(answer, FILTER_FORM)}
          filterId={null}
        />
      </FilterModal>
      <FilterCards filters={filters} />
    </div>
  );
}
