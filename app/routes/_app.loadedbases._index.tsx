import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { FilterCards } from "../components/filters/FilterCards";
import { actionError } from "../errors.server";
import { listFilters, toggleFilterActive } from "../filters.server";
import { formIntent, readFields, readFormBody, unknownIntent } from "../forms.server";
import { idFields } from "../../common/validation";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

/** /loadedbases: the filter (topic) cards above the bases table of the parent route. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  return { filters: await listFilters(context.deps.db, actorOf(user)) };
}

/** intent toggle: Активирован / Деактивирован (a fetcher with JavaScript, a plain post without). */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const form = await readFormBody(request);
  if (formIntent(form) !== "toggle") {
    return actionError(unknownIntent());
  }
  try {
    await toggleFilterActive(context.deps.db, actorOf(user), readFields(form, idFields).id);
  } catch (error) {
    return actionError(error);
  }
  return redirect("/loadedbases");
}

export default function FilterCardsRoute() {
  const { filters } = useLoaderData<typeof loader>();
  return <FilterCards filters={filters} />;
}
