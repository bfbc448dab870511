import { and, asc, eq, inArray, isNotNull, notInArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import {
  calls,
  contacts,
  databases,
  filterDatabases,
  filterManagers,
  filterScripts,
  filterStatuses,
  filters,
  scripts,
  statuses,
  templates,
  users,
} from "../../../db/schema";
import { type Actor, requireAdmin, requireSelfOrAdmin } from "../actor";
import { baseVisible } from "../bases/visible";
import { badRequest, forbidden, notFound } from "../errors";
import { idSchema, parseInput } from "../validation";
import { mappedZones } from "../bases/phone-zone";
import { sortStatuses } from "../statuses/order";
import { checkRetryRules, loadRetryRules, type PresentedRetryRule, type RetryCountedBy, rulesToSave, writeRetryRules } from "./retry-rules";
import { type CallingHours, DEFAULT_CALLING_HOURS, hoursColumnsOf, presentHours, requireKnownZone } from "./calling-hours";
import {
  type ContactLimits,
  type FilterInput,
  filterInputSchema,
  isLaw230Limits,
  LAW_230_LIMITS_CONFLICT,
  law230Topic,
  topicPresetOf,
  type TopicPreset,
} from "../../../common/schemas/filters";
import { inboundNumberKey, presentInboundNumber, requireInboundNumberFree } from "./inbound-number";

export const filterNotFound = () => notFound("Тематика не найдена", "filter_not_found");
export const filterUnavailable = () => forbidden("Эта тематика вам недоступна", "filter_unavailable");
export const templateInactive = (name: string) =>
  badRequest(
    `Шаблон «${name}» деактивирован: менеджеры не увидят его карточку. Выберите активный шаблон или включите этот на странице «Настройка шаблона»`,
    "template_inactive",
  );

// The input schema is in common/ (the topic form checks it in the browser too); core re-exports it.
export { filterInputSchema };
export type { FilterInput };

/** SPEC §3 Filter, plus the ids the edit form needs. */
export interface PresentedFilter {
  id: number;
  name: string;
  isActive: boolean;
  managers: Array<{ id: number; name: string }>;
  scripts: Array<{ id: number; name: string }>;
  databases: Array<{ id: number; name: string }>;
  statuses: Array<{ id: number; text: string }>;
  template: { id: number; name: string } | null;
  totalManagers: number;
  callingHours: Required<CallingHours>;

  /** Recordings of the topic's calls: on or off, days kept (null: always), managers hear their own. */
  recordCalls: boolean;
  recordingRetentionDays: number | null;
  managersHearRecordings: boolean;
  /** Retry rules per status (decision 057), and what they count as attempts. */
  retryRules: PresentedRetryRule[];
  retryCountedBy: RetryCountedBy;
  /** «Автонабор через N с»: seconds, null when off. */
  autodialSeconds: number | null;
  /** Contact limits per client (issue 43, decision 075); all null: none. */
  contactLimits: ContactLimits;
  /** The preset the topic follows (its limits and hours are 230-FZ's: topicPresetOf), or null. */
  preset: TopicPreset | null;
  /** «Только с согласием» (issue 43): only clients whose base gave their consent to calls. */
  requiresConsent: boolean;
  /** The trunk number unknown callers dial to reach this topic (issue 42), "+380441230000", or "" none. */
  inboundNumber: string;
}

/** Filters with everything they list, in id order. */
async function loadFilters(db: Db, ids?: number[]): Promise<PresentedFilter[]> {
  if (ids && ids.length === 0) return [];
  const rows = await db
    .select({
      id: filters.id,
      name: filters.name,
      isActive: filters.isActive,
      recordCalls: filters.recordCalls,
      recordingRetentionDays: filters.recordingRetentionDays,
      managersHearRecordings: filters.managersHearRecordings,
      retryCountedBy: filters.retryCountedBy,
      autodialSeconds: filters.autodialSeconds,
      contactLimitDay: filters.contactLimitDay,
      contactLimitWeek: filters.contactLimitWeek,
      contactLimitMonth: filters.contactLimitMonth,
      contactLimitCounts: filters.contactLimitCounts,
      requiresConsent: filters.requiresConsent,
      inboundNumber: filters.inboundNumber,
      templateId: templates.id,
      templateName: templates.name,
      ...hoursColumnsOf(filters),
    })
    .from(filters)
    .leftJoin(templates, eq(templates.id, filters.templateId))
    .where(ids ? inArray(filters.id, ids) : undefined)
    .orderBy(asc(filters.id));
  if (rows.length === 0) return [];
  const filterIds = rows.map((r) => r.id);

  const [managerRows, scriptRows, baseRows, statusRows, rules] = await Promise.all([
    db
      .select({ filterId: filterManagers.filterId, id: users.id, name: users.displayName, login: users.login })
      .from(filterManagers)
      .innerJoin(users, eq(users.id, filterManagers.userId))
      .where(inArray(filterManagers.filterId, filterIds))
      .orderBy(asc(users.login)),
    db
      .select({ filterId: filterScripts.filterId, id: scripts.id, name: scripts.name })
      .from(filterScripts)
      .innerJoin(scripts, eq(scripts.id, filterScripts.scriptId))
      .where(inArray(filterScripts.filterId, filterIds))
      .orderBy(asc(scripts.name)),
    db
      .select({ filterId: filterDatabases.filterId, id: databases.id, name: databases.name })
      .from(filterDatabases)
      .innerJoin(databases, and(eq(databases.id, filterDatabases.databaseId), baseVisible))
      .where(inArray(filterDatabases.filterId, filterIds))
      .orderBy(asc(databases.id)),
    db
      .select({
        filterId: filterStatuses.filterId,
        id: statuses.id,
        text: statuses.text,
        order: statuses.order,
        isTechnical: statuses.isTechnical,
        isReportStatus: statuses.isReportStatus,
      })
      .from(filterStatuses)
      .innerJoin(statuses, eq(statuses.id, filterStatuses.statusId))
      .where(inArray(filterStatuses.filterId, filterIds))
      .then(sortStatuses),
    loadRetryRules(db, filterIds),
  ]);

  const group = <T extends { filterId: number }>(list: T[], id: number) => list.filter((r) => r.filterId === id);
  return rows.map((row) => {
    const managers = group(managerRows, row.id).map((m) => ({ id: m.id, name: m.name || m.login }));
    const callingHours = presentHours(row);
    const contactLimits: ContactLimits = {
      day: row.contactLimitDay,
      week: row.contactLimitWeek,
      month: row.contactLimitMonth,
      counts: row.contactLimitCounts,
    };
    return {
      id: row.id,
      name: row.name,
      isActive: row.isActive,
      managers,
      scripts: group(scriptRows, row.id).map((s) => ({ id: s.id, name: s.name })),
      databases: group(baseRows, row.id).map((b) => ({ id: b.id, name: b.name })),
      statuses: group(statusRows, row.id).map((s) => ({ id: s.id, text: s.text })),
      template: row.templateId ? { id: row.templateId, name: row.templateName ?? "" } : null,
      totalManagers: managers.length,
      callingHours,
      recordCalls: row.recordCalls,
      recordingRetentionDays: row.recordingRetentionDays,
      managersHearRecordings: row.managersHearRecordings,
      retryRules: rules.get(row.id) ?? [],
      retryCountedBy: row.retryCountedBy,
      autodialSeconds: row.autodialSeconds,
      contactLimits,
      preset: topicPresetOf({ contactLimits, callingHours }),
      requiresConsent: row.requiresConsent,
      inboundNumber: presentInboundNumber(row.inboundNumber),
    };
  });
}

/** Admin: every filter. Manager: the active filters that list him (SPEC: the topics open to him). */
export async function listFilters(db: Db, actor: Actor): Promise<PresentedFilter[]> {
  if (actor.isAdmin) return loadFilters(db);
  return listOpenFilters(db, actor.id);
}

/** The active filters that list this user: what /getFilters offers and what he may work. */
export async function listOpenFilters(db: Db, userId: number): Promise<PresentedFilter[]> {
  const rows = await db
    .select({ id: filters.id })
    .from(filters)
    .innerJoin(filterManagers, eq(filterManagers.filterId, filters.id))
    .where(and(eq(filterManagers.userId, userId), eq(filters.isActive, true)));
  return loadFilters(
    db,
    rows.map((r) => r.id),
  );
}

export async function getFilter(db: Db, actor: Actor, rawId: unknown): Promise<PresentedFilter> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [filter] = await loadFilters(db, [id]);
  if (!filter) throw filterNotFound();
  return filter;
}

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/**
 * Every listed id must exist; otherwise a 400 naming what is missing. The template must be active (decision 034:
 * active means given to managers, so a deactivated one would leave the topic's managers without a card): a
 * deactivated template is refused unless it is the one the topic already has (`keptTemplateId`), which an edit
 * of its other fields keeps as it is.
 */
