import { eq, sql, type SQL } from "drizzle-orm";
import type { ContactCalls } from "../../../common/contact-limits";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { columnsOf, type RowOf, selectList, selectRows } from "../../../db/typed-sql";
import { filterDatabases, filters, users } from "../../../db/schema";
import { type Actor, requireSelfOrAdmin } from "../actor";
import { onBreak } from "../breaks/breaks";
import { notFound } from "../errors";
import { mayBeCalled } from "../dnc/dnc";
import { type CallingHours, DEFAULT_CALLING_HOURS, hoursColumnsOf, hoursLiteral, hoursOfStatementRow, presentHours } from "../filters/calling-hours";
import { requireOpenFilter } from "../filters/filters";
import { idSchema, parseInput } from "../validation";
import { attemptColumns, attemptOf, type AttemptFacts, type LeadAttempt, leadInTopic, reworkStatusIds } from "./retry";
import { type ClaimScope, type ClaimTier, claimableNow, claimCtes, GRACE_FROM_SETTINGS, TIER_ORDER } from "./tiers";

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** SPEC §3 Lead: one contact while a manager holds it. */
export interface Lead {
  id: number;
  name: string;
  phone: string;
  city: string;
  address: string;
  additionalInfo1: string;
  additionalInfo2: string;
  additionalInfo3: string;
  additionalInfo4: string;
  /** The attempt under a retry rule of the topic («Попытка 3 из 5»), when the contact's status has one (decision 057). */
  attempt?: LeadAttempt | null;
  /**
   * The calls to this client counting against each of the topic's contact limits this period (issue 43, decision
   * 075): on the lead panel's lead when the topic has limits; the card says «звонков клиенту: 1 из 2 на этой неделе».
   */
  contactCalls?: ContactCalls[];
}

/** A lead's contact columns (of the one contacts row in scope: unqualified), as a claim returns them. */
export const CONTACT_COLUMNS = {
  id: sql<number | string>`id`,
  database_id: sql<number>`database_id`,
  name: sql<string>`name`,
  phone: sql<string>`phone`,
  city: sql<string>`city`,
  address: sql<string>`address`,
  additional_info1: sql<string>`additional_info1`,
  additional_info2: sql<string>`additional_info2`,
  additional_info3: sql<string>`additional_info3`,
  additional_info4: sql<string>`additional_info4`,
};

/** A contacts row as raw SQL returns it (postgres.js answers int8 as text, so ids are normalised). */
export type ContactRow = RowOf<typeof CONTACT_COLUMNS>;

/** What a claim answers (claimStatement): the contact claimed and its attempt. */
const claimedColumns = () => ({ ...columnsOf("claim", CONTACT_COLUMNS), ...columnsOf("shown", attemptColumns()) });

/** A lead as the claim and the held lead's read answer it: the contact, and its attempt where a rule governs it. */
function presentWithAttempt(row: ContactRow & AttemptFacts): Lead {
  const lead = presentLead(row);
  const attempt = attemptOf(row);
  return attempt ? { ...lead, attempt } : lead;
}

export function presentLead(row: ContactRow): Lead {
  return {
    id: Number(row.id),
    name: row.name,
    phone: row.phone,
    city: row.city,
    address: row.address,
    additionalInfo1: row.additional_info1,
    additionalInfo2: row.additional_info2,
    additionalInfo3: row.additional_info3,
    additionalInfo4: row.additional_info4,
  };
}

/** What a filter makes eligible: its bases, the statuses whose contacts it works again, and when. */
export interface WorkSet {
  filterId: number;
  databaseIds: number[];
  statusIds: number[];
  hours: CallingHours;
}

export async function loadWorkSet(db: Db | Tx, filterId: number): Promise<WorkSet> {
  const [bases, statusRows, [topic]] = await Promise.all([
    db
      .select({ id: filterDatabases.databaseId })
      .from(filterDatabases)
      .where(eq(filterDatabases.filterId, filterId))
      .orderBy(filterDatabases.databaseId),
    selectRows(db as Db, { ids: sql<number[]>`${reworkStatusIds(sql`${filterId}::int`)}` }, (list) => sql`select ${list}`),
    db.select(hoursColumnsOf(filters)).from(filters).where(eq(filters.id, filterId)),
  ]);
  return {
    filterId,
    databaseIds: bases.map((b) => b.id),
    statusIds: (statusRows[0]?.ids ?? []).map(Number),
    hours: topic ? presentHours(topic) : DEFAULT_CALLING_HOURS,
  };
}

