import type { SubmissionResult } from "@conform-to/react";
import { Form, Link, useNavigation } from "@remix-run/react";
import { useState, type ReactNode } from "react";
import * as z from "zod";
import {
  callingHoursFields,
  CONTACT_LIMIT_COUNTS,
  type ContactLimits,
  contactLimitsSchema,
  DAYS_OFF_MAX,
  filterInputSchema,
  isoDateSchema,
  LAW_230_LIMITS,
  NO_CONTACT_LIMITS,
  retryRuleSchema,
  weekendBoth,
  INBOUND_NUMBER_WORDS,
} from "../../../common/schemas/filters";
import type { CallingHours } from "../../../server/core/filters/calling-hours";
import type { PresentedFilter } from "../../../server/core/filters/filters";
import { DialogOrSection } from "../ui/DialogOrSection";
import { useHydrated } from "../ui/hydrated";
import { CancelAndSave, FieldError, formProps, inputProps, isChosen, selectProps, unshownError, useSchemaForm, TextField } from "../ui/forms";
import { ServerMessage, useAnswerKey } from "../ui/Toasts";

// ---- The form's one schema (decision 063) ----

/** A typed number ("1,5" too); empty or not a number is NaN, which core's rule refuses with its own message. */
const typedNumber = (text = "") => (text.trim() === "" ? Number.NaN : Number(text.trim().replace(",", ".")));

/**
 * A retry rule's row as typed: the delay in the row's unit, the numbers as text. A record keyed by the status id
 * (`retryRules.<id>.delay`), so a row's errors stay with its status whatever order the rows are shown in.
 */
const retryRowSchema = z.object({
  delay: z.string().optional(),
  unit: z.string().optional(),
  maxAttempts: z.string().optional(),
  finalStatus: z.string().optional(),
});
type RetryRow = z.infer<typeof retryRowSchema>;

/** The row as core's rule (delay in minutes), or null: a row left empty is no rule. */
function ruleOf(statusId: string, row: RetryRow) {
  const [delay, maxAttempts, finalStatus] = [row.delay, row.maxAttempts, row.finalStatus].map((v) => v?.trim() ?? "");
  if (!delay && !maxAttempts && !finalStatus) return null;
  const amount = typedNumber(delay);
  return {
    status: Number(statusId),
    delayMinutes: row.unit === "hours" ? Math.round(amount * 60 * 1000) / 1000 : amount,
    maxAttempts: typedNumber(maxAttempts),
    finalStatus: finalStatus === "" ? 0 : Number(finalStatus),
  };
}

/** Which field of the row shows an error of core's rule. */
const ROW_FIELD: Record<string, keyof RetryRow> = { status: "delay", delayMinutes: "delay", maxAttempts: "maxAttempts", finalStatus: "finalStatus" };

/** The rows checked by core's own rule schema, each error under its field; out: core's list of rules. */
const retryRowsSchema = z
  .record(z.string(), retryRowSchema)
  .superRefine((rows, ctx) => {
    for (const [status, row] of Object.entries(rows)) {
      const rule = ruleOf(status, row);
      const checked = rule ? retryRuleSchema.safeParse(rule) : null;
      for (const issue of checked?.error?.issues ?? []) {
        ctx.addIssue({ code: "custom", message: issue.message, path: [status, ROW_FIELD[String(issue.path[0])] ?? "delay"] });
      }
    }
  })
  .transform((rows) => Object.entries(rows).flatMap(([status, row]) => ruleOf(status, row) ?? []));

/**
 * The contact limits as the form has them (issue 43): one choice (none, 230-FZ, own numbers), the numbers as text
 * and what they count. Out: core's limits; an own number core refuses shows under its field.
 */
const LIMIT_PRESETS = ["none", "law230", "custom"] as const;
const limitsRowSchema = z.object({
  preset: z.enum(LIMIT_PRESETS, { error: "Выберите ограничение звонков" }).default("none"),
  day: z.string().optional(),
  week: z.string().optional(),
  month: z.string().optional(),
  counts: z.enum(CONTACT_LIMIT_COUNTS, { error: "Выберите, какие звонки считать" }).default("connected"),
});
type LimitsRow = z.infer<typeof limitsRowSchema>;
const typedLimit = (text = "") => (text.trim() === "" ? null : typedNumber(text));
function limitsOf(row: LimitsRow): ContactLimits {
  if (row.preset === "none") return NO_CONTACT_LIMITS;
  if (row.preset === "law230") return LAW_230_LIMITS;
  return { day: typedLimit(row.day), week: typedLimit(row.week), month: typedLimit(row.month), counts: row.counts };
}
/** Out: core's limits, and the 230-FZ choice as core's preset (which sets the law's limits and hours: law230Topic). */
const contactLimitsFormSchema = limitsRowSchema
  .superRefine((row, ctx) => {
    const checked = contactLimitsSchema.safeParse(limitsOf(row));
    for (const issue of checked.error?.issues ?? []) ctx.addIssue({ code: "custom", message: issue.message, path: [String(issue.path[0] ?? "day")] });
  })
  .transform((row) => ({ limits: limitsOf(row), preset: row.preset === "law230" ? ("law230" as const) : undefined }));

