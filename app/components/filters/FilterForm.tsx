import { Form, Link, useNavigation } from "@remix-run/react";
import { useState, type FormEvent, type ReactNode } from "react";
import { DialogOrSection } from "../ui/DialogOrSection";
import { notify } from "../ui/Toasts";

export interface Option {
  id: number;
  name: string;
}

export interface FilterFormOptions {
  managers: Option[];
  databases: Option[];
  statuses: Option[];
  scripts: Option[];
  templates: Array<Option & { isActive: boolean }>;
  /** The zones a topic's default zone may be (IANA names). */
  timeZones: Array<{ id: string; label: string }>;
}

/** When a topic's clients may be called, in their own local time (server/core/filters/calling-hours.ts). */
export interface CallingHoursValues {
  from: string;
  until: string;
  days: number[];
  timeZone: string;
}

/** A retry rule's row as typed (server: app/filters.server.ts readRetryRules). */
export interface RetryRuleValues {
  status: number;
  delay: string;
  unit: "minutes" | "hours";
  maxAttempts: string;
  finalStatus: string;
}

export interface FilterFormValues {
  name: string;
  template: number | null;
  managers: number[];
  databases: number[];
  statuses: number[];
  scripts: number[];
  callingHours: CallingHoursValues;
  recordCalls: boolean;
  /** Days the recordings are kept, as typed ("" keeps them). */
  recordingRetentionDays: string;
  managersHearRecordings: boolean;
  /** Retry rules per status (decision 057), and what counts as an attempt ("presses" or "calls"). */
  retryRules?: RetryRuleValues[];
  retryCountedBy?: string;
  /** «Автонабор» on, after `autodialSeconds` seconds as typed. */
  autodial: boolean;
  autodialSeconds: string;
}

/** What the seconds field offers when the box is first ticked. */
export const AUTODIAL_DEFAULT_SECONDS = 5;

export type ListName = "managers" | "databases" | "statuses" | "scripts";

export const emptyFilterValues: Omit<FilterFormValues, "callingHours"> = {
  name: "",
  template: null,
  managers: [],
  databases: [],
  statuses: [],
  scripts: [],
  recordCalls: false,
  recordingRetentionDays: "",
  managersHearRecordings: false,
  retryRules: [],
  retryCountedBy: "presses",
  autodial: false,
  autodialSeconds: String(AUTODIAL_DEFAULT_SECONDS),
};

/** A stored rule as the form shows it: whole hours in hours, anything else in minutes. */
export function retryRuleValues(rule: { status: { id: number }; delayMinutes: number; maxAttempts: number; finalStatus: { id: number } }): RetryRuleValues {
  const hours = rule.delayMinutes % 60 === 0;
  return {
    status: rule.status.id,
    delay: String(hours ? rule.delayMinutes / 60 : rule.delayMinutes),
    unit: hours ? "hours" : "minutes",
    maxAttempts: String(rule.maxAttempts),
    finalStatus: String(rule.finalStatus.id),
  };
}

/** SPEC §5 filter save, in the order the server checks it too. */
export function filterFormProblem(values: FilterFormValues): string | null {
  if (!values.name.trim()) return "Введите имя фильтра";
  if (values.managers.length === 0) return "Виберите 1 менеджера";
  if (values.databases.length === 0) return "Виберите 1 базу данных";
  if (values.statuses.length === 0) return "Виберите 1 статус";
  if (values.callingHours.days.length === 0) return "Выберите хотя бы один день звонков";
  return null;
}

const DAYS: Array<{ day: number; name: string; title: string }> = [
  { day: 1, name: "Пн", title: "понедельник" },
  { day: 2, name: "Вт", title: "вторник" },
  { day: 3, name: "Ср", title: "среда" },
  { day: 4, name: "Чт", title: "четверг" },
  { day: 5, name: "Пт", title: "пятница" },
  { day: 6, name: "Сб", title: "суббота" },
  { day: 7, name: "Вс", title: "воскресенье" },
];