async function checkReferences(tx: Tx, input: FilterInput, keptTemplateId: number | null = null) {
  const missing = async (table: typeof users | typeof databases | typeof statuses | typeof scripts, ids: number[]) => {
    if (ids.length === 0) return false;
    // A base an import is still writing is refused like an unknown one (decision 046).
    const condition = table === databases ? and(inArray(table.id, ids), baseVisible) : inArray(table.id, ids);
    const found = await tx.select({ id: table.id }).from(table).where(condition);
    return found.length !== ids.length;
  };
  if (await missing(users, input.managers)) throw badRequest("Выбранный менеджер не найден", "manager_not_found");
  if (await missing(databases, input.databases)) throw badRequest("Выбранная база не найдена", "database_not_found");
  if (await missing(statuses, input.statuses)) throw badRequest("Выбранный статус не найден", "status_not_found");
  if (await missing(scripts, input.scripts)) throw badRequest("Выбранный скрипт не найден", "script_not_found");
  if (input.template) {
    const [template] = await tx
      .select({ id: templates.id, name: templates.name, isActive: templates.isActive })
      .from(templates)
      .where(eq(templates.id, input.template));
    if (!template) throw badRequest("Выбранный шаблон не найден", "template_not_found");
    if (!template.isActive && template.id !== keptTemplateId) throw templateInactive(template.name);
  }
  if (input.callingHours) await requireKnownZone(tx, input.callingHours.timeZone);
}

