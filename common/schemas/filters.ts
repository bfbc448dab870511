// Run by the server (core's topics, the API) and the browser (the /loadedbases topic form checks the same schemas).
import * as z from "zod";
import { idSchema, requiredText } from "../validation";

/** What a topic's retry rules count as attempts: status presses, or calls in the call log (db/schema re-exports it). */
export const RETRY_COUNTED_BY = ["presses", "calls"] as const;
export type RetryCountedBy = (typeof RETRY_COUNTED_BY)[number];

// ---- Calling hours (issue 29, decision 050) ----

const clock = (message: string) =>
  z
    .string({ error: message })
    .trim()
    .regex(/^([01]\d|2[0-3]):[0-5]\d(:00)?$/, { error: message })
    .transform((v) => v.slice(0, 5));

/** A weekend time as typed: empty (or null) is «the same as on working days». */
const optionalClock = (message: string) =>
  z
    .union([z.null(), z.literal(""), clock(message)], { error: message })
    .optional()
    .transform((v) => v || null);

export const DAY_OFF_ERROR = "Неверная дата выходного дня: укажите дату вида 2027-01-05";
export const DAYS_OFF_MAX = 400;

/** A calendar date "YYYY-MM-DD" that exists (not 2027-02-30). */
export const isoDateSchema = z
  .string({ error: DAY_OFF_ERROR })
  .trim()
  .regex(/^\d{4}-\d{2}-\d{2}$/, { error: DAY_OFF_ERROR })
  .refine(
    (v) => {
      const date = new Date(`${v}T00:00:00Z`);
      return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === v;
    },
    { error: DAY_OFF_ERROR },
  );

export const WEEKEND_BOTH_ERROR = "Время звонков в выходные: укажите и начало, и конец, или оставьте оба поля пустыми (как в будни)";

/**
 * The window's fields (issue 29, decision 050; the weekend window and days off: issue 43, decision 076). Without
 * its one cross-field rule (`weekendBoth`), so a form may extend it.
 */
export const callingHoursFields = z.object({
  from: clock("Укажите начало времени звонков в формате ЧЧ:ММ"),
  until: clock("Укажите конец времени звонков в формате ЧЧ:ММ"),
  days: z
    .array(z.number({ error: "Неверный день недели" }).int().min(1, { error: "Неверный день недели" }).max(7, { error: "Неверный день недели" }), {
      error: "Выберите хотя бы один день звонков",
    })
    .min(1, { error: "Выберите хотя бы один день звонков" })
    .transform((days) => [...new Set(days)].sort()),
  timeZone: z
    .string({ error: "Укажите часовой пояс" })
    .trim()
    .min(1, { error: "Укажите часовой пояс" })
    .max(64, { error: "Неизвестный часовой пояс" }),
  /** Weekends, public holidays and the topic's days off: their own window; null (both) is the working days' one. */
  weekendFrom: optionalClock("Укажите начало времени звонков в выходные в формате ЧЧ:ММ (или оставьте пустым)"),
  weekendUntil: optionalClock("Укажите конец времени звонков в выходные в формате ЧЧ:ММ (или оставьте пустым)"),
  /** The topic's own days off (the client's local dates), which count as weekends. */
  daysOff: z
    .array(isoDateSchema, { error: DAY_OFF_ERROR })
    .max(DAYS_OFF_MAX, { error: `Не больше ${DAYS_OFF_MAX} выходных дней` })
    .optional()
    .transform((days) => [...new Set(days ?? [])].sort()),
});

/** The weekend window is both times or neither. */
export function weekendBoth(hours: { weekendFrom: string | null; weekendUntil: string | null }, ctx: z.RefinementCtx) {
  if ((hours.weekendFrom === null) !== (hours.weekendUntil === null)) {
    ctx.addIssue({ code: "custom", message: WEEKEND_BOTH_ERROR, path: [hours.weekendFrom === null ? "weekendFrom" : "weekendUntil"] });
  }
}

export const callingHoursSchema = callingHoursFields.superRefine(weekendBoth);

/**
 * Russia's 230-FZ (art. 7 part 3) allows calls from 08:00 to 22:00 on working days and from 09:00 to 20:00 on
 * weekends and public holidays, in the client's local time: the hours the 230-FZ preset gives a topic.
 */
export const LAW_230_HOURS = { from: "08:00", until: "22:00", weekendFrom: "09:00", weekendUntil: "20:00" } as const;

/** A window lies inside [from, until) of the law (an overnight or around-the-clock one never does). */
const inside = (from: string, until: string, lawFrom: string, lawUntil: string) => from < until && from >= lawFrom && until <= lawUntil;

/**
 * The hours a topic gets with the 230-FZ preset: the law's, except a window the admin already narrowed inside the
 * law's, which is kept (a centre may call less than the law allows, never more).
 */