/** Ids as one parameter, an array's text ("{1,2,3}"), cast where it is read. */
const arrayText = (ids: number[]) => `{${ids.join(",")}}`;

/**
 * The claim scope of a manager in a topic whose bases and statuses were read already (outside a turn): each a read
 * of the statement's `w` row (`workRow`), so that each value is one parameter however often the tiers read it.
 * Written out at each use, the calling-hours rule alone made the claim 816 parameters, past what db/client.ts
 * prepares (decision 082).
 */
export function workScope(): ClaimScope {
  return {
    userId: sql`(select user_id from w)`,
    filterId: sql`(select filter_id from w)`,
    // Cast, so `= any(…)` reads an array rather than a subquery's rows.
    bases: sql`(select bases from w)::int[]`,
    reworkStatuses: sql`(select statuses from w)::int[]`,
    hours: hoursOfStatementRow("w"),
    graceMinutes: GRACE_FROM_SETTINGS,
    exceptContact: null,
  };
}

/** The CTE `w` that `workScope` reads: the manager, his topic, its bases, re-work statuses and calling window. */
export function workRow(userId: number, work: WorkSet): SQL {
  const hours = hoursLiteral(work.hours);
  return sql`w as materialized (select ${userId}::int as user_id, ${work.filterId}::int as filter_id,
      ${arrayText(work.databaseIds)}::int[] as bases, ${arrayText(work.statusIds)}::int[] as statuses,
      ${hours.from} as calls_from, ${hours.until} as calls_until, ${hours.days} as call_days, ${hours.timeZone} as time_zone,
      ${hours.weekendFrom} as weekend_from, ${hours.weekendUntil} as weekend_until, ${hours.daysOff} as days_off)`;
}

export function claimStatement(
  userId: number,
  holdMinutes: number,
  work: WorkSet,
  tiers: ClaimTier[] = TIER_ORDER,
  list: SQL = selectList(claimedColumns()),
): SQL {
  const scope = workScope();
  return sql`with ${workRow(userId, work)}, ${claimCtes(scope, sql`${holdMinutes}::int`, selectList(CONTACT_COLUMNS), sql`true`, tiers)}
    select ${list} from claim
    left join lateral (select ${selectList(attemptColumns(sql`now()`))} ${leadInTopic(sql`claim.id`, scope.filterId)}) shown on true`;
}

/** Claims the next eligible contact for this manager, or null when the filter has nothing left. */
export async function claimNext(
  tx: Tx | Db,
  userId: number,
  holdMinutes: number,
  work: WorkSet,
  tiers: ClaimTier[] = TIER_ORDER,
): Promise<Lead | null> {
  if (work.databaseIds.length === 0) return null;
  const [row] = await selectRows(tx, claimedColumns(), (list) => claimStatement(userId, holdMinutes, work, tiers, list));
  return row ? presentWithAttempt(row) : null;
}

/**
 * How many contacts a turn could hand this manager in this topic now: claimableNow, every tier by the rules
 * claimNext picks with, nothing locked (his callbacks that are due, anyone's past the grace time, abandoned holds,
 * retries whose delay has passed, never-worked clients, re-worked ones; each inside his hours, off the
 * do-not-call list, with consent where asked, under the contact limits). /getFilters' «Можно звонить сейчас»
 * (issue 41, item 12).
 */
export async function claimableCount(db: Db, userId: number, work: WorkSet): Promise<number> {
  if (work.databaseIds.length === 0) return 0;
  const [row] = await selectRows(
    db,
    { n: sql<number>`count(*)::int` },
    (list) => sql`with ${workRow(userId, work)} select ${list} from (${claimableNow(workScope())}) claimable`,
  );
  return Number(row?.n ?? 0);
}

/** Serialises one manager's lead calls, so he never ends up holding two contacts. */
export async function lockUser(tx: Tx, userId: number) {
  const [user] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
  if (!user) throw notFound("Пользователь не найден", "user_not_found");
}

/**
 * Makes `contactId` the manager's lead in `filterId`, out of turn (a callback taken early, a caller he answered):
 * the lead he held goes back to the pool, this one is held to him for `holdMinutes`, and the topic becomes his.
 * Inside the caller's transaction, after lockUser.
 */