/** The calling window's columns, when the input has one. */
const hoursColumns = (hours: CallingHours | undefined) =>
  hours
    ? {
        callsFrom: hours.from,
        callsUntil: hours.until,
        callDays: hours.days,
        timeZone: hours.timeZone,
        weekendFrom: hours.weekendFrom ?? null,
        weekendUntil: hours.weekendUntil ?? null,
        daysOff: hours.daysOff ?? [],
      }
    : {};

async function writeLists(tx: Tx, filterId: number, input: FilterInput) {
  await tx.delete(filterManagers).where(eq(filterManagers.filterId, filterId));
  await tx.delete(filterDatabases).where(eq(filterDatabases.filterId, filterId));
  await tx.delete(filterStatuses).where(eq(filterStatuses.filterId, filterId));
  await tx.delete(filterScripts).where(eq(filterScripts.filterId, filterId));
  await tx.insert(filterManagers).values(input.managers.map((userId) => ({ filterId, userId })));
  await tx.insert(filterDatabases).values(input.databases.map((databaseId) => ({ filterId, databaseId })));
  await tx.insert(filterStatuses).values(input.statuses.map((statusId) => ({ filterId, statusId })));
  if (input.scripts.length > 0) {
    await tx.insert(filterScripts).values(input.scripts.map((scriptId) => ({ filterId, scriptId })));
  }
}

/**
 * Users whose chosen topic is this filter but who may no longer work it (filter gone, deactivated, or they were
 * taken off it) go back to topic choice, and let go of the lead they held.
 */
async function releaseUsersOf(tx: Tx, filterId: number, keepUserIds: number[] | null) {
  const conditions = [eq(users.gettingFilter, filterId)];
  if (keepUserIds && keepUserIds.length > 0) conditions.push(notInArray(users.id, keepUserIds));
  const released = await tx
    .update(users)
    .set({ gettingFilter: 0, updatedAt: new Date() })
    .where(and(...conditions))
    .returning({ id: users.id });
  if (released.length === 0) return;
  await tx
    .update(contacts)
    .set({ heldBy: null, heldUntil: null })
    .where(
      and(
        sql`${contacts.heldBy} is not null`,
        inArray(
          contacts.heldBy,
          released.map((u) => u.id),
        ),
      ),
    );
}

