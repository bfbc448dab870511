import { type SQL, sql } from "drizzle-orm";
import { onBreak } from "../breaks/breaks";
import { mayBeCalled } from "../dnc/dnc";
import { type HoursSql, clientInHours, withinCallingHours } from "../filters/calling-hours";
import { consentAllows } from "../filters/consent";
import { underContactLimits } from "../filters/contact-limits";
import { governedByRule } from "./retry";

/**
 * The claim of a lead turn, tier by tier (DESIGN §4, decisions 007, 012, 035). Each tier is a subquery that picks
 * at most one contact id and locks it (`FOR UPDATE SKIP LOCKED`, so two managers never pick one contact, on one
 * instance or several). The turn puts them in one `COALESCE` in this order — a tier runs only when the ones before
 * found nothing (PostgreSQL evaluates the init plans lazily) — so the whole turn stays one statement:
 *
 * 1. `dueCallbackTier`      — this manager's callbacks whose time has come, earliest first;
 * 2. `overdueCallbackTier`  — anyone's callbacks still not taken past the grace time (the owner was not working);
 * 3. `expiredHoldTier`      — contacts whose holder abandoned them (hold expired, and he is not on a break);
 * 4. `retryTier`            — contacts whose status has a retry rule in the topic, once the rule's delay has passed,
 *                             longest waiting first (decision 057): ahead of the fresh ones, so «again after 2 hours»
 *                             holds while a base still has never-worked rows;
 * 5. `freshTier`            — never-worked contacts, bases in turn, rows in import order (contacts_free_idx);
 * 6. `reworkTier`           — contacts whose status the topic works again without a rule, least recently touched
 *                             first; a contact waiting for its callback is not one of them (it belongs to its manager
 *                             until then).
 *
 * Every tier applies `contactMayBeCalled` to the contact it picks: not on the do-not-call list, and inside the
 * topic's calling hours in the client's own local time (a due callback outside them waits).
 */

/** What every tier is evaluated against: SQL expressions, so the turn can read them inside its own statement. */
export interface ClaimScope {
  /** The manager who claims (int). */
  userId: SQL;
  /** The topic's bases (int[]). */
  bases: SQL;
  /** The topic (int): its retry rules are read inside the statement. */
  filterId: SQL;
  /** The statuses the topic works again without a retry rule (int[]; may be empty; retry.ts `reworkStatusIds`). */
  reworkStatuses: SQL;
  /** The topic's calling window (filters.calls_from …; decision 050). */
  hours: HoursSql;
  /** Minutes a due callback waits for its own manager before any manager of the topic may take it (int). */
  graceMinutes: SQL;
  /** The contact just pressed in this turn (bigint), never handed straight back by a tier; null outside a turn. */
  exceptContact: SQL | null;
  /**
   * The phone key this very press puts on the do-not-call list (text, null when none), which the list does not show
   * yet inside the statement that inserts it; absent outside a turn.
   */
  listedNow?: SQL;
}

/**
 * The one rule every tier applies to the contact it hands out: may this contact be called now? `alias` names the
 * contacts row in the tier. A number on the do-not-call list never is (issue 18, server/core/dnc); a client is
 * only inside the topic's calling hours, read in his own zone (contacts.tz, else the topic's zone; issue 29), and
 * with his consent when the topic asks for it, and under the topic's contact limits (calls to him this day, week,
 * month; issue 43, decision 075).
 * Held here, it holds for every tier at once.
 */
export function contactMayBeCalled(alias: string, hours: HoursSql, filterId: SQL, { zoneOpen = false } = {}): SQL {
  const row = sql.identifier(alias);
  // zoneOpen: the caller walks only clients whose zone the same rule found open (the fresh tier, per zone).
  const inHours = zoneOpen ? sql`` : sql`and ${clientInHours(sql`${row}.tz`, hours)}`;
  return sql`${mayBeCalled(alias)} ${inHours} and ${consentAllows(sql`${row}.consent_at`, filterId)}
    and ${underContactLimits(sql`${row}.id`, sql`${row}.tz`, filterId)}`;
}

/** contactMayBeCalled, and not the number this press is listing. */
const callable = (scope: ClaimScope, alias: string, options: { zoneOpen?: boolean } = {}) =>
  scope.listedNow
    ? sql`${contactMayBeCalled(alias, scope.hours, scope.filterId, options)} and ${sql.identifier(alias)}.phone_key is distinct from ${scope.listedNow}`
    : contactMayBeCalled(alias, scope.hours, scope.filterId, options);

