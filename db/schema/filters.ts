import { sql } from "drizzle-orm";
import { boolean, check, date, index, integer, pgTable, primaryKey, serial, text, time } from "drizzle-orm/pg-core";
import { BUSINESS_TIME_ZONE } from "../../common/business-time";
import { CONTACT_LIMIT_COUNTS, RETRY_COUNTED_BY, type RetryCountedBy } from "../../common/schemas/filters";
import { databases } from "./bases";
import { timestamps, users } from "./users";
import { scripts, statuses, templates } from "./work";

/** What a topic's retry rules count as attempts (declared in common/, where the topic form's schema reads it). */
export { RETRY_COUNTED_BY, type RetryCountedBy };

/** A topic: a named work set tying bases, managers, statuses, scripts and one template together. */
export const filters = pgTable(
  "filters",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    isActive: boolean("is_active").notNull().default(true),
    templateId: integer("template_id").references(() => templates.id, { onDelete: "set null" }),
    /**
     * The calling window, in the client's own local time (issue 29, decision 050): a contact is handed out and
     * called only from `callsFrom` until `callsUntil` (an overnight window when from > until), on the ISO days of
     * the week in `callDays` (1 Monday … 7 Sunday). The client's zone is contacts.tz; `timeZone` stands in for a
     * number whose zone is unknown.
     */
    callsFrom: time("calls_from").notNull().default("09:00"),
    callsUntil: time("calls_until").notNull().default("21:00"),
    callDays: integer("call_days")
      .array()
      .notNull()
      .default(sql`'{1,2,3,4,5,6,7}'::int[]`),
    timeZone: text("time_zone").notNull().default(BUSINESS_TIME_ZONE),
    /**
     * The window on weekends (issue 43, decision 076): Saturdays, Sundays, the public holidays of the client's
     * country (public_holidays) and the topic's own `daysOff` (the client's local dates); null (both): the same as
     * on working days.
     */
    weekendFrom: time("weekend_from"),
    weekendUntil: time("weekend_until"),
    daysOff: date("days_off", { mode: "string" })
      .array()
      .notNull()
      .default(sql`'{}'::date[]`),
    /** «Записывать разговоры»: the proxy records this topic's calls through the trunk (issue 28, decision 054). */
    recordCalls: boolean("record_calls").notNull().default(false),
    /** Recordings older than this many days are deleted by the sweeper; null keeps them. */
    recordingRetentionDays: integer("recording_retention_days"),
    /** A manager may play the recordings of his own calls in this topic (admins play any). */
    managersHearRecordings: boolean("managers_hear_recordings").notNull().default(false),
    /**
     * What a retry rule counts as an attempt on a contact (issue 29, decision 057): its status presses, or the
     * calls to it in the call log.
     */
    retryCountedBy: text("retry_counted_by", { enum: RETRY_COUNTED_BY }).notNull().default("presses"),
    /**
     * «Автонабор через N с» (issue 29, decision 058): the lead panel dials the next lead by itself this many seconds
     * after it is shown; null (the default) is off.
     */
    autodialSeconds: integer("autodial_seconds"),
    /**
     * Contact limits per client (issue 43, decision 075): at most this many calls to one client in his local day,
     * week (Monday to Sunday) and month; null: no limit of that length. `contactLimitCounts` says which calls count:
     * every attempt that left for the carrier, or only the answered ones.
     */
    contactLimitDay: integer("contact_limit_day"),
    contactLimitWeek: integer("contact_limit_week"),
    contactLimitMonth: integer("contact_limit_month"),
    contactLimitCounts: text("contact_limit_counts", { enum: CONTACT_LIMIT_COUNTS }).notNull().default("connected"),
    /** «Только с согласием» (issue 43): the topic calls only clients with contacts.consent_at (38-FZ art. 18). */
    requiresConsent: boolean("requires_consent").notNull().default(false),
    /**
     * One of the trunk's numbers (digits, as Kamailio sees the dialled number), or "" (issue 42): an unknown caller
     * who dials it rings a free manager of this topic, and his missed call becomes a contact of this topic's first base.
     */
    inboundNumber: text("inbound_number").notNull().default(""),
    ...timestamps,
  },
  (t) => [
    index("filters_template_id_idx").on(t.templateId),
    check("filters_weekend_both", sql`(${t.weekendFrom} is null) = (${t.weekendUntil} is null)`),
    check("filters_contact_limits_positive", sql`${t.contactLimitDay} >= 1 and ${t.contactLimitWeek} >= 1 and ${t.contactLimitMonth} >= 1`),
  ],
);

/**
 * The public holidays of each zone's country for the years around now (issue 43, decision 076), filled by the app
 * from the `date-holidays` data set (server/core/filters/holidays.ts): a client's holiday counts as a weekend in
 * the calling hours, which the claim reads in its one statement by his zone and local date.
 */
export const publicHolidays = pgTable(
  "public_holidays",
  {
    zone: text("zone").notNull(),
    day: date("day", { mode: "string" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.zone, t.day] })],
);

const filterId = () =>
  integer("filter_id")
    .notNull()
    .references(() => filters.id, { onDelete: "cascade" });

export const filterManagers = pgTable(
  "filter_managers",
  {
    filterId: filterId(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.filterId, t.userId] }), index("filter_managers_user_id_idx").on(t.userId)],
);

export const filterDatabases = pgTable(
  "filter_databases",
  {
    filterId: filterId(),
    databaseId: integer("database_id")
      .notNull()
      .references(() => databases.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.filterId, t.databaseId] }), index("filter_databases_database_id_idx").on(t.databaseId)],
);

/** The statuses whose contacts this topic works again. */
export const filterStatuses = pgTable(
  "filter_statuses",
  {
    filterId: filterId(),
    statusId: integer("status_id")
      .notNull()
      .references(() => statuses.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.filterId, t.statusId] }), index("filter_statuses_status_id_idx").on(t.statusId)],
);

/**
 * A retry rule of a topic (issue 29, decision 057): a contact whose status is `statusId` (one the topic works
 * again) comes back to the pool `delayMinutes` after that status was set, never before; the press that makes its
 * `maxAttempts`-th attempt gives it `finalStatusId` instead, which the topic does not work again.
 */
export const filterRetryRules = pgTable(
  "filter_retry_rules",
  {
    filterId: filterId(),
    statusId: integer("status_id")
      .notNull()
      .references(() => statuses.id, { onDelete: "cascade" }),
    delayMinutes: integer("delay_minutes").notNull(),
    maxAttempts: integer("max_attempts").notNull(),
    finalStatusId: integer("final_status_id")
      .notNull()
      .references(() => statuses.id, { onDelete: "cascade" }),
  },
  (t) => [
    primaryKey({ columns: [t.filterId, t.statusId] }),
    index("filter_retry_rules_status_id_idx").on(t.statusId),
    index("filter_retry_rules_final_status_id_idx").on(t.finalStatusId),
    check("filter_retry_rules_delay_positive", sql`${t.delayMinutes} > 0`),
    check("filter_retry_rules_attempts_positive", sql`${t.maxAttempts} >= 1`),
  ],
);

export const filterScripts = pgTable(
  "filter_scripts",
  {
    filterId: filterId(),
    scriptId: integer("script_id")
      .notNull()
      .references(() => scripts.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.filterId, t.scriptId] }), index("filter_scripts_script_id_idx").on(t.scriptId)],
);

export type Filter = typeof filters.$inferSelect;