/**
 * The recording, retry-count, autodial, contact-limit settings and the trunk number (its digits, `inboundKey`) the
 * input names (an absent one is not changed).
 */
function optionalSettings(input: FilterInput, inboundKey: string | undefined) {
  return Object.fromEntries(
    Object.entries({
      inboundNumber: inboundKey,
      recordCalls: input.recordCalls,
      recordingRetentionDays: input.recordingRetentionDays,
      managersHearRecordings: input.managersHearRecordings,
      retryCountedBy: input.retryCountedBy,
      autodialSeconds: input.autodialSeconds,
      requiresConsent: input.requiresConsent,
      ...(input.contactLimits
        ? {
            contactLimitDay: input.contactLimits.day,
            contactLimitWeek: input.contactLimits.week,
            contactLimitMonth: input.contactLimits.month,
            contactLimitCounts: input.contactLimits.counts,
          }
        : {}),
    }).filter(([, value]) => value !== undefined),
  );
}

/**
 * The input with its preset applied (the topic form's 230-FZ choice and the API's `preset: "law230"` alike): the
 * law's limits, and the law's hours over the hours sent, or over the topic's own (`hoursNow`: the stored ones on an
 * edit without hours, the default on a new topic). Other limits sent beside the preset are refused.
 */
function presetApplied(input: FilterInput, hoursNow: Required<CallingHours>): FilterInput {
  if (input.preset !== "law230") return input;
  if (input.contactLimits && !isLaw230Limits(input.contactLimits)) throw badRequest(LAW_230_LIMITS_CONFLICT, "preset_conflict");
  return { ...input, ...law230Topic(input.callingHours ?? hoursNow) };
}

/** What a topic's save needs to know of the installation: the region its numbers are read in (PHONE_REGION). */
export interface FilterSaveOptions {
  phoneRegion: string;
}

/** The trunk number's digits the input names (undefined: not named), refused when it is no valid number. */
const inboundKeyOf = (input: FilterInput, options: FilterSaveOptions) =>
  input.inboundNumber === undefined ? undefined : inboundNumberKey(input.inboundNumber, options.phoneRegion);

export async function createFilter(db: Db, actor: Actor, rawInput: unknown, options: FilterSaveOptions): Promise<PresentedFilter> {
  requireAdmin(actor);
  const input = presetApplied(parseInput(filterInputSchema, rawInput), {
    ...DEFAULT_CALLING_HOURS,
    weekendFrom: DEFAULT_CALLING_HOURS.weekendFrom ?? null,
    weekendUntil: DEFAULT_CALLING_HOURS.weekendUntil ?? null,
    daysOff: DEFAULT_CALLING_HOURS.daysOff ?? [],
  });
  const inboundKey = inboundKeyOf(input, options);
  const id = await db.transaction(async (tx) => {
    await checkReferences(tx, input);
    await requireInboundNumberFree(tx, inboundKey ?? "", null);
    const rules = await rulesToSave(tx, null, input.retryRules, input.statuses);
    await checkRetryRules(tx, rules, input.statuses);
    const [row] = await tx
      .insert(filters)
      .values({
        name: input.name,
        templateId: input.template,
        isActive: true,
        ...hoursColumns(input.callingHours),
        ...optionalSettings(input, inboundKey),
      })
      .returning({ id: filters.id });
    await writeLists(tx, row.id, input);
    await writeRetryRules(tx, row.id, rules);
    return row.id;
  });
  const [filter] = await loadFilters(db, [id]);
  return filter;
}