/**
 * The form's choice for a stored topic: 230-FZ's when the topic follows it (core's `preset`: the law's numbers and
 * hours within the law's), else none or its own numbers (the law's numbers with wider hours are shown as own).
 */
const limitsChoiceOf = (filter: Pick<PresentedFilter, "contactLimits" | "preset"> | null): LimitsRow["preset"] => {
  if (filter?.preset === "law230") return "law230";
  const limits = filter?.contactLimits ?? NO_CONTACT_LIMITS;
  return limits.day == null && limits.week == null && limits.month == null ? "none" : "custom";
};

/**
 * The topic's days off as typed (decision 076): dates «31.12.2026» (or 2026-12-31) separated by commas, spaces or
 * lines. Out: core's list ("YYYY-MM-DD"); a date that does not exist is named in the message under the field.
 */
export const DAYS_OFF_TEXT_ERROR = (typed: string) =>
  `Неверная дата «${typed.slice(0, 20)}»: укажите даты через запятую в виде ДД.ММ.ГГГГ, например 31.12.2026, 08.01.2027`;
const isoOfTyped = (typed: string) => {
  const dotted = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(typed);
  return dotted ? `${dotted[3]}-${dotted[2].padStart(2, "0")}-${dotted[1].padStart(2, "0")}` : typed;
};
const daysOffTextSchema = z
  .string()
  .optional()
  .transform((text, ctx) => {
    const typed = (text ?? "").split(/[\s,;]+/).filter(Boolean);
    const days: string[] = [];
    for (const day of typed) {
      const iso = isoOfTyped(day);
      if (!isoDateSchema.safeParse(iso).success) {
        ctx.addIssue({ code: "custom", message: DAYS_OFF_TEXT_ERROR(day) });
        return z.NEVER;
      }
      days.push(iso);
    }
    if (days.length > DAYS_OFF_MAX) {
      ctx.addIssue({ code: "custom", message: `Не больше ${DAYS_OFF_MAX} выходных дней` });
      return z.NEVER;
    }
    return days;
  });
/** A stored day off as the form shows it: «05.01.2027». */
const dottedDate = (iso: string) => iso.split("-").reverse().join(".");

/** The calling window as the form has it: core's fields, the days off as one text. */
const callingHoursFormSchema = callingHoursFields.extend({ daysOff: daysOffTextSchema }).superRefine(weekendBoth);

const { shape } = filterInputSchema;

/**
 * The topic form (/loadedbases/filters/new and /{id}): core's topic schema (SPEC §5's messages, the calling
 * window, the retention days), with the fields as the form has them — the retry rules as typed rows, «Автонабор»
 * a box and its seconds, the boxes `on` or absent. Its output is core's input; app/filters.server.ts parses the post
 * with it and core checks it again.
 */
