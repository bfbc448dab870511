import { Link, useFetcher } from "@remix-run/react";
import { useEffect } from "react";
import type { PresentedFilter } from "../../../server/core/filters/filters";
import { notify } from "../ui/Toasts";

/** A topic card shows the topic as the core presents it. */
export type FilterCardData = PresentedFilter;

const DAY_SHORT = ["", "Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"];

/** «09:00–21:00, ежедневно», «круглосуточно, Пн, Пт»: the topic's calling window in a line. */
export function callingHoursText(hours: FilterCardData["callingHours"]): string {
  const time = hours.from === hours.until ? "круглосуточно" : `${hours.from}–${hours.until}`;
  const days = hours.days.length === 7 ? "ежедневно" : hours.days.map((d) => DAY_SHORT[d]).join(", ");
  const weekend =
    hours.weekendFrom && hours.weekendUntil
      ? `; в выходные и праздники ${hours.weekendFrom === hours.weekendUntil ? "круглосуточно" : `${hours.weekendFrom}–${hours.weekendUntil}`}`
      : "";
  const daysOff = hours.daysOff.length > 0 ? `; доп. выходных: ${hours.daysOff.length}` : "";
  return `${time}, ${days}${weekend}${daysOff} (по времени клиента; пояс по умолчанию ${hours.timeZone})`;
}

/**
 * «по 230-ФЗ: 1 в день, 2 в неделю, 8 в месяц (разговоры)» (a topic that follows the preset: its limits and its
 * hours), «2 в неделю (попытки)», or null: the contact limits in a line.
 */
export function contactLimitsText({ contactLimits: limits, preset }: Pick<FilterCardData, "contactLimits" | "preset">): string | null {
  const parts = [
    limits.day != null ? `${limits.day} в день` : "",
    limits.week != null ? `${limits.week} в неделю` : "",
    limits.month != null ? `${limits.month} в месяц` : "",
  ].filter(Boolean);
  if (parts.length === 0) return null;
  const text = `${parts.join(", ")} (${limits.counts === "connected" ? "разговоры" : "попытки"})`;
  return preset === "law230" ? `по 230-ФЗ: ${text}` : text;
}

/** «Недозвон: через 2 ч, не более 3 попыток, затем «Отказ»» (after «не более»: 1 попытки, 3 попыток). */
export function retryRuleText(rule: FilterCardData["retryRules"][number]): string {
  const delay = rule.delayMinutes % 60 === 0 ? `${rule.delayMinutes / 60} ч` : `${rule.delayMinutes} мин`;
  const attempts = rule.maxAttempts % 10 === 1 && rule.maxAttempts % 100 !== 11 ? "попытки" : "попыток";
  return `${rule.status.text}: через ${delay}, не более ${rule.maxAttempts} ${attempts}, затем «${rule.finalStatus.text}»`;
}

/** «записываются, хранятся 30 дн.», «записываются, хранятся всегда», «не записываются». */
export function recordingText(filter: Pick<FilterCardData, "recordCalls" | "recordingRetentionDays">): string {
  if (!filter.recordCalls) return "не записываются";
  return `записываются, хранятся ${filter.recordingRetentionDays === null ? "всегда" : `${filter.recordingRetentionDays} дн.`}`;
}

/** Where the cards post their toggle: the /loadedbases index route. */
const TOGGLE_ACTION = "/loadedbases?index";