export async function updateFilter(db: Db, actor: Actor, rawId: unknown, rawInput: unknown, options: FilterSaveOptions): Promise<PresentedFilter> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const parsed = parseInput(filterInputSchema, rawInput);
  const inboundKey = inboundKeyOf(parsed, options);
  await db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: filters.id, templateId: filters.templateId, isActive: filters.isActive, ...hoursColumnsOf(filters) })
      .from(filters)
      .where(eq(filters.id, id))
      .for("update");
    if (!existing) throw filterNotFound();
    const input = presetApplied(parsed, presentHours(existing));
    await checkReferences(tx, input, existing.templateId);
    if (existing.isActive) await requireInboundNumberFree(tx, inboundKey ?? "", id);
    const rules = await rulesToSave(tx, id, input.retryRules, input.statuses);
    await checkRetryRules(tx, rules, input.statuses);
    await tx
      .update(filters)
      .set({
        name: input.name,
        templateId: input.template,
        ...hoursColumns(input.callingHours),
        ...optionalSettings(input, inboundKey),
        updatedAt: new Date(),
      })
      .where(eq(filters.id, id));
    await writeLists(tx, id, input);
    await writeRetryRules(tx, id, rules);
    await releaseUsersOf(tx, id, input.managers);
  });
  const [filter] = await loadFilters(db, [id]);
  return filter;
}

export async function deleteFilter(db: Db, actor: Actor, rawId: unknown) {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  await db.transaction(async (tx) => {
    // Its calls keep its recording retention, so their recordings still expire once the topic is gone (issue 39).
    await tx
      .update(calls)
      .set({ recordingRetentionDays: sql`(select f.recording_retention_days from ${filters} f where f.id = ${id})` })
      .where(and(eq(calls.filterId, id), isNotNull(calls.recording)));
    const [deleted] = await tx.delete(filters).where(eq(filters.id, id)).returning({ id: filters.id });
    if (!deleted) throw filterNotFound();
    await releaseUsersOf(tx, id, null);
  });
  return { success: true, message: "Тематика удалена" };
}

/**
 * Flips Активирован / Деактивирован. Managers working a deactivated topic go back to topic choice. A topic whose
 * trunk number another active topic took meanwhile is not activated (409).
 */
export async function toggleFilterActive(db: Db, actor: Actor, rawId: unknown): Promise<PresentedFilter> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  await db.transaction(async (tx) => {
    const [row] = await tx
      .update(filters)
      .set({ isActive: sql`not ${filters.isActive}`, updatedAt: new Date() })
      .where(eq(filters.id, id))
      .returning({ isActive: filters.isActive, inboundNumber: filters.inboundNumber });
    if (!row) throw filterNotFound();
    if (row.isActive) await requireInboundNumberFree(tx, row.inboundNumber, id);
    if (!row.isActive) await releaseUsersOf(tx, id, null);
  });
  const [filter] = await loadFilters(db, [id]);
  return filter;
}

/**
 * The filter a user may work now: it exists, is active and lists him. Throws otherwise.
 * Used by topic choice and by every lead call.
 */
export async function requireOpenFilter(db: Db | Tx, filterId: number, userId: number) {
  const [row] = await db
    .select({ id: filters.id, isActive: filters.isActive, templateId: filters.templateId, listed: filterManagers.userId })
    .from(filters)
    .leftJoin(filterManagers, and(eq(filterManagers.filterId, filters.id), eq(filterManagers.userId, userId)))
    .where(eq(filters.id, filterId));
  if (!row) throw filterNotFound();
  if (!row.isActive || row.listed == null) throw filterUnavailable();
  return { id: row.id, templateId: row.templateId };
}

export const chooseFilterSchema = z.object({
  filterId: idSchema,
  userId: idSchema,
  login: z.string({ error: "Укажите логин" }).trim().min(1, { error: "Укажите логин" }).max(100),
});

/**
 * Topic choice (SPEC POST /filters/{filterId}/{userId}/{login}): stores the filter as the user's gettingFilter.
 * A manager chooses only for himself and only a topic open to him. A lead held from an earlier topic is let go.
 */