export const FilterFormSchema = filterInputSchema
  .pick({ name: true, template: true, managers: true, databases: true, statuses: true, scripts: true, callingHours: true, retryCountedBy: true })
  .extend({
    callingHours: callingHoursFormSchema.optional(),
    /** Sent with `retryCountedBy`; a post without them (an older page) keeps the topic's rules. */
    retryRules: retryRowsSchema.optional(),
    // An unchecked box is off; an emptied retention is «всегда» (null), not «leave as it is».
    recordCalls: shape.recordCalls.default(false),
    managersHearRecordings: shape.managersHearRecordings.default(false),
    requiresConsent: shape.requiresConsent.default(false),
    recordingRetentionDays: shape.recordingRetentionDays.default(null),
    autodial: z.boolean().default(false),
    autodialSeconds: z.string().optional(),
    /** Sent by this form always; a post without it (an older page) keeps the topic's limits. */
    contactLimits: contactLimitsFormSchema.optional(),
    // An emptied trunk number is «none» (conform sends an empty field as absent).
    inboundNumber: shape.inboundNumber.default(""),
  })
  .superRefine((form, ctx) => {
    // The seconds count only with the box ticked: then they are core's «Автонабор через N с».
    if (!form.autodial) return;
    const seconds = shape.autodialSeconds.unwrap().safeParse(typedNumber(form.autodialSeconds));
    if (!seconds.success) ctx.addIssue({ code: "custom", message: seconds.error.issues[0].message, path: ["autodialSeconds"] });
  })
  .transform(({ autodial, autodialSeconds, retryRules, retryCountedBy, contactLimits, ...topic }) => ({
    ...topic,
    // The 230-FZ choice is core's preset, as the API's: core sets the law's limits and brings the hours within the
    // law's (08:00-22:00, weekends and holidays 09:00-20:00), keeping a window the admin narrowed inside them.
    contactLimits: contactLimits?.limits,
    preset: contactLimits?.preset,
    retryCountedBy,
    retryRules: retryCountedBy === undefined ? undefined : (retryRules ?? []),
    // The form's text as a number: core's schema takes numbers only (an API's "5" is refused, issue 43).
    autodialSeconds: autodial ? typedNumber(autodialSeconds) : null,
  }));

/** The action's answers to this form carry this name (`resultOf`). */
export const FILTER_FORM = "topic";

// ---- The form ----

interface Option {
  id: number;
  name: string;
  /** A status «Выбрать все» leaves out (issue 41): a report's or a do-not-call one, named so in the list. */
  apart?: "заявка" | "не звонить" | null;
}

/** What «Выбрать все» ticks (with and without JavaScript): every option but those set apart. */
export const bulkChoice = (options: Option[]) => options.filter((o) => !o.apart).map((o) => String(o.id));

export interface FilterFormOptions {
  managers: Option[];
  databases: Option[];
  statuses: Option[];
  scripts: Option[];
  templates: Array<Option & { isActive: boolean }>;
  /** The zones a topic's default zone may be (IANA names). */
  timeZones: Array<{ id: string; label: string }>;
}

/** What the seconds field offers when the box is first ticked. */
const AUTODIAL_DEFAULT_SECONDS = 5;

/** A stored rule as the form shows it: whole hours in hours, anything else in minutes. */
function retryRowOf(rule: PresentedFilter["retryRules"][number]): RetryRow {
  const hours = rule.delayMinutes % 60 === 0;
  return {
    delay: String(hours ? rule.delayMinutes / 60 : rule.delayMinutes),
    unit: hours ? "hours" : "minutes",
    maxAttempts: String(rule.maxAttempts),
    finalStatus: String(rule.finalStatus.id),
  };
}

/** The form's first values: the topic as it is, or a new one (no rules, presses, the default calling window). */
export function filterFormDefaults(filter: PresentedFilter | null, defaultHours: CallingHours) {
  const ids = (list: Array<{ id: number }> | undefined) => (list ?? []).map((item) => String(item.id));
  const hours = filter?.callingHours ?? defaultHours;
  return {
    name: filter?.name ?? "",
    template: filter?.template ? String(filter.template.id) : "",
    managers: ids(filter?.managers),
    databases: ids(filter?.databases),
    statuses: ids(filter?.statuses),
    scripts: ids(filter?.scripts),
    callingHours: {
      ...hours,
      days: hours.days.map(String),
      weekendFrom: hours.weekendFrom ?? "",
      weekendUntil: hours.weekendUntil ?? "",
      daysOff: (hours.daysOff ?? []).map(dottedDate).join(", "),
    },
    retryCountedBy: filter?.retryCountedBy ?? "presses",
    retryRules: Object.fromEntries((filter?.retryRules ?? []).map((rule) => [String(rule.status.id), retryRowOf(rule)])),
    recordCalls: filter?.recordCalls ? "on" : undefined,
    managersHearRecordings: filter?.managersHearRecordings ? "on" : undefined,
    requiresConsent: filter?.requiresConsent ? "on" : undefined,
    recordingRetentionDays: filter?.recordingRetentionDays == null ? "" : String(filter.recordingRetentionDays),
    autodial: filter?.autodialSeconds != null ? "on" : undefined,
    autodialSeconds: String(filter?.autodialSeconds ?? AUTODIAL_DEFAULT_SECONDS),
    inboundNumber: filter?.inboundNumber ?? "",
    contactLimits: (() => {
      const limits = filter?.contactLimits ?? NO_CONTACT_LIMITS;
      const text = (n: number | null) => (n == null ? "" : String(n));
      return { preset: limitsChoiceOf(filter), day: text(limits.day), week: text(limits.week), month: text(limits.month), counts: limits.counts };
    })(),
  };
}