/**
 * How a tier reads its rows: `pick`, the turn's, one contact id, locked (`FOR UPDATE SKIP LOCKED`), as a scalar
 * subquery; `all`, every contact id the tier would hand out now, unlocked, as a SELECT (what «Можно звонить сейчас»
 * counts: claimableNow). Both read the same WHERE: one rule.
 */
export type TierReading = "pick" | "all";

/**
 * The row of `contacts` awaits no callback: the tiers that are not a callback's (retry, fresh, re-work) leave such a
 * client to his callback's manager (callbacks_pending_contact_idx).
 */
const awaitsNoCallback = sql`not exists (select 1 from callbacks w where w.contact_id = contacts.id and w.handed_at is null)`;
const except = (scope: ClaimScope, column: SQL) => (scope.exceptContact ? sql`and ${column} <> ${scope.exceptContact}` : sql``);

/**
 * A callback's contact is free to hand out (not held, may be called). The callback row is what a callback tier
 * locks; the contact row is locked by the claim's UPDATE, and no other tier can pick it while the callback is
 * pending (the re-work tier leaves such contacts out), so two turns never hand it out twice.
 */
const callbackContactFree = (scope: ClaimScope) => sql`exists (select 1 from contacts ct
      where ct.id = cb.contact_id and ct.held_by is null and ${callable(scope, "ct")})`;

/** 1. This manager's pending callbacks that are due, earliest first (callbacks_pending_user_idx). */
export function dueCallbackTier(scope: ClaimScope, reading: TierReading = "pick"): SQL {
  const rows = sql`from callbacks cb
    where cb.handed_at is null and cb.user_id = ${scope.userId} and cb.due_at <= now()
      and cb.database_id = any(${scope.bases}) ${except(scope, sql`cb.contact_id`)} and ${callbackContactFree(scope)}`;
  if (reading === "all") return sql`select cb.contact_id as id ${rows}`;
  return sql`(select cb.contact_id ${rows}
    order by cb.due_at, cb.id limit 1 for update of cb skip locked)`;
}

/** 2. Pending callbacks of any manager, due longer ago than the grace time: ahead of every other lead. */
export function overdueCallbackTier(scope: ClaimScope, reading: TierReading = "pick"): SQL {
  const rows = sql`from callbacks cb
    where cb.handed_at is null and cb.due_at < now() - make_interval(mins => ${scope.graceMinutes})
      and cb.database_id = any(${scope.bases}) ${except(scope, sql`cb.contact_id`)} and ${callbackContactFree(scope)}`;
  if (reading === "all") return sql`select cb.contact_id as id ${rows}`;
  return sql`(select cb.contact_id ${rows}
    order by cb.due_at, cb.id limit 1 for update of cb skip locked)`;
}

/**
 * 3. A contact whose holder abandoned it (few rows: the partial index on held_until). A holder on a break keeps
 * his lead however long the break lasts (decision 038).
 */
export function expiredHoldTier(scope: ClaimScope, reading: TierReading = "pick"): SQL {
  const rows = sql`from contacts
    where held_by is not null and held_until < now() ${except(scope, sql`id`)}
      and database_id = any(${scope.bases})
      and (status_id is null or status_id = any(${scope.reworkStatuses}) or ${governedByRule(scope.filterId, "contacts")})
      and ${callable(scope, "contacts")} and not ${onBreak(sql`contacts.held_by`)}`;
  if (reading === "all") return sql`select id ${rows}`;
  return sql`(select id ${rows}
    order by id limit 1 for update skip locked)`;
}

/**
 * 4. A contact whose status has a retry rule in the topic, once `status_at` (when the status was pressed) is the
 * rule's delay ago or more, longest waiting first; not while it awaits a callback. The rule's statuses are out of
 * the re-work list (`reworkStatusIds`), so this is the only tier that brings them back.
 *
 * The due rows are walked one base, rule and open zone at a time (contacts_rework_idx: database_id, status_id, zone
 * key, status_at, id; the zones of each base and rule read and asked once, as the fresh tier does: issue 43), each
 * walk stopping at its first callable rows; they are never sorted all together, which a single walk by
 * `status_at` over every base and rule would need (it sorted every due row on each claim: 9,000 in the lead bench,
 * 86 ms a turn). The earliest two of each walk are read unlocked, and the earliest of them still free and still due
 * is locked: the lock reads the row as it is now, and another turn may have taken and pressed it since this
 * statement began. Only when other turns hold all of those (many managers on one base and rule) does each walk
 * lock its own first free row; always doing so cost a lock per walk on every turn.
 */