export async function chooseFilter(db: Db, actor: Actor, rawInput: unknown) {
  const input = parseInput(chooseFilterSchema, rawInput);
  requireSelfOrAdmin(actor, input.userId);
  return db.transaction(async (tx) => {
    const [user] = await tx
      .select({ id: users.id, login: users.login, gettingFilter: users.gettingFilter })
      .from(users)
      .where(eq(users.id, input.userId));
    if (!user || user.login !== input.login) throw notFound("Пользователь не найден", "user_not_found");
    await requireOpenFilter(tx, input.filterId, user.id);
    if (user.gettingFilter === input.filterId) return { success: true, message: "Тематика выбрана", gettingFilter: input.filterId };
    await tx.update(users).set({ gettingFilter: input.filterId, updatedAt: new Date() }).where(eq(users.id, user.id));
    await tx.update(contacts).set({ heldBy: null, heldUntil: null }).where(eq(contacts.heldBy, user.id));
    return { success: true, message: "Тематика выбрана", gettingFilter: input.filterId };
  });
}

/**
 * Choices for the filter form: managers, bases, statuses, scripts, templates (with isActive: the form offers the
 * active ones, and a deactivated one only when the topic already has it).
 */
export async function filterFormOptions(db: Db, actor: Actor) {
  requireAdmin(actor);
  const [managerRows, baseRows, statusRows, scriptRows, templateRows] = await Promise.all([
    db.select({ id: users.id, login: users.login, displayName: users.displayName }).from(users).orderBy(asc(users.login)),
    db.select({ id: databases.id, name: databases.name }).from(databases).where(baseVisible).orderBy(asc(databases.id)),
    db
      .select({
        id: statuses.id,
        text: statuses.text,
        order: statuses.order,
        isHidden: statuses.isHidden,
        isTechnical: statuses.isTechnical,
        isReportStatus: statuses.isReportStatus,
        isDoNotCall: statuses.isDoNotCall,
      })
      .from(statuses)
      .then(sortStatuses),
    db.select({ id: scripts.id, name: scripts.name }).from(scripts).orderBy(asc(scripts.name)),
    db.select({ id: templates.id, name: templates.name, isActive: templates.isActive }).from(templates).orderBy(asc(templates.name)),
  ]);
  return {
    managers: managerRows.map((m) => ({ id: m.id, name: m.displayName ? `${m.displayName} (${m.login})` : m.login })),
    databases: baseRows,
    // Issue 41: a report's or a do-not-call client given out again is rarely meant: «Выбрать все» leaves them out
    // (`apart` says why), and the admin ticks them himself when he means it.
    statuses: statusRows.map((s) => ({
      id: s.id,
      name: s.text,
      apart: s.isDoNotCall ? ("не звонить" as const) : s.isReportStatus ? ("заявка" as const) : null,
    })),
    scripts: scriptRows,
    templates: templateRows,
    // The calling window's zone: the ones libphonenumber maps numbers to (all known to the database, a test checks).
    timeZones: zoneChoices([DEFAULT_CALLING_HOURS.timeZone, ...mappedZones()]),
    defaultHours: DEFAULT_CALLING_HOURS,
  };
}

/**
 * Zones as the topic form offers them: the IANA name (what the admin recognises and the database stores) with its
 * offset now and its Russian name from the runtime's ICU («UTC+3 · Europe/Moscow · Москва, стандартное время»),
 * sorted by offset, then by name.
 */
export function zoneChoices(zones: string[], at = new Date()): Array<{ id: string; label: string }> {
  const part = (zone: string, style: "shortOffset" | "long") =>
    new Intl.DateTimeFormat("ru", { timeZone: zone, timeZoneName: style }).formatToParts(at).find((p) => p.type === "timeZoneName")?.value ?? "";
  const minutes = (offset: string) => {
    const m = /GMT([+-])(\d+)(?::(\d+))?/.exec(offset);
    return m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0)) : 0;
  };
  return (
    [...new Set(zones)]
      .map((id) => ({ id, offset: part(id, "shortOffset"), name: part(id, "long") }))
      .sort((a, b) => minutes(a.offset) - minutes(b.offset) || a.id.localeCompare(b.id))
      // «UTC+3», the way Russian texts write an offset (ICU's Russian short offset says GMT).
      // Where ICU has no Russian name, its long name is the offset again («GMT+04:00»): left out.
      .map(({ id, offset, name }) => ({ id, label: [offset.replace(/^GMT/, "UTC"), id, /^GMT/.test(name) ? "" : name].filter(Boolean).join(" · ") }))
  );
}