export function law230Hours<H extends { from: string; until: string; weekendFrom: string | null; weekendUntil: string | null }>(hours: H): H {
  const weekday = inside(hours.from, hours.until, LAW_230_HOURS.from, LAW_230_HOURS.until)
    ? { from: hours.from, until: hours.until }
    : { from: LAW_230_HOURS.from, until: LAW_230_HOURS.until };
  const [wFrom, wUntil] = hours.weekendFrom && hours.weekendUntil ? [hours.weekendFrom, hours.weekendUntil] : [weekday.from, weekday.until];
  const weekend = inside(wFrom, wUntil, LAW_230_HOURS.weekendFrom, LAW_230_HOURS.weekendUntil)
    ? { weekendFrom: wFrom, weekendUntil: wUntil }
    : { weekendFrom: LAW_230_HOURS.weekendFrom, weekendUntil: LAW_230_HOURS.weekendUntil };
  return { ...hours, ...weekday, ...weekend };
}

// ---- Retry rules (issue 29, decision 057) ----

/** A year: a longer delay is a typo, not a plan. */
export const RETRY_MAX_DELAY_MINUTES = 365 * 24 * 60;
export const RETRY_MAX_ATTEMPTS = 100;

export const RETRY_DELAY_ERROR = "«Вернуть в работу через»: укажите время больше нуля (целое число минут)";
export const RETRY_DELAY_TOO_LONG = "«Вернуть в работу через»: не больше 365 дней";
export const RETRY_ATTEMPTS_ERROR = `«Не более»: укажите число попыток от 1 до ${RETRY_MAX_ATTEMPTS}`;
export const RETRY_FINAL_MISSING = "Выберите итоговый статус правила повтора";
export const RETRY_COUNTED_BY_ERROR = "Попытки считаются по нажатиям статусов (presses) или по звонкам (calls)";

export const retryRuleSchema = z.object(
  {
    status: z
      .number({ error: "Выберите статус правила повтора" })
      .int({ error: "Выберите статус правила повтора" })
      .positive({ error: "Выберите статус правила повтора" })
      .max(2147483647, { error: "Выберите статус правила повтора" }),
    delayMinutes: z
      .number({ error: RETRY_DELAY_ERROR })
      .int({ error: RETRY_DELAY_ERROR })
      .min(1, { error: RETRY_DELAY_ERROR })
      .max(RETRY_MAX_DELAY_MINUTES, { error: RETRY_DELAY_TOO_LONG }),
    maxAttempts: z
      .number({ error: RETRY_ATTEMPTS_ERROR })
      .int({ error: RETRY_ATTEMPTS_ERROR })
      .min(1, { error: RETRY_ATTEMPTS_ERROR })
      .max(RETRY_MAX_ATTEMPTS, { error: RETRY_ATTEMPTS_ERROR }),
    finalStatus: z
      .number({ error: RETRY_FINAL_MISSING })
      .int({ error: RETRY_FINAL_MISSING })
      .positive({ error: RETRY_FINAL_MISSING })
      .max(2147483647, { error: RETRY_FINAL_MISSING }),
  },
  { error: "Неверное правило повтора" },
);
export type RetryRuleInput = z.infer<typeof retryRuleSchema>;

export const retryRulesSchema = z
  .array(retryRuleSchema, { error: "Неверный список правил повтора" })
  .max(200, { error: "Слишком много правил повтора" });
export const retryCountedBySchema = z.enum(RETRY_COUNTED_BY, { error: RETRY_COUNTED_BY_ERROR });

// ---- Contact limits per client (issue 43, decision 075) ----

/** Which calls a topic's contact limits count: every attempt that left for the carrier, or only answered calls. */
export const CONTACT_LIMIT_COUNTS = ["attempts", "connected"] as const;
export type ContactLimitCounts = (typeof CONTACT_LIMIT_COUNTS)[number];
export const CONTACT_LIMIT_MAX = 1000;

const limitOf = (period: string) => {
  const message = `Звонков клиенту ${period}: целое число от 1 до ${CONTACT_LIMIT_MAX} (пусто: без ограничения)`;
  return z
    .union([z.null(), z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(CONTACT_LIMIT_MAX, { error: message })], {
      error: message,
    })
    .default(null);
};

export const contactLimitsSchema = z.object(
  {
    day: limitOf("в день"),
    week: limitOf("в неделю"),
    month: limitOf("в месяц"),
    counts: z.enum(CONTACT_LIMIT_COUNTS, { error: "Считать звонки: все попытки (attempts) или только состоявшиеся разговоры (connected)" }),
  },
  { error: "Ограничение звонков: { day, week, month, counts }" },
);
export type ContactLimits = z.output<typeof contactLimitsSchema>;

/** No limits: what a new topic has. */
export const NO_CONTACT_LIMITS: ContactLimits = { day: null, week: null, month: null, counts: "connected" };