/** The calling window: from, until, the days and the zone for numbers whose own zone is unknown. */
function CallingHoursFields({
  value,
  zones,
  onChange,
}: {
  value: CallingHoursValues;
  zones: Array<{ id: string; label: string }>;
  onChange: (value: CallingHoursValues) => void;
}) {
  const days = new Set(value.days);
  const zoneChoices = zones.some((z) => z.id === value.timeZone) ? zones : [{ id: value.timeZone, label: value.timeZone }, ...zones];
  return (
    <fieldset className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="calling-hours">
      <legend className="px-1 text-sm font-medium">Время звонков (по местному времени клиента)</legend>
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label className="label" htmlFor="calls-from">
            С
          </label>
          <input
            id="calls-from"
            name="callsFrom"
            type="time"
            className="input"
            value={value.from}
            onChange={(event) => onChange({ ...value, from: event.target.value })}
          />
        </div>
        <div>
          <label className="label" htmlFor="calls-until">
            До
          </label>
          <input
            id="calls-until"
            name="callsUntil"
            type="time"
            className="input"
            value={value.until}
            onChange={(event) => onChange({ ...value, until: event.target.value })}
          />
        </div>
        <div className="min-w-56 flex-1">
          <label className="label" htmlFor="calls-zone">
            Часовой пояс, если по номеру не определён
          </label>
          <select
            id="calls-zone"
            name="timeZone"
            className="input"
            value={value.timeZone}
            onChange={(event) => onChange({ ...value, timeZone: event.target.value })}
          >
            {zoneChoices.map((zone) => (
              <option key={zone.id} value={zone.id}>
                {zone.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div className="mt-2 flex flex-wrap gap-3" role="group" aria-label="Дни звонков">
        {DAYS.map(({ day, name, title }) => (
          <label key={day} className="flex items-center gap-1 text-sm" title={title}>
            <input
              type="checkbox"
              name="callDays"
              value={day}
              checked={days.has(day)}
              onChange={(event) =>
                onChange({ ...value, days: event.target.checked ? [...value.days, day].sort() : value.days.filter((d) => d !== day) })
              }
            />
            {name}
          </label>
        ))}
      </div>
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
        Часовой пояс клиента определяется по коду страны и города его номера. «До» раньше «С» — окно через полночь;
        одинаковое время — круглосуточно.
      </p>
    </fieldset>
  );
}

const EMPTY_RULE = { delay: "", unit: "hours" as const, maxAttempts: "", finalStatus: "" };

/**
 * The retry rules: a row per status («вернуть в работу через» N минут/часов, «не более» M попыток, then the final
 * status); a row left empty is no rule. Plain fields, so it works the same without JavaScript; with it, the rows of
 * the statuses the topic works again come first.
 */
function RetryRulesFields({
  statuses,
  topicStatuses,
  rules,
  countedBy,
  onChange,
}: {
  statuses: Option[];
  topicStatuses: number[];
  rules: RetryRuleValues[];
  countedBy: string;
  onChange: (rules: RetryRuleValues[], countedBy: string) => void;
}) {
  const byStatus = new Map(rules.map((r) => [r.status, r]));
  const worked = new Set(topicStatuses);
  const ordered = [...statuses].sort((a, b) => Number(worked.has(b.id)) - Number(worked.has(a.id)));
  const set = (status: number, patch: Partial<RetryRuleValues>) => {
    const next = { ...EMPTY_RULE, ...byStatus.get(status), ...patch, status };
    onChange([...rules.filter((r) => r.status !== status), next], countedBy);
  };
  return (
    <fieldset className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="retry-rules">
      <legend className="px-1 text-sm font-medium">Повтор недозвона</legend>
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">
        Для статуса, который тематика берёт в работу снова: через сколько вернуть клиента в работу, сколько попыток
        всего и какой статус поставить после последней. Пустая строка — без правила.
      </p>
      <div className="mb-3 flex flex-wrap gap-4 text-sm" role="radiogroup" aria-label="Попытки считать">
        <span>Попытки считать:</span>
        <label className="flex items-center gap-1">
          <input type="radio" name="retryCountedBy" value="presses" checked={countedBy !== "calls"} onChange={() => onChange(rules, "presses")} />
          по нажатиям статусов
        </label>
        <label className="flex items-center gap-1">
          <input type="radio" name="retryCountedBy" value="calls" checked={countedBy === "calls"} onChange={() => onChange(rules, "calls")} />
          по звонкам в журнале
        </label>
      </div>
      <div className="max-h-72 overflow-auto">
        {/* A card per status on a phone (.stack-table), so no field waits behind a sideways scroll. */}
        <table className="stack-table w-full text-sm [--stack-label:7rem]">
          <thead>
            <tr className="text-left text-xs text-slate-600 dark:text-slate-400">
              <th className="p-1 font-medium">Статус</th>
              <th className="p-1 font-medium">Вернуть в работу через</th>
              <th className="p-1 font-medium">Не более, попыток</th>
              <th className="p-1 font-medium">Затем статус</th>
            </tr>
          </thead>
          <tbody>
            {ordered.map((status) => {
              const rule = { ...EMPTY_RULE, ...byStatus.get(status.id) };
              return (
                <tr key={status.id} data-testid={`retry-rule-${status.id}`} className={worked.has(status.id) ? "" : "opacity-70"}>
                  <th scope="row" className="block p-1 text-left font-medium md:table-cell md:font-normal" id={`retry-status-${status.id}`}>
                    {status.name}
                  </th>
                  <td className="p-1" data-label="Вернуть через">
                    <span className="flex gap-1">
                      <input
                        name={`retryDelay.${status.id}`}
                        inputMode="decimal"
                        className="input w-16 md:w-20"
                        aria-label={`${status.name}: вернуть в работу через`}
                        value={rule.delay}
                        onChange={(event) => set(status.id, { delay: event.target.value })}
                      />
                      <select
                        name={`retryUnit.${status.id}`}
                        className="input w-24 md:w-28"
                        aria-label={`${status.name}: единица времени`}
                        value={rule.unit}
                        onChange={(event) => set(status.id, { unit: event.target.value === "minutes" ? "minutes" : "hours" })}
                      >
                        <option value="minutes">минут</option>
                        <option value="hours">часов</option>
                      </select>
                    </span>
                  </td>
                  <td className="p-1" data-label="Не более, попыток">
                    <input
                      name={`retryMax.${status.id}`}
                      inputMode="numeric"
                      className="input w-16 md:w-20"
                      aria-label={`${status.name}: не более попыток`}
                      value={rule.maxAttempts}
                      onChange={(event) => set(status.id, { maxAttempts: event.target.value })}
                    />
                  </td>
                  <td className="p-1" data-label="Затем статус">
                    <select
                      name={`retryFinal.${status.id}`}
                      className="input max-w-full"
                      aria-label={`${status.name}: статус после последней попытки`}
                      value={rule.finalStatus}
                      onChange={(event) => set(status.id, { finalStatus: event.target.value })}
                    >
                      <option value="">—</option>
                      {statuses
                        .filter((s) => s.id !== status.id)
                        .map((s) => (
                          <option key={s.id} value={s.id}>
                            {s.name}
                          </option>
                        ))}
                    </select>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </fieldset>
  );
}

const LISTS: Array<{ name: ListName; title: string }> = [
  { name: "databases", title: "Базы данных" },
  { name: "managers", title: "Менеджеры" },
  { name: "statuses", title: "Статусы" },
  { name: "scripts", title: "Скрипты" },
];

/**
 * Multi-choice with Выбрать все / Очистить. With JavaScript the buttons flip the boxes here; without it they
 * submit (intent all:<list> / none:<list>) and the action answers the same form with the boxes set.
 */
function MultiChoice({
  name,
  title,
  options,
  selected,
  onChange,
}: {
  name: ListName;
  title: string;
  options: Option[];
  selected: number[];
  onChange: (ids: number[]) => void;
}) {
  const chosen = new Set(selected);
  return (
    <fieldset className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid={`choice-${name}`}>
      <legend className="px-1 text-sm font-medium">
        {title} <span className="text-slate-600 dark:text-slate-400">({chosen.size})</span>
      </legend>
      <div className="mb-2 flex gap-2">
        <button
          type="submit"
          name="intent"
          value={`all:${name}`}
          className="btn-secondary px-2 py-1 text-xs"
          onClick={(event) => {
            event.preventDefault();
            onChange(options.map((o) => o.id));
          }}
        >
          Выбрать все
        </button>
        <button
          type="submit"
          name="intent"
          value={`none:${name}`}
          className="btn-secondary px-2 py-1 text-xs"
          onClick={(event) => {
            event.preventDefault();
            onChange([]);
          }}
        >
          Очистить
        </button>
      </div>
      {options.length === 0 ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">Список пуст</p>
      ) : (
        <div className="max-h-40 space-y-1 overflow-y-auto">
          {options.map((option) => (
            <label key={option.id} className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                name={name}
                value={option.id}
                checked={chosen.has(option.id)}
                onChange={(event) =>
                  onChange(event.target.checked ? [...selected, option.id] : selected.filter((id) => id !== option.id))
                }
              />
              {option.name}
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/** One of the topic's yes/no settings: a checkbox with its label beside it, posted as `name=on` when ticked. */
function CheckboxField({ name, label, values, onChange }: {
  name: "recordCalls" | "managersHearRecordings" | "autodial";
  label: string;
  values: FilterFormValues;
  onChange: (values: FilterFormValues) => void;
}) {
  return (
    <label className="flex items-center gap-2 text-sm">
      <input type="checkbox" name={name} checked={values[name]} onChange={(event) => onChange({ ...values, [name]: event.target.checked })} />
      {label}
    </label>
  );
}

/** The filter form: name, template (single choice), bases, managers, statuses, scripts. */
export function FilterForm({
  options,
  initial,
  filterId,
  keptTemplate = null,
}: {
  options: FilterFormOptions;
  initial: FilterFormValues;
  filterId: number | null;
  /** The template the topic has now: kept in the list even when deactivated (the server keeps it too). */
  keptTemplate?: number | null;
}) {
  const [values, setValues] = useState(initial);
  // Decision 034: only active templates reach managers, so only they are offered (server/core refuses the rest).
  const templates = options.templates.filter((t) => t.isActive || t.id === keptTemplate);
  const chosenInactive = templates.find((t) => t.id === values.template && !t.isActive);
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";

  function check(event: FormEvent<HTMLFormElement>) {
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    if (submitter?.value !== "save") return;
    const problem = filterFormProblem(values);
    if (problem) {
      event.preventDefault();
      notify("error", problem);
    }
  }

  return (
    <Form method="post" noValidate onSubmit={check} className="space-y-4" data-testid="filter-form">
      <div>
        <label className="label" htmlFor="filter-name">
          Название
        </label>
        <input
          id="filter-name"
          name="name"
          className="input"
          value={values.name}
          onChange={(event) => setValues({ ...values, name: event.target.value })}
        />
      </div>
      <div>
        <label className="label" htmlFor="filter-template">
          Шаблон
        </label>
        <select
          id="filter-template"
          name="template"
          className="input"
          value={values.template ?? ""}
          onChange={(event) => setValues({ ...values, template: event.target.value ? Number(event.target.value) : null })}
          aria-describedby={chosenInactive ? "filter-template-inactive" : undefined}
        >
          <option value="">Без шаблона</option>
          {templates.map((t) => (
            <option key={t.id} value={t.id}>
              {t.isActive ? t.name : `${t.name} (деактивирован)`}
            </option>
          ))}
        </select>
        {chosenInactive ? (
          <p id="filter-template-inactive" className="mt-1 text-xs text-amber-800 dark:text-amber-300" data-testid="template-inactive">
            Шаблон деактивирован: менеджеры этой тематики работают без карточки клиента. Включите его на странице
            «Настройка шаблона» или выберите другой.
          </p>
        ) : options.templates.length > 0 && templates.length === 0 ? (
          <p className="mt-1 text-xs text-slate-600 dark:text-slate-400">Активных шаблонов нет: включите шаблон на странице «Настройка шаблона».</p>
        ) : null}
      </div>
      <div className="grid gap-3 md:grid-cols-2">
        {LISTS.map((list) => (
          <MultiChoice
            key={list.name}
            name={list.name}
            title={list.title}
            options={options[list.name]}
            selected={values[list.name]}
            onChange={(ids) => setValues({ ...values, [list.name]: ids })}
          />
        ))}
      </div>
      <CallingHoursFields
        value={values.callingHours}
        zones={options.timeZones}
        onChange={(callingHours) => setValues({ ...values, callingHours })}
      />
      <RetryRulesFields
        statuses={options.statuses}
        topicStatuses={values.statuses}
        rules={values.retryRules ?? []}
        countedBy={values.retryCountedBy ?? "presses"}
        onChange={(retryRules, retryCountedBy) => setValues({ ...values, retryRules, retryCountedBy })}
      />
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="filter-recordings">
        <legend className="px-1 text-sm font-medium">Записи разговоров</legend>
        <CheckboxField name="recordCalls" label="Записывать разговоры" values={values} onChange={setValues} />
        <CheckboxField name="managersHearRecordings" label="Менеджер слушает записи своих разговоров" values={values} onChange={setValues} />
        <div>
          <label className="label" htmlFor="filter-retention">
            Хранить записи, дней
          </label>
          <input
            id="filter-retention"
            name="recordingRetentionDays"
            inputMode="numeric"
            className="input w-32"
            placeholder="всегда"
            value={values.recordingRetentionDays}
            onChange={(event) => setValues({ ...values, recordingRetentionDays: event.target.value })}
            aria-describedby="filter-retention-hint"
          />
          <p id="filter-retention-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            Пусто: записи хранятся всегда. Старше этого срока удаляются.
          </p>
        </div>
      </fieldset>
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="filter-autodial">
        <legend className="px-1 text-sm font-medium">Автонабор</legend>
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <CheckboxField name="autodial" label="Автонабор через" values={values} onChange={setValues} />
          <input
            name="autodialSeconds"
            inputMode="numeric"
            className="input w-20"
            aria-label="Автонабор через, секунд"
            aria-describedby="filter-autodial-hint"
            value={values.autodialSeconds}
            onChange={(event) => setValues({ ...values, autodialSeconds: event.target.value })}
          />
          <span>с</span>
        </div>
        <p id="filter-autodial-hint" className="text-xs text-slate-600 dark:text-slate-400">
          Следующему клиенту звонок начнётся сам через столько секунд после показа карточки (от 3 до 120); менеджер может
          пропустить звонок или поставить автонабор на паузу.
        </p>
      </fieldset>
      <div className="flex flex-wrap justify-end gap-2">
        {filterId ? (
          // Asks first (issue 30): the question is the page's ?delete, a dialog with JavaScript, a section without.
          <Link to={`/loadedbases/filters/${filterId}?delete`} className="btn-danger mr-auto" preventScrollReset>
            Удалить тематику
          </Link>
        ) : null}
        <Link to="/loadedbases" className="btn-secondary">
          Отмена
        </Link>
        <button type="submit" name="intent" value="save" className="btn-primary" disabled={busy}>
          {busy ? "Сохраняем..." : "Сохранить"}
        </button>
      </div>
    </Form>
  );
}

/** The filter's dialog (a section of the page without JavaScript); closing goes back to /loadedbases. */
export function FilterModal({ title, children }: { title: string; children: ReactNode }) {
  return (
    <DialogOrSection open title={title} closeHref="/loadedbases" width="large" testId="filter-dialog">
      {children}
    </DialogOrSection>
  );
}