/** A field's values as the form holds them now (a box list: one value, several, or none). */
const valuesOf = (value: unknown): string[] => (Array.isArray(value) ? value.map(String) : typeof value === "string" && value ? [value] : []);

/** aria-describedby for an input with a hint: its error (when shown) and the hint. */
const describedBy = (field: { errorId: string; errors?: string[] }, hint: string) => (field.errors?.length ? `${field.errorId} ${hint}` : hint);

function useFilterForm(options: { id: string; lastResult?: SubmissionResult<string[]> | null; defaultValue: ReturnType<typeof filterFormDefaults> }) {
  return useSchemaForm(FilterFormSchema, options);
}
type FormState = ReturnType<typeof useFilterForm>;
type Fields = FormState[1];

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
function CallingHoursFields({ field, zones }: { field: Fields["callingHours"]; zones: Array<{ id: string; label: string }> }) {
  const hours = field.getFieldset();
  const zone = String(hours.timeZone.initialValue ?? "");
  const zoneChoices = !zone || zones.some((choice) => choice.id === zone) ? zones : [{ id: zone, label: zone }, ...zones];
  return (
    <fieldset className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="calling-hours">
      <legend className="px-1 text-sm font-medium">Время звонков (по местному времени клиента)</legend>
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label className="label" htmlFor="calls-from">
            С
          </label>
          <input {...inputProps(hours.from, "time")} id="calls-from" className="input" />
          <FieldError field={hours.from} />
        </div>
        <div>
          <label className="label" htmlFor="calls-until">
            До
          </label>
          <input {...inputProps(hours.until, "time")} id="calls-until" className="input" />
          <FieldError field={hours.until} />
        </div>
        <div className="min-w-56 flex-1">
          <label className="label" htmlFor="calls-zone">
            Часовой пояс, если по номеру не определён
          </label>
          <select {...selectProps(hours.timeZone)} id="calls-zone" className="input">
            {zoneChoices.map((choice) => (
              <option key={choice.id} value={choice.id}>
                {choice.label}
              </option>
            ))}
          </select>
          <FieldError field={hours.timeZone} />
        </div>
      </div>
      <div
        className="mt-2 flex flex-wrap gap-3"
        role="group"
        aria-label="Дни звонков"
        aria-describedby={hours.days.errors?.length ? hours.days.errorId : undefined}
      >
        {DAYS.map(({ day, name, title }) => (
          <label key={day} className="flex items-center gap-1 text-sm" title={title}>
            <input type="checkbox" name={hours.days.name} value={day} defaultChecked={isChosen(hours.days.initialValue, day)} />
            {name}
          </label>
        ))}
      </div>
      <FieldError field={hours.days} />
      <fieldset className="mt-3" data-testid="weekend-hours" aria-describedby="weekend-hint">
        <legend className="text-sm font-medium">В выходные и праздники</legend>
        <div className="flex flex-wrap items-end gap-3">
          <div>
            <label className="label" htmlFor="weekend-from">
              С
            </label>
            <input {...inputProps(hours.weekendFrom, "time")} id="weekend-from" className="input" />
            <FieldError field={hours.weekendFrom} />
          </div>
          <div>
            <label className="label" htmlFor="weekend-until">
              До
            </label>
            <input {...inputProps(hours.weekendUntil, "time")} id="weekend-until" className="input" />
            <FieldError field={hours.weekendUntil} />
          </div>
        </div>
        <p id="weekend-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          Пусто — как в будни. Выходные — суббота, воскресенье, государственные праздники страны клиента и дни ниже; в праздник или день ниже,
          выпавший на будний день, звоним, только если отмечена суббота или воскресенье.
        </p>
      </fieldset>
      <div className="mt-3">
        <label className="label" htmlFor="days-off">
          Дополнительные выходные дни (даты через запятую)
        </label>
        <input
          {...inputProps(hours.daysOff)}
          id="days-off"
          className="input"
          placeholder="например, 31.12.2026, 08.01.2027"
          aria-describedby={describedBy(hours.daysOff, "days-off-hint")}
        />
        <FieldError field={hours.daysOff} />
        <p id="days-off-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          Эти дни считаются выходными по дате клиента, как праздники.
        </p>
      </div>
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
        Часовой пояс клиента определяется по коду страны и города его номера. «До» раньше «С» — окно через полночь; одинаковое время — круглосуточно.
      </p>
    </fieldset>
  );
}

