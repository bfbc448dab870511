import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { Outlet, useActionData, useLoaderData } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { deleteBase, listBases, statusColumns } from "../bases.server";
import { BASE_PAGE_SIZES, BaseTable, type BaseSort } from "../components/bases/BaseTable";
import { pageParams, paginate } from "../components/ui/Pager";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError } from "../errors.server";
import { formIntent, readFields, readFormBody, unknownIntent } from "../forms.server";
import { idFields } from "../../common/validation";
import { redirectWithToast } from "../toast.server";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

/**
 * /loadedbases (Мои базы): the topic (filter) cards come from the child routes (_app.loadedbases._index and
 * the filter form routes, owned by the lead-flow feature), the Активные базы table below from this route.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  // The Активные базы table: its search, sort, page and delete confirmation live in the query string.
  const params = new URL(request.url).searchParams;
  const q = (params.get("q") ?? "").trim();
  const sort: BaseSort = params.get("sort") === "name" || params.get("sort") === "contactsCount" ? (params.get("sort") as BaseSort) : "createdAt";
  const dir = params.get("dir") === "asc" ? "asc" : params.get("dir") === "desc" ? "desc" : sort === "name" ? "asc" : "desc";
  const [all, columns] = await Promise.all([listBases(context.deps.db, actorOf(user)), statusColumns(context.deps.db)]);
  const needle = q.toLocaleLowerCase("ru");
  const found = needle ? all.filter((b) => b.name.toLocaleLowerCase("ru").includes(needle)) : all;
  const sign = dir === "asc" ? 1 : -1;
  found.sort((a, b) => {
    const order =
      sort === "name"
        ? a.name.localeCompare(b.name, "ru")
        : sort === "contactsCount"
          ? a.contactsCount - b.contactsCount
          : a.createdAt.localeCompare(b.createdAt);
    return (order || a.id - b.id) * sign;
  });
  const { size, page: asked } = pageParams(params, BASE_PAGE_SIZES, 5);
  const { items, page, pages } = paginate(found, asked, size);
  const confirmId = Number(params.get("deleteBase"));
  const confirmBase = all.find((b) => b.id === confirmId);
  return {
    bases: {
      rows: items,
      total: found.length,
      statusColumns: columns.map((c) => c.buttonText || c.text),
      query: { q, sort, dir: dir as "asc" | "desc", size, page, pages },
      confirm: confirmBase ? { id: confirmBase.id, name: confirmBase.name } : null,
    },
  };
}

/** Posts to /loadedbases itself (not ?index) land here: the base table's delete. */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const form = await readFormBody(request);
  const back = new URL(request.url);
  back.searchParams.delete("deleteBase");
  const to = `/loadedbases${back.search}`;
  try {
    if (formIntent(form) !== "delete-base") throw unknownIntent();
    const result = await deleteBase(context.deps.db, actorOf(user), readFields(form, idFields).id);
    return redirectWithToast(to, { type: "success", message: result.message });
  } catch (error) {
    return actionError(error);
  }
}

export default function LoadedBasesPage() {
  const { bases } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const answerKey = useAnswerKey(actionData);
  return (
    <div className="space-y-6">
      {/* The menu's and SPEC's name for this page; the topics (тематики, GLOSSARY) are its first section. */}
      <h1 className="page-title">Мои базы</h1>
      <Outlet />
      {actionData && "error" in actionData ? <ServerMessage key={answerKey} kind="error" message={actionData.error.message} /> : null}
      <BaseTable {...bases} />
    </div>
  );
}
