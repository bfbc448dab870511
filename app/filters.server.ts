import * as z from "zod";
import { idSchema } from "../common/validation";
// Server code for the topic pages (/loadedbases filter cards and form, /getFilters).
import { data, type AppLoadContext } from "@remix-run/node";
import { actorOf, requireAdminUser } from "./auth.server";
import { readFormBody } from "./forms.server";
import { badRequest } from "../server/core/errors";
export { isAppError } from "../server/core/errors";
import { actionError } from "./errors.server";
import { redirectWithToast } from "./toast.server";
import {
  createFilter as create,
  deleteFilter as remove,
  filterFormOptions as options,
  updateFilter as update,
} from "../server/core/filters/filters";
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
} from "../server/core/filters/filters";
export type { PresentedFilter } from "../server/core/filters/filters";

/** A post whose intent this page does not know. */
export const unknownIntent = () => badRequest("Неизвестное действие", "unknown_intent");

type ListName = "managers" | "databases" | "statuses" | "scripts";

/** The filter form's fields as the core reads them (ids as numbers; unknown text is left for core to refuse). */
export function readFilterForm(form: FormData) {
  const ids = (name: ListName) =>
    form
      .getAll(name)
      .map((v) => Number(v))
      .filter((n) => Number.isInteger(n) && n > 0);
  const template = Number(form.get("template") || 0);
  return {
    name: String(form.get("name") ?? ""),
    template: Number.isInteger(template) && template > 0 ? template : null,
    managers: ids("managers"),
    databases: ids("databases"),
    statuses: ids("statuses"),
    scripts: ids("scripts"),
    // The calling window's fields (core checks them; no day ticked is refused there with its own message). A post
    // without them (an older page) leaves the window as it is.
    callingHours: form.has("callsFrom")
      ? {
          from: String(form.get("callsFrom") ?? ""),
          until: String(form.get("callsUntil") ?? ""),
          days: form
            .getAll("callDays")
            .map((v) => Number(v))
            .filter((n) => Number.isInteger(n)),
          timeZone: String(form.get("timeZone") ?? ""),
        }
      : undefined,
    // The retry rules' editor (decision 057): a post without it (an older page) keeps the topic's rules.
    retryCountedBy: form.has("retryCountedBy") ? String(form.get("retryCountedBy") ?? "") : undefined,
    retryRules: form.has("retryCountedBy") ? readRetryRules(form) : undefined,
    // The recording fields are on every form: an unchecked box is off.
    recordCalls: form.get("recordCalls") === "on",
    recordingRetentionDays: String(form.get("recordingRetentionDays") ?? "").trim(),
    managersHearRecordings: form.get("managersHearRecordings") === "on",
    // Autodial (decision 058), on every form like the recording fields: an unchecked box is off.
    autodial: form.get("autodial") === "on",
    autodialSeconds: String(form.get("autodialSeconds") ?? "").trim(),
  };
}

/** A rule row as the form has it: what was typed, so a refused save shows it again. */
export interface RetryRuleFormValue {
  status: number;
  delay: string;
  unit: "minutes" | "hours";
  maxAttempts: string;
  finalStatus: string;
}

/** The editor's rows that say anything (a row left empty is no rule), one per status id in the field names. */
function readRetryRules(form: FormData): RetryRuleFormValue[] {
  const rows: RetryRuleFormValue[] = [];
  for (const key of new Set(form.keys())) {
    const m = /^retryDelay\.(\d+)$/.exec(key);
    if (!m) continue;
    const id = m[1];
    const row = {
      status: Number(id),
      delay: String(form.get(`retryDelay.${id}`) ?? "").trim(),
      unit: form.get(`retryUnit.${id}`) === "hours" ? ("hours" as const) : ("minutes" as const),
      maxAttempts: String(form.get(`retryMax.${id}`) ?? "").trim(),
      finalStatus: String(form.get(`retryFinal.${id}`) ?? "").trim(),
    };
    if (row.delay || row.maxAttempts || row.finalStatus) rows.push(row);
  }
  return rows;
}

/** A typed number ("1,5" too); empty or not a number is NaN, which core refuses with its own message. */
const typedNumber = (text: string) => (text === "" ? Number.NaN : Number(text.replace(",", ".")));

/** The form's values as core reads them: the rules' delays in minutes, their numbers as numbers. */
export function filterInputOf(values: ReturnType<typeof readFilterForm>) {
  return {
    ...values,
    retryRules: values.retryRules?.map((r) => ({
      status: r.status,
      delayMinutes: r.unit === "hours" ? Math.round(typedNumber(r.delay) * 60 * 1000) / 1000 : typedNumber(r.delay),
      maxAttempts: typedNumber(r.maxAttempts),
      finalStatus: r.finalStatus === "" ? 0 : Number(r.finalStatus),
    })),
    // The box off is off whatever the seconds say; on, core checks the seconds.
    autodialSeconds: values.autodial ? values.autodialSeconds : null,
  };
}

/**
 * The filter form's action, for a new filter (id null) or an existing one. intent save / delete, or
 * all:<list> / none:<list> (Выбрать все / Очистить without JavaScript: the form comes back with the boxes set).
 */
export async function filterFormAction(request: Request, context: AppLoadContext, id: string | null) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const form = await readFormBody(request);
  const intent = String(form.get("intent") ?? "save");
  const values = readFilterForm(form);
  const db = context.deps.db;

  const bulk = /^(all|none):(managers|databases|statuses|scripts)$/.exec(intent);
  if (bulk) {
    const list = bulk[2] as ListName;
    const choices = await options(db, actor);
    values[list] = bulk[1] === "all" ? choices[list].map((o) => o.id) : [];
    return data({ values, error: null });
  }
  try {
    if (intent === "delete" && id) {
      await remove(db, actor, id);
      return redirectWithToast("/loadedbases", { type: "success", message: "Тематика удалена" });
    }
    if (id) await update(db, actor, id, filterInputOf(values));
    else await create(db, actor, filterInputOf(values));
    return redirectWithToast("/loadedbases", { type: "success", message: "Фильтр сохранен" });
  } catch (error) {
    const answer = actionError(error);
    const message =
      answer.data.error.code === "validation" ? answer.data.error.message : `Ошибка сохранения фильтра: ${answer.data.error.message}`;
    return data({ values, error: { code: answer.data.error.code, message } }, { status: answer.init?.status ?? 400 });
  }
}

/**
 * /getFilters' form: the topic's button, its id (the user is the one logged in). Here, not in the route: a
 * manager's page need not load zod for a form the browser does not check.
 */
export const ChoiceFields = z.object({ filterId: idSchema });