/** The contact limits' three choices, as the form says them. */
const PRESET_CHOICES: Array<[LimitsRow["preset"], string]> = [
  ["none", "Без ограничения"],
  [
    "law230",
    "По закону 230-ФЗ (взыскание долгов): не больше 1 разговора с клиентом в день, 2 в неделю и 8 в месяц. Недозвоны не считаются. Время звонков — с 08:00 до 22:00 в будни и с 09:00 до 20:00 в выходные и праздники (более узкое время сохраняется).",
  ],
  ["custom", "Свои ограничения:"],
];

/**
 * The contact limits per client (issue 43, decision 075): none, 230-FZ's (one choice), or the admin's own numbers
 * and what they count. Plain radios and fields: the same without JavaScript (the numbers are read only with «Свои»);
 * with it, the own numbers are disabled while another choice is made, so 230-FZ's cannot look changed.
 */
function ContactLimitsFields({ field }: { field: Fields["contactLimits"] }) {
  const limits = field.getFieldset();
  const preset = String(limits.preset.value ?? limits.preset.initialValue ?? "none");
  const [chosen, setChosen] = useState<string>(preset);
  const ownOff = useHydrated() && chosen !== "custom";
  const number = (f: typeof limits.day, label: string) => (
    <div>
      <label className="label" htmlFor={`limit-${f.name}`}>
        {label}
      </label>
      <input {...inputProps(f)} id={`limit-${f.name}`} inputMode="numeric" className="input w-24" />
      <FieldError field={f} />
    </div>
  );
  return (
    <fieldset className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="contact-limits">
      <legend className="px-1 text-sm font-medium">Сколько раз звонить одному клиенту</legend>
      <div className="space-y-1 text-sm" role="radiogroup" aria-label="Ограничение звонков клиенту">
        {PRESET_CHOICES.map(([value, label]) => (
          <label key={value} className="flex items-start gap-2">
            <input
              type="radio"
              name={limits.preset.name}
              value={value}
              defaultChecked={preset === value}
              onChange={() => setChosen(value)}
              className="mt-1"
            />
            <span>{label}</span>
          </label>
        ))}
      </div>
      <FieldError field={limits.preset} />
      <fieldset className="ml-6 mt-2 space-y-2 disabled:opacity-60" disabled={ownOff} data-testid="own-limits">
        <legend className="sr-only">Свои ограничения</legend>
        <div className="flex flex-wrap gap-3">
          {number(limits.day, "В день, не больше")}
          {number(limits.week, "В неделю")}
          {number(limits.month, "В месяц")}
        </div>
        <div className="flex flex-wrap gap-4 text-sm" role="radiogroup" aria-label="Какие звонки считать">
          <span>Считать:</span>
          <label className="flex items-center gap-1">
            <input type="radio" name={limits.counts.name} value="connected" defaultChecked={limits.counts.initialValue !== "attempts"} />
            только состоявшиеся разговоры
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" name={limits.counts.name} value="attempts" defaultChecked={limits.counts.initialValue === "attempts"} />
            каждую попытку дозвона
          </label>
        </div>
        <FieldError field={limits.counts} />
      </fieldset>
      <p className="mt-2 text-xs text-slate-600 dark:text-slate-400">
        Дни, недели (с понедельника) и месяцы — по времени клиента. Пустое поле — без ограничения. Клиента, которому уже звонили столько раз, система
        не выдаёт и не даёт ему позвонить до следующего дня, недели или месяца.
      </p>
    </fieldset>
  );
}

/**
 * The retry rules: a row per status («вернуть в работу через» N минут/часов, «не более» M попыток, then the final
 * status); a row left empty is no rule. Plain fields, so it works the same without JavaScript; with it, the rows of
 * the statuses the topic works again come first.
 */