/**
 * Russia's 230-FZ for debt collection (art. 7): at most 1 interaction a day, 2 a week, 8 a month, counted as
 * conversations that took place (an unanswered dial is no interaction).
 */
export const LAW_230_LIMITS: ContactLimits = { day: 1, week: 2, month: 8, counts: "connected" };

/** The limits are 230-FZ's own numbers (the form offers them as its one choice). */
export const isLaw230Limits = (limits: ContactLimits) =>
  limits.day === LAW_230_LIMITS.day && limits.week === LAW_230_LIMITS.week && limits.month === LAW_230_LIMITS.month && limits.counts === "connected";

// ---- The 230-FZ preset (issue 43): one rule for the topic form and the API ----

/** The presets a topic may follow: `law230`, Russia's 230-FZ for debt collection. */
export const TOPIC_PRESETS = ["law230"] as const;
export type TopicPreset = (typeof TOPIC_PRESETS)[number];

export const LAW_230_LIMITS_CONFLICT =
  "С набором правил 230-ФЗ ограничение звонков задаёт закон (1 разговор в день, 2 в неделю, 8 в месяц): не указывайте contactLimits или укажите эти числа";

type HoursLike = { from: string; until: string; weekendFrom: string | null; weekendUntil: string | null };

/**
 * What the 230-FZ preset makes of a topic whose calling window is `hours`: the law's contact limits, and the law's
 * hours (a window the admin narrowed inside them kept). The form's choice and the API's `preset` both come here.
 */
export function law230Topic<H extends HoursLike>(hours: H): { contactLimits: ContactLimits; callingHours: H } {
  return { contactLimits: LAW_230_LIMITS, callingHours: law230Hours(hours) };
}

/**
 * The preset a topic follows (what the list, the form and GET /filters show), or null: 230-FZ's when its limits are
 * the law's numbers and its hours lie within the law's on working days and on weekends alike.
 */
export function topicPresetOf(topic: { contactLimits: ContactLimits; callingHours: HoursLike }): TopicPreset | null {
  if (!isLaw230Limits(topic.contactLimits)) return null;
  const law = law230Hours(topic.callingHours);
  const hours = topic.callingHours;
  const same =
    law.from === hours.from && law.until === hours.until && law.weekendFrom === hours.weekendFrom && law.weekendUntil === hours.weekendUntil;
  return same ? "law230" : null;
}

// ---- The topic ----

const idList = (message: string) =>
  z
    .array(idSchema, { error: message })
    .min(1, { error: message })
    .transform((ids) => [...new Set(ids)]);

/** Fewer than 3 seconds leaves no time to read the card or press «Пропустить» (issue 29). */
export const AUTODIAL_MIN_SECONDS = 3;
export const AUTODIAL_MAX_SECONDS = 120;
const AUTODIAL_ERROR = `Автонабор: целое число секунд от ${AUTODIAL_MIN_SECONDS} до ${AUTODIAL_MAX_SECONDS}`;

const RETENTION_ERROR = "Срок хранения записей: целое число дней от 1 до 3650 (пусто: хранить всегда)";

/**
 * The topic's trunk number: one field, two uses (decision 083): the number calls in reach and the one the topic's
 * calls out show. Its words, once: the form's fieldset and label, and the beginning of every message about it.
 */
export const INBOUND_NUMBER_WORDS = {
  legend: "Входящие и исходящие звонки",
  label: "Номер линии: входящие и номер, который видят клиенты",
  inMessages: "Номер линии (входящие и номер, который видят клиенты)",
} as const;

export const INBOUND_NUMBER_TEXT = `${INBOUND_NUMBER_WORDS.inMessages}: укажите номер телефона (не длиннее 32 символов) или оставьте поле пустым`;