function ActiveToggle({ filter }: { filter: FilterCardData }) {
  const fetcher = useFetcher<{ error?: { message: string } }>();
  // Optimistic: while the toggle is in flight, show the flipped state.
  const isActive = fetcher.formData ? !filter.isActive : filter.isActive;
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.error) notify("error", "Ошибка активации фильтра");
  }, [fetcher.state, fetcher.data]);
  return (
    <fetcher.Form method="post" action={TOGGLE_ACTION}>
      <input type="hidden" name="intent" value="toggle" />
      <input type="hidden" name="id" value={filter.id} />
      <button
        type="submit"
        role="switch"
        aria-checked={isActive}
        data-testid={`filter-toggle-${filter.id}`}
        className="flex items-center gap-2 text-sm"
      >
        <span className={`relative inline-block h-5 w-9 rounded-full transition ${isActive ? "bg-green-500" : "bg-slate-300 dark:bg-slate-600"}`}>
          <span className={`absolute top-0.5 h-4 w-4 rounded-full bg-white shadow transition ${isActive ? "left-4" : "left-0.5"}`} />
        </span>
        <span className={isActive ? "text-green-700 dark:text-green-400" : "text-slate-600 dark:text-slate-400"}>
          {isActive ? "Активирован" : "Деактивирован"}
        </span>
      </button>
    </fetcher.Form>
  );
}

function Line({ title, items }: { title: string; items: string[] }) {
  return (
    <p className="text-sm [overflow-wrap:anywhere]">
      <span className="text-slate-600 dark:text-slate-400">{title}: </span>
      {items.length ? items.join(", ") : "—"}
    </p>
  );
}

/** SPEC /loadedbases: the filter cards, each with Активирован / Деактивирован, and the add-filter button. */
export function FilterCards({ filters }: { filters: FilterCardData[] }) {
  return (
    <section aria-labelledby="filters-title">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <h2 id="filters-title" className="text-xl font-semibold">
          Тематики
        </h2>
        <Link to="/loadedbases/filters/new" className="btn-primary" data-testid="add-filter">
          Добавить тематику
        </Link>
      </div>
      {filters.length === 0 ? (
        <p className="card text-sm text-slate-600 dark:text-slate-400">Тематик пока нет. Добавьте первую.</p>
      ) : (
        <ul className="grid gap-3 sm:grid-cols-2 xl:grid-cols-3">
          {filters.map((filter) => (
            <li key={filter.id} className="card space-y-2" data-testid="filter-card">
              <div className="flex items-start justify-between gap-2">
                <h3 className="min-w-0 text-base font-semibold [overflow-wrap:anywhere]">{filter.name}</h3>
                <Link
                  to={`/loadedbases/filters/${filter.id}`}
                  className="text-sm text-blue-600 hover:underline dark:text-blue-400"
                  aria-label={`Изменить тематику ${filter.name}`}
                >
                  Изменить
                </Link>
              </div>
              <ActiveToggle filter={filter} />
              <p className="text-sm">
                <span className="text-slate-600 dark:text-slate-400">Менеджеров: </span>
                {filter.totalManagers}
              </p>
              <Line title="Менеджеры" items={filter.managers.map((m) => m.name)} />
              <Line title="Базы" items={filter.databases.map((d) => d.name)} />
              <Line title="Статусы" items={filter.statuses.map((s) => s.text)} />
              <Line title="Скрипты" items={filter.scripts.map((s) => s.name)} />
              <Line title="Шаблон" items={filter.template ? [filter.template.name] : []} />
              <Line title="Звонки" items={[callingHoursText(filter.callingHours)]} />
              {contactLimitsText(filter) ? <Line title="Звонков клиенту" items={[contactLimitsText(filter)!]} /> : null}
              {filter.requiresConsent ? <Line title="Согласие" items={["звонить только клиентам с согласием на звонки"]} /> : null}
              {/* Issue 41: what the topic does with a client and a call, on the card (it showed neither rules nor recording). */}
              <Line title="Повтор недозвона" items={filter.retryRules.map(retryRuleText)} />
              <Line title="Автонабор" items={[filter.autodialSeconds !== null ? `через ${filter.autodialSeconds} с` : "выключен"]} />
              <Line title="Запись разговоров" items={[recordingText(filter)]} />
              <Link
                to={`/quality/scorecard/${filter.id}`}
                className="inline-block text-sm text-blue-600 hover:underline dark:text-blue-400"
                aria-label={`Оценочный лист тематики ${filter.name}`}
              >
                Оценочный лист
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