export async function holdOutOfTurn(tx: Tx, userId: number, contactId: number, filterId: number, holdMinutes: number) {
  await tx.execute(sql`update contacts set held_by = null, held_until = null where held_by = ${userId} and id <> ${contactId}`);
  await tx.execute(
    sql`update contacts set held_by = ${userId}, held_until = now() + make_interval(mins => ${holdMinutes}::int), held_since = now() where id = ${contactId}`,
  );
  await tx.execute(sql`update users set getting_filter = ${filterId}, updated_at = now() where id = ${userId}`);
}

/**
 * SQL: the contacts row `alias`, held by `userId`, was taken while a call in from it was on his line (issue 42:
 * «Ответить», takeInboundCaller): a client who calls us is his to work even on the do-not-call list.
 */
export function heldForCallIn(alias: string, userId: SQL): SQL {
  const c = sql.identifier(alias);
  return sql`exists (select 1 from calls ic where ic.contact_id = ${c}.id and ic.user_id = ${userId} and ic.direction = 'in'
    and ic.started_at <= ${c}.held_since and (ic.ended_at is null or ic.ended_at >= ${c}.held_since))`;
}

/**
 * The lead this manager holds, if it still belongs to the filter's bases (its hold is renewed); a hold from
 * another topic, or on a number put on the do-not-call list since (unless the client called him: heldForCallIn),
 * is let go. A lead whose client's calling hours
 * ended while he held it stays his (he may be talking to the client, or writing the card): the proxy refuses a new
 * call, and the next press hands out only clients inside their hours (decision 050).
 */
async function heldLead(tx: Tx, userId: number, holdMinutes: number, work: WorkSet): Promise<Lead | null> {
  const held = await selectRows(
    tx,
    {
      ...CONTACT_COLUMNS,
      callable: sql<boolean>`(${mayBeCalled("contacts")} or ${heldForCallIn("contacts", sql`${userId}::int`)})`,
      ...columnsOf("shown", attemptColumns()),
    },
    (list) => sql`select ${list} from contacts
      left join lateral (select ${selectList(attemptColumns())} ${leadInTopic(sql`contacts.id`, sql`${work.filterId}::int`)}) shown on true
      where held_by = ${userId} order by id for update of contacts`,
  );
  const keep = held.find((row) => row.callable && work.databaseIds.includes(Number(row.database_id))) ?? null;
  const release = held.filter((row) => row !== keep).map((row) => Number(row.id));
  if (release.length > 0) {
    await tx.execute(sql`update contacts set held_by = null, held_until = null where id = any(${arrayText(release)}::bigint[])`);
  }
  if (!keep) return null;
  await tx.execute(sql`update contacts set held_until = now() + make_interval(mins => ${holdMinutes}) where id = ${Number(keep.id)}`);
  return presentWithAttempt(keep);
}

export const filteredLeadSchema = z.object({
  filterId: idSchema,
  userId: idSchema,
});

/**
 * GET /database/filtered-lead: the lead the manager holds, or a newly claimed one, with its attempt under a retry
 * rule; null when none is left — or when he is on a break (`onBreak`): then only the lead he holds comes back,
 * nothing new is claimed (decision 038). A manager asks only for himself, and only from an active filter that
 * lists him.
 */
export async function takeLead(
  db: Db,
  actor: Actor,
  holdMinutes: number,
  rawInput: unknown,
): Promise<{ lead: Lead | null; onBreak: boolean; filterId: number }> {
  const input = parseInput(filteredLeadSchema, rawInput);
  requireSelfOrAdmin(actor, input.userId);
  const turn = await db.transaction(async (tx) => {
    const [, , work] = await Promise.all([
      lockUser(tx, input.userId),
      requireOpenFilter(tx, input.filterId, input.userId),
      loadWorkSet(tx, input.filterId),
    ]);
    const [{ paused }] = await selectRows(tx, { paused: sql<boolean>`${onBreak(sql`${input.userId}::int`)}` }, (list) => sql`select ${list}`);
    const held = await heldLead(tx, input.userId, holdMinutes, work);
    if (held || paused) return { lead: held, onBreak: paused };
    return { lead: await claimNext(tx, input.userId, holdMinutes, work), onBreak: false };
  });
  return { ...turn, filterId: input.filterId };
}