export function retryTier(scope: ClaimScope, reading: TierReading = "pick"): SQL {
  // perWalk null: every due row of each walk (reading `all`).
  const dueWalks = (lock: boolean, perWalk: number | null) => sql`unnest(${scope.bases}) base(id)
      join filter_retry_rules r on r.filter_id = ${scope.filterId}
      cross join lateral (
        ${openZoneKeys(sql`rz.database_id = base.id and rz.status_id = r.status_id`)}
        select walk.id, walk.status_at from zone_key
          cross join lateral (select contacts.id, contacts.status_at from contacts
            where contacts.database_id = base.id and contacts.status_id = r.status_id and coalesce(contacts.tz, '') = zone_key.key
              and contacts.held_by is null
              and contacts.status_at <= now() - make_interval(mins => r.delay_minutes) ${except(scope, sql`contacts.id`)}
              and ${awaitsNoCallback}
              and ${callable(scope, "contacts", { zoneOpen: true })}
            ${perWalk === null ? sql`` : sql`order by contacts.status_at, contacts.id limit ${sql.raw(String(perWalk))}`}
            ${lock ? sql`for update of contacts skip locked` : sql``}) walk
        where ${zoneKeyOpen(scope)}) due`;
  if (reading === "all") return sql`select due.id from ${dueWalks(false, null)}`;
  // The locking walks only when the first found candidates (none due: none to lock either).
  return sql`(with due_first as materialized (select due.id from ${dueWalks(false, 2)})
    select coalesce(
      (select id from contacts
        where id = any(array(select id from due_first)) and held_by is null
          and exists (select 1 from filter_retry_rules r where r.filter_id = ${scope.filterId} and r.status_id = contacts.status_id
            and contacts.status_at <= now() - make_interval(mins => r.delay_minutes))
        order by status_at, id limit 1 for update skip locked),
      (select due.id from ${dueWalks(true, 1)} where exists (select 1 from due_first) order by due.status_at, due.id limit 1)))`;
}

/**
 * The zone keys (`coalesce(tz, '')`: '' a contact without a zone) of the contacts `rz` that `where` picks, as the
 * recursive CTE `zone_key` (key), read from an index led by their columns and the zone key: one probe per zone (a
 * loose scan), however many contacts each has. Goes before a SELECT that reads `zone_key` and keeps the open ones
 * (`zoneKeyOpen`). Issue 43: the tiers ask the calling hours once per zone and walk only the open zones.
 */
const openZoneKeys = (where: SQL) => sql`with recursive zone_key(key) as (
          select min(coalesce(rz.tz, '')) from contacts rz where ${where}
          union all
          select (select min(coalesce(rz.tz, '')) from contacts rz where ${where} and coalesce(rz.tz, '') > zone_key.key)
          from zone_key where zone_key.key is not null)`;

/** The zone key of `zone_key` is one the topic's calling hours are open in now (the key '': the topic's zone). */
const zoneKeyOpen = (scope: ClaimScope) => sql`zone_key.key is not null and ${withinCallingHours(sql`nullif(zone_key.key, '')`, scope.hours)}`;

/**
 * 5. A free contact, in its base's import order, bases in turn; never-worked only (listed contacts are out of the
 * index: `listed`, kept by triggers on the list). Not one awaiting a callback: a missed call leaves one on a client
 * never worked (issue 42), his manager's first.
 *
 * The calling hours are asked once per zone, not once per contact (issue 43): contacts_free_idx is (database_id,
 * zone key, id), the zone key `coalesce(tz, '')` ('' a contact without a zone: the topic's applies). For each base in
 * turn the tier reads the zone keys its free contacts have (a loose scan: one probe of the index per zone), asks the
 * rule (`withinCallingHours`) for each, and walks only the open zones, each from its first free row in import
 * order; the earliest of those walks wins, and a base with no open zone costs its few probes. A base whose first
 * clients are outside their hours, or a whole base in a zone asleep, is never walked past row by row (it was: 35,000
 * rows a turn in the leads bench). The rows walked are in an open zone by construction, so `callable` leaves the
 * hours out for them; everything else it holds (the list, consent, the contact limits) is applied row by row.
 * Each open zone's walk locks its first callable row: one lock a turn when one zone is open in the base (the usual
 * base of one region), one per open zone in a base of several.
 */