function RetryRulesFields({ statuses, fields }: { statuses: Option[]; fields: Fields }) {
  const rows = fields.retryRules.getFieldset();
  const worked = new Set(valuesOf(fields.statuses.value).map(Number));
  const ordered = [...statuses].sort((a, b) => Number(worked.has(b.id)) - Number(worked.has(a.id)));
  const countedBy = fields.retryCountedBy;
  return (
    <fieldset className="rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="retry-rules">
      <legend className="px-1 text-sm font-medium">Повтор недозвона</legend>
      <p className="mb-2 text-xs text-slate-600 dark:text-slate-400">
        Для статуса, который тематика берёт в работу снова: через сколько вернуть клиента в работу, сколько попыток всего и какой статус поставить
        после последней. Пустая строка — без правила.
      </p>
      <div className="mb-3 flex flex-wrap gap-4 text-sm" role="radiogroup" aria-label="Попытки считать">
        <span>Попытки считать:</span>
        <label className="flex items-center gap-1">
          <input type="radio" name={countedBy.name} value="presses" defaultChecked={countedBy.initialValue !== "calls"} />
          по нажатиям статусов
        </label>
        <label className="flex items-center gap-1">
          <input type="radio" name={countedBy.name} value="calls" defaultChecked={countedBy.initialValue === "calls"} />
          по звонкам в журнале
        </label>
      </div>
      <FieldError field={countedBy} />
      {/* Issue 41: no scroll box of its own (at 390 one row of six showed inside the scrolling dialog): the form scrolls once. */}
      <div>
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
              const row = rows[String(status.id)].getFieldset();
              return (
                <tr key={status.id} data-testid={`retry-rule-${status.id}`} className={worked.has(status.id) ? "" : "opacity-70"}>
                  <th scope="row" className="block p-1 text-left font-medium md:table-cell md:font-normal" id={`retry-status-${status.id}`}>
                    {status.name}
                  </th>
                  <td className="p-1" data-label="Вернуть через">
                    <span className="flex gap-1">
                      <input
                        {...inputProps(row.delay)}
                        inputMode="decimal"
                        className="input w-16 md:w-20"
                        aria-label={`${status.name}: вернуть в работу через`}
                      />
                      <select
                        {...selectProps(row.unit)}
                        defaultValue={row.unit.initialValue === "minutes" ? "minutes" : "hours"}
                        className="input w-24 md:w-28"
                        aria-label={`${status.name}: единица времени`}
                      >
                        <option value="minutes">минут</option>
                        <option value="hours">часов</option>
                      </select>
                    </span>
                    <FieldError field={row.delay} />
                  </td>
                  <td className="p-1" data-label="Не более, попыток">
                    <input
                      {...inputProps(row.maxAttempts)}
                      inputMode="numeric"
                      className="input w-16 md:w-20"
                      aria-label={`${status.name}: не более попыток`}
                    />
                    <FieldError field={row.maxAttempts} />
                  </td>
                  <td className="p-1" data-label="Затем статус">
                    <select
                      {...selectProps(row.finalStatus)}
                      defaultValue={String(row.finalStatus.initialValue ?? "")}
                      className="input max-w-full"
                      aria-label={`${status.name}: статус после последней попытки`}
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
                    <FieldError field={row.finalStatus} />
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

type ListName = "managers" | "databases" | "statuses" | "scripts";

const LISTS: Array<{ name: ListName; title: string }> = [
  { name: "databases", title: "Базы данных" },
  { name: "managers", title: "Менеджеры" },
  { name: "statuses", title: "Статусы" },
  { name: "scripts", title: "Скрипты" },
];

/**
 * Multi-choice with Выбрать все / Очистить. With JavaScript the buttons set the boxes here (conform's update);
 * without it they submit (intent all:<list> / none:<list>) and the action answers the same form with the boxes set.
 */
function MultiChoice({
  name,
  title,
  options,
  field,
  choose,
}: {
  name: ListName;
  title: string;
  options: Option[];
  field: Fields[ListName];
  choose: (ids: string[]) => void;
}) {
  const chosen = valuesOf(field.value);
  const button = (intent: string, label: string, ids: string[]) => (
    <button
      type="submit"
      name="intent"
      value={intent}
      className="btn-secondary px-2 py-1 text-xs"
      onClick={(event) => {
        event.preventDefault();
        choose(ids);
      }}
    >
      {label}
    </button>
  );
  return (
    <fieldset
      className="rounded-md border border-slate-200 p-3 dark:border-slate-700"
      data-testid={`choice-${name}`}
      aria-describedby={[field.errors?.length ? field.errorId : "", name === "statuses" ? "filter-statuses-hint" : ""].join(" ").trim() || undefined}
    >
      <legend className="px-1 text-sm font-medium">
        {title} <span className="text-slate-600 dark:text-slate-400">({chosen.length})</span>
      </legend>
      <div className="mb-2 flex gap-2">
        {button(`all:${name}`, "Выбрать все", bulkChoice(options))}
        {button(`none:${name}`, "Очистить", [])}
      </div>
      {name === "statuses" ? (
        <p id="filter-statuses-hint" className="mb-2 text-xs text-slate-600 dark:text-slate-400" data-testid="statuses-hint">
          Клиентов с отмеченными статусами тематика выдаёт менеджерам снова; новые клиенты выдаются всегда. «Выбрать все» не отмечает заявки и «Не
          звонить»: отметьте их сами, только если этих клиентов нужно обзванивать снова.
        </p>
      ) : null}
      {options.length === 0 ? (
        <p className="text-xs text-slate-600 dark:text-slate-400">Список пуст</p>
      ) : (
        <div className="max-h-40 space-y-1 overflow-y-auto">
          {options.map((option) => (
            <label key={option.id} className="flex items-center gap-2 text-sm">
              <input type="checkbox" name={field.name} value={option.id} defaultChecked={isChosen(field.initialValue, option.id)} />
              {option.name}
              {option.apart ? (
                <span className="text-xs text-amber-800 dark:text-amber-300" title={`Статус «${option.apart}»`}>
                  (не в «Выбрать все»)
                </span>
              ) : null}
            </label>
          ))}
        </div>
      )}
      <FieldError field={field} />
    </fieldset>
  );
}

/** One of the topic's yes/no settings: a checkbox with its label beside it, posted as `name=on` when ticked. */
function CheckboxField({
  field,
  label,
}: {
  field: Fields["recordCalls" | "managersHearRecordings" | "autodial" | "requiresConsent"];
  label: string;
}) {
  return (
    <label className="flex items-center gap-2 text-sm">
      <input type="checkbox" name={field.name} defaultChecked={field.initialValue === "on"} />
      {label}
    </label>
  );
}

/** The fields that show their own errors (a retry row's are added per status). */
const SHOWN = [
  ...["name", "template", "managers", "databases", "statuses", "scripts", "retryCountedBy"],
  ...["recordCalls", "managersHearRecordings", "requiresConsent", "recordingRetentionDays", "autodial", "autodialSeconds", "inboundNumber"],
  ...["from", "until", "days", "timeZone", "weekendFrom", "weekendUntil", "daysOff"].map((name) => `callingHours.${name}`),
  ...["preset", "day", "week", "month", "counts"].map((name) => `contactLimits.${name}`),
];

/** The filter form: name, template (single choice), bases, managers, statuses, scripts, hours, rules, recordings, autodial. */
export function FilterForm({
  options,
  defaultValue,
  lastResult,
  filterId,
  keptTemplate = null,
}: {
  options: FilterFormOptions;
  /** `filterFormDefaults` of the topic (or of a new one). */
  defaultValue: ReturnType<typeof filterFormDefaults>;
  /** The action's answer to this form (field errors, what was typed, the boxes Выбрать все set), if it was just sent. */
  lastResult?: SubmissionResult<string[]> | null;
  filterId: number | null;
  /** The template the topic has now: kept in the list even when deactivated (the server keeps it too). */
  keptTemplate?: number | null;
}) {
  const [form, fields] = useFilterForm({ id: `filter-form-${filterId ?? "new"}`, lastResult, defaultValue });
  // Decision 034: only active templates reach managers, so only they are offered (server/core refuses the rest).
  const templates = options.templates.filter((t) => t.isActive || t.id === keptTemplate);
  const chosenInactive = templates.find((t) => String(t.id) === fields.template.value && !t.isActive);
  const busy = useNavigation().state === "submitting";
  // A new answer speaks again, even with the same message.
  const answerKey = useAnswerKey(lastResult);
  const unshown = unshownError(lastResult, [
    ...SHOWN,
    ...options.statuses.flatMap((status) => ["delay", "maxAttempts", "finalStatus"].map((name) => `retryRules.${status.id}.${name}`)),
  ]);

  return (
    <Form method="post" {...formProps(form)} className="space-y-4" data-testid="filter-form">
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      <TextField field={fields.name} label="Название" id="filter-name" />
      <div>
        <label className="label" htmlFor="filter-template">
          Шаблон
        </label>
        <select
          {...selectProps(fields.template)}
          id="filter-template"
          className="input"
          aria-describedby={
            [fields.template.errors?.length ? fields.template.errorId : "", chosenInactive ? "filter-template-inactive" : ""].join(" ").trim() ||
            undefined
          }
        >
          <option value="">Без шаблона</option>
          {templates.map((t) => (
            <option key={t.id} value={t.id}>
              {t.isActive ? t.name : `${t.name} (деактивирован)`}
            </option>
          ))}
        </select>
        <FieldError field={fields.template} />
        {chosenInactive ? (
          <p id="filter-template-inactive" className="mt-1 text-xs text-amber-800 dark:text-amber-300" data-testid="template-inactive">
            Шаблон деактивирован: менеджеры этой тематики работают без карточки клиента. Включите его на странице «Настройка шаблона» или выберите
            другой.
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
            field={fields[list.name]}
            choose={(ids) => form.update({ name: fields[list.name].name, value: ids })}
          />
        ))}
      </div>
      <CallingHoursFields field={fields.callingHours} zones={options.timeZones} />
      <ContactLimitsFields field={fields.contactLimits} />
      <fieldset className="space-y-1 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="filter-consent">
        <legend className="px-1 text-sm font-medium">Согласие клиента</legend>
        <CheckboxField field={fields.requiresConsent} label="Звонить только клиентам с согласием на звонки" />
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Для рекламных звонков нужно предварительное согласие абонента (38-ФЗ, ст. 18). Согласие берётся из столбца базы «Согласие на звонки» при
          импорте; клиентов без него тематика не выдаёт, и позвонить им нельзя.
        </p>
      </fieldset>
      <RetryRulesFields statuses={options.statuses} fields={fields} />
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="filter-recordings">
        <legend className="px-1 text-sm font-medium">Записи разговоров</legend>
        <CheckboxField field={fields.recordCalls} label="Записывать разговоры" />
        <CheckboxField field={fields.managersHearRecordings} label="Менеджер слушает записи своих разговоров" />
        <div>
          <label className="label" htmlFor="filter-retention">
            Хранить записи, дней
          </label>
          <input
            {...inputProps(fields.recordingRetentionDays)}
            id="filter-retention"
            inputMode="numeric"
            className="input w-32"
            placeholder="всегда"
            aria-describedby={describedBy(fields.recordingRetentionDays, "filter-retention-hint")}
          />
          <FieldError field={fields.recordingRetentionDays} />
          <p id="filter-retention-hint" className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            Пусто: записи хранятся всегда. Старше этого срока удаляются.
          </p>
        </div>
      </fieldset>
      <fieldset className="space-y-2 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="filter-autodial">
        <legend className="px-1 text-sm font-medium">Автонабор</legend>
        <div className="flex flex-wrap items-center gap-2 text-sm">
          <CheckboxField field={fields.autodial} label="Автонабор через" />
          <input
            {...inputProps(fields.autodialSeconds)}
            inputMode="numeric"
            className="input w-20"
            aria-label="Автонабор через, секунд"
            aria-describedby={describedBy(fields.autodialSeconds, "filter-autodial-hint")}
          />
          <span>с</span>
        </div>
        <FieldError field={fields.autodialSeconds} />
        <p id="filter-autodial-hint" className="text-xs text-slate-600 dark:text-slate-400">
          Следующему клиенту звонок начнётся сам через столько секунд после показа карточки (от 3 до 120); менеджер может пропустить звонок или
          поставить автонабор на паузу.
        </p>
      </fieldset>
      <fieldset className="space-y-1 rounded-md border border-slate-200 p-3 dark:border-slate-700" data-testid="filter-inbound">
        <legend className="px-1 text-sm font-medium">{INBOUND_NUMBER_WORDS.legend}</legend>
        <TextField
          field={fields.inboundNumber}
          label={INBOUND_NUMBER_WORDS.label}
          id="filter-inbound-number"
          type="tel"
          className="input md:w-72"
          placeholder="не задан"
          aria-describedby={describedBy(fields.inboundNumber, "filter-inbound-empty filter-inbound-hint")}
        />
        {/* One field, two uses (decision 083): the topic's calls out show this number, TRUNK_CALLER_ID without one. */}
        <p id="filter-inbound-empty" className="text-xs text-slate-600 dark:text-slate-400">
          Пусто — общий номер линии (TRUNK_CALLER_ID)
        </p>
        <p id="filter-inbound-hint" className="text-xs text-slate-600 dark:text-slate-400">
          Один из номеров линии оператора. Звонок на него с незнакомого номера идёт свободному менеджеру этой тематики, а пропущенный становится
          клиентом её первой базы с перезвоном. Номер может быть только у одной активной тематики.
        </p>
      </fieldset>
      <div className="flex flex-wrap justify-end gap-2">
        {filterId ? (
          // Asks first (issue 30): the question is the page's ?delete, a dialog with JavaScript, a section without.
          <Link to={`/loadedbases/filters/${filterId}?delete`} className="btn-danger mr-auto" preventScrollReset>
            Удалить тематику
          </Link>
        ) : null}
        <CancelAndSave cancelHref="/loadedbases" intent="save" busy={busy} />
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
