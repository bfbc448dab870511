// Server code for the topic pages (/loadedbases filter cards and form, /getFilters).
import { parseWithZod } from "@conform-to/zod/v4";
import { data, type AppLoadContext } from "@remix-run/node";
import * as z from "zod";
import { idSchema } from "../common/validation";
import { actorOf, requireAdminUser } from "./auth.server";
import { bulkChoice, FILTER_FORM, FilterFormSchema } from "./components/filters/FilterForm";
import { formIntent, formReply, readFormBody } from "./forms.server";
import { fieldOfError, isAppError } from "#server/core/errors";
export { isAppError } from "#server/core/errors";
import { actionError } from "./errors.server";
import { redirectWithToast } from "./toast.server";
import { createFilter as create, deleteFilter as remove, filterFormOptions as options, updateFilter as update } from "#server/core/filters/filters";
export {
  chooseFilter,
  createFilter,
  deleteFilter,
  filterFormOptions,
  getFilter,
  listFilters,
  listOpenFilters,
  toggleFilterActive,
  updateFilter,
} from "#server/core/filters/filters";
export type { PresentedFilter } from "#server/core/filters/filters";
export { enterOnlyTopic, topicChoices } from "#server/core/filters/topic-choice";

type ListName = "managers" | "databases" | "statuses" | "scripts";

/**
 * The topic form's action (decision 063: FilterFormSchema), for a new topic (id null) or an existing one. intent
 * save / delete (the page's question), or all:<list> / none:<list> (Выбрать все / Очистить without JavaScript:
 * the form comes back as it was, with that list's boxes set).
 */
export async function filterFormAction(request: Request, context: AppLoadContext, id: string | null) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const form = await readFormBody(request);
  const intent = formIntent(form);
  const db = context.deps.db;

  if (intent === "delete" && id) {
    try {
      await remove(db, actor, id);
    } catch (error) {
      return actionError(error);
    }
    return redirectWithToast("/loadedbases", { type: "success", message: "Тематика удалена" });
  }
  const submission = parseWithZod(form, { schema: FilterFormSchema });
  const bulk = /^(all|none):(managers|databases|statuses|scripts)$/.exec(intent);
  if (bulk) {
    const list = bulk[2] as ListName;
    const ids = bulk[1] === "all" ? bulkChoice((await options(db, actor))[list]) : [];
    // What was typed, with the list set, and no errors: nothing was saved yet.
    return data({ form: FILTER_FORM, result: { initialValue: { ...submission.payload, [list]: ids } } });
  }
  if (submission.status !== "success") return formReply(FILTER_FORM, submission);
  try {
    const save = { phoneRegion: context.deps.config.phoneRegion };
    if (id) await update(db, actor, id, submission.value, save);
    else await create(db, actor, submission.value, save);
  } catch (error) {
    if (!isAppError(error)) throw error;
    // SPEC's «Ошибка сохранения фильтра» with core's reason (an inactive template, a rule's final status...); a
    // reason about one rule is said at that rule's field too (issue 41: a toast alone highlighted nothing).
    const field = fieldOfError(error);
    return formReply(
      FILTER_FORM,
      submission,
      { formErrors: [`Ошибка сохранения фильтра: ${error.message}`], ...(field ? { fieldErrors: { [field]: [error.message] } } : {}) },
      error.status,
    );
  }
  return redirectWithToast("/loadedbases", { type: "success", message: "Фильтр сохранен" });
}

/**
 * /getFilters' form: the topic's button, its id (the user is the one logged in). Here, not in the route: a
 * manager's page need not load zod for a form the browser does not check.
 */
export const ChoiceFields = z.object({ filterId: idSchema });