export function freshTier(scope: ClaimScope, reading: TierReading = "pick"): SQL {
  const free = (alias: string) => {
    const a = sql.identifier(alias);
    return sql`${a}.database_id = base.id and ${a}.status_id is null and ${a}.held_by is null and not ${a}.listed`;
  };
  const pick = reading === "pick";
  // Reading `all`: each open zone's walk goes on past its first row, and every walk's rows are kept.
  const walks = sql`unnest(${scope.bases}) base(id)
    cross join lateral (
      ${openZoneKeys(free("rz"))}
      select walk.id from zone_key
        cross join lateral (select contacts.id from contacts
          where ${free("contacts")} and coalesce(contacts.tz, '') = zone_key.key
            and ${awaitsNoCallback}
            and ${callable(scope, "contacts", { zoneOpen: true })}
          ${pick ? sql`order by contacts.id limit 1 for update skip locked` : sql``}) walk
      where ${zoneKeyOpen(scope)}
      ${pick ? sql`order by walk.id limit 1` : sql``}) pick`;
  if (!pick) return sql`select pick.id from ${walks}`;
  return sql`(select pick.id from ${walks}
    limit 1)`;
}

/** 6. A contact whose status the topic works again (without a retry rule), least recently touched first, unless it awaits a callback. */
export function reworkTier(scope: ClaimScope, reading: TierReading = "pick"): SQL {
  const rows = sql`from contacts
    where database_id = any(${scope.bases}) and status_id = any(${scope.reworkStatuses})
      and held_by is null ${except(scope, sql`id`)}
      and ${awaitsNoCallback}
      and ${callable(scope, "contacts")}`;
  if (reading === "all") return sql`select id ${rows}`;
  return sql`(select id ${rows}
    order by status_at nulls first, id limit 1 for update skip locked)`;
}

/** The grace time as the settings row has it, read inside the statement (a change applies to the next turn). */
export const GRACE_FROM_SETTINGS = sql`coalesce((select callback_grace_minutes from settings where id = 1), 15)`;

export const CLAIM_TIERS = {
  dueCallback: dueCallbackTier,
  overdueCallback: overdueCallbackTier,
  expiredHold: expiredHoldTier,
  retry: retryTier,
  fresh: freshTier,
  rework: reworkTier,
} as const;
export type ClaimTier = keyof typeof CLAIM_TIERS;

/** The tiers in the order a turn tries them. */
export const TIER_ORDER: ClaimTier[] = ["dueCallback", "overdueCallback", "expiredHold", "retry", "fresh", "rework"];

/** The one contact id the tiers pick, in order: the first tier that finds one wins. */
export function claimPick(scope: ClaimScope, tiers: ClaimTier[] = TIER_ORDER): SQL {
  return sql`coalesce(${sql.join(
    tiers.map((t) => CLAIM_TIERS[t](scope)),
    sql`, `,
  )})`;
}

/**
 * Every contact the turn could hand this manager now, whatever tier would (reading `all` of each: the same rules
 * as claimPick, nothing locked), as a SELECT of distinct ids: what /getFilters counts as «Можно звонить сейчас»
 * (issue 41, item 12). A contact two tiers would give (his own callback past the grace time) is one contact.
 */
export function claimableNow(scope: ClaimScope, tiers: ClaimTier[] = TIER_ORDER): SQL {
  return sql.join(
    tiers.map((t) => sql`(${CLAIM_TIERS[t](scope, "all")})`),
    sql` union `,
  );
}

/**
 * The claim as two data-modifying CTEs for a statement that goes on with `claim` (the contact now held, with
 * `columns`) and `handed` (its callback, if a callback tier picked it, marked taken by this manager).
 * `when` gates the claim (the turn claims only when its press was recorded).
 */
export function claimCtes(scope: ClaimScope, holdMinutes: SQL, columns: SQL, when: SQL = sql`true`, tiers?: ClaimTier[]): SQL {
  return sql`claim as (
      update contacts set held_by = ${scope.userId}, held_until = now() + make_interval(mins => ${holdMinutes}), held_since = now()
      where id = ${claimPick(scope, tiers)} and ${when}
      returning ${columns}),
    handed as (
      update callbacks set handed_at = now(), handed_to = ${scope.userId}
      where handed_at is null and contact_id = (select id from claim)
      returning id)`;
}