/** SPEC §5 filter save, checked in this order: name, a manager, a base, a status. Scripts and template optional. */
export const filterInputSchema = z.object({
  name: requiredText("Введите имя фильтра", 200).describe("Имя фильтра"),
  managers: idList("Виберите 1 менеджера").describe("id менеджеров"),
  databases: idList("Виберите 1 базу данных").describe("id баз"),
  statuses: idList("Виберите 1 статус").describe("id статусов"),
  scripts: z
    .array(idSchema, { error: "Неверный список скриптов" })
    .optional()
    .default([])
    .transform((ids) => [...new Set(ids)])
    .describe("id скриптов"),
  template: z
    .union([idSchema, z.literal(0), z.literal(""), z.null()], { error: "Неверный шаблон" })
    .optional()
    .transform((v) => (v ? Number(v) : null))
    .describe("id шаблона или null"),
  /** When its clients may be called, in their own local time (issue 29). Absent: 09:00-21:00 on a new topic, kept on an edit. */
  callingHours: callingHoursSchema
    .optional()
    .describe(
      'Время звонков: { from, until, days, timeZone, weekendFrom, weekendUntil (время в выходные и праздники; null — как в будни), daysOff (свои выходные дни тематики, ["2027-01-05"]) }; без него — 09:00–21:00 у новой, без изменений у старой',
    ),
  // Recordings (issue 28); left out: unchanged on an update, off on a new topic.
  recordCalls: z
    .boolean({ error: "Неверное значение «Записывать разговоры»" })
    .optional()
    .describe("true: записывать разговоры (не указано: без изменений)"),
  recordingRetentionDays: z
    .union(
      [
        z.literal(""),
        z.null(),
        z.number({ error: RETENTION_ERROR }).int({ error: RETENTION_ERROR }).min(1, { error: RETENTION_ERROR }).max(3650, { error: RETENTION_ERROR }),
      ],
      { error: RETENTION_ERROR },
    )
    .optional()
    .transform((v) => (v === "" ? null : v))
    .describe("дней хранить записи, 1-3650; null: всегда"),
  managersHearRecordings: z
    .boolean({ error: "Неверное значение «Менеджер слушает свои записи»" })
    .optional()
    .describe("true: менеджер слушает записи своих разговоров"),
  /** Retry rules per status (issue 29, decision 057); left out: none on a new topic, kept on an edit. */
  retryRules: retryRulesSchema
    .optional()
    .describe("Правила повтора: [{ status, delayMinutes, maxAttempts, finalStatus }] (id статусов; не указано: нет у новой, без изменений у старой)"),
  /** What the rules count as attempts; left out: presses on a new topic, unchanged on an edit. */
  retryCountedBy: retryCountedBySchema
    .optional()
    .describe("presses: попытки по нажатиям статусов; calls: по звонкам в журнале (не указано: без изменений)"),
  /** A preset (issue 43): `law230` sets 230-FZ's limits and brings the hours within the law's (law230Topic). */
  preset: z
    .enum(TOPIC_PRESETS, { error: "Неизвестный набор правил: есть только law230 (230-ФЗ)" })
    .optional()
    .describe(
      "law230: правила 230-ФЗ одним выбором — не больше 1 разговора с клиентом в день, 2 в неделю, 8 в месяц (недозвоны не считаются) и звонки с 08:00 до 22:00 в будни, с 09:00 до 20:00 в выходные и праздники по времени клиента (более узкое время тематики сохраняется); не указано: ограничения и время как переданы",
    ),
  /** Contact limits per client (issue 43); left out: none on a new topic, unchanged on an edit. */
  contactLimits: contactLimitsSchema.optional().meta({
    description:
      "Ограничение звонков клиенту: { day, week, month (число или null: без ограничения), counts: attempts — все попытки, connected — только разговоры } (не указано: без изменений)",
    // With the preset of the example body, the law's numbers (other numbers beside it are refused).
    examples: [LAW_230_LIMITS],
  }),
  /** «Только с согласием» (issue 43); left out: off on a new topic, unchanged on an edit. */
  requiresConsent: z
    .boolean({ error: "Неверное значение «Звонить только клиентам с согласием»" })
    .optional()
    .describe("true: звонить только клиентам с согласием на звонки (столбец «Согласие на звонки» при импорте; не указано: без изменений)"),
  /** «Автонабор через N с» (decision 058): seconds, or null for off; left out: unchanged, off on a new topic. */
  autodialSeconds: z
    .union(
      [
        z.null(),
        z
          .number({ error: AUTODIAL_ERROR })
          .int({ error: AUTODIAL_ERROR })
          .min(AUTODIAL_MIN_SECONDS, { error: AUTODIAL_ERROR })
          .max(AUTODIAL_MAX_SECONDS, { error: AUTODIAL_ERROR }),
      ],
      { error: AUTODIAL_ERROR },
    )
    .optional()
    .describe("автонабор через N секунд, 3-120; null: выключен (не указано: без изменений, у новой выключен)"),
  /**
   * The trunk number an unknown caller dials to reach this topic (issue 42); "" none. Core checks it is a valid
   * number of the region (PHONE_REGION) and no other active topic's; left out: unchanged, none on a new topic.
   */
  inboundNumber: z
    .string({ error: INBOUND_NUMBER_TEXT })
    .trim()
    .max(32, { error: INBOUND_NUMBER_TEXT })
    .optional()
    .describe(
      `${INBOUND_NUMBER_WORDS.inMessages}: звонок с незнакомого номера на него идёт менеджерам этой тематики, и его видят клиенты, которым звонят её менеджеры; «» — нет, общий номер линии TRUNK_CALLER_ID (не указано: без изменений). Действительный номер региона (PHONE_REGION) или с «+» и кодом страны; возвращается как +380441230000`,
    ),
});
export type FilterInput = z.infer<typeof filterInputSchema>;
