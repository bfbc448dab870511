import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";
import type { Actor } from "../actor";
import { type HistoryEntry, readHistories, requireHolderOrAdmin } from "../calls/history";
import { notFound } from "../errors";
import type { Lead } from "./allocation";
import { AUTODIAL_COLUMNS, autodialOf, type Autodial } from "./autodial";
import { leadCardRows, type LeadCardRow } from "./card";
import { cardColumns, cardFieldsOf, type CardFieldStart } from "./card-start";
import { attemptColumns, attemptOf, leadInTopic } from "./retry";
import { formatKyivClock } from "../../../common/business-time";
import { contactCallsColumn, contactCallsOf } from "../filters/contact-limits";

/** The callback a lead was handed out for (issue 41 §7): when it was due and the manager's note. */
export interface DueCallback {
  dueAt: string;
  /** Its time as the card says it: «15:30» today, else with its date. */
  dueText: string;
  note: string;
}

/** A lead as the lead panel shows it: the lead with its attempt, its card, its history and the topic's autodial. */
export interface LeadView {
  lead: Lead | null;
  /** The callback this lead is (the top of the card says «Перезвон на …» with its note), or null. */
  callback: DueCallback | null;
  card: LeadCardRow[];
  /** The topic's card template with the values its fields start with (issue 41: the client's own, or his saved card). */
  cardFields: CardFieldStart[];
  history: HistoryEntry[];
  autodial: Autodial | null;
  /**
   * The number is on the do-not-call list (issue 42: a client who called in is held to the manager who answered;
   * the card says so in red).
   */
  doNotCall: boolean;
}

/**
 * The LeadViewFacts columns of contact `c` in its base `d` and topic `f`, with the rule of its status joined as `r`
 * (leadInTopic).
 * `holdStart` is when the manager's hold began (attemptColumns); `historyAlso` counts as history too (the turn's
 * own press, which its statement cannot see yet), and `savedNow` the card it saves (cardColumns).
 */
export function leadViewColumns(holdStart?: SQL, historyAlso: SQL = sql`false`, savedNow?: SQL) {
  return {
    ...cardColumns(savedNow),
    has_history: sql<boolean>`${historyAlso} or exists (select 1 from calls k where k.contact_id = c.id)
      or exists (select 1 from lead_events e where e.contact_id = c.id)`,
    ...AUTODIAL_COLUMNS,
    ...attemptColumns(holdStart),
    limit_calls: sql<unknown>`${contactCallsColumn(sql`c.id`, sql`c.tz`, sql`f.id`)}`,
    due_callback: sql<{ dueAt: string; note: string } | null>`${dueCallbackColumn(historyAlso)}`,
  };
}

/** What one query (leadViewColumns) reads of a lead for the panel; the history itself follows only when there is one. */
export type LeadViewFacts = RowOf<ReturnType<typeof leadViewColumns>>;

/**
 * The callback contact `c` is being worked for (issue 41 §7): the one its latest status press scheduled, handed out
 * (or due, read in the turn statement, whose snapshot has not the hand-out yet) and not closed; a press since then
 * answered it. Two index probes (lead_events by contact, callbacks by lead event). None when `pressedNow` (the turn
 * keeps the contact it has just pressed: that press answered the callback).
 */
function dueCallbackColumn(pressedNow: SQL): SQL {
  return sql`case when ${pressedNow} then null else (
      select json_build_object('dueAt', cb.due_at, 'note', cb.note) from callbacks cb
      where cb.lead_event_id = (select e.id from lead_events e where e.contact_id = c.id order by e.id desc limit 1)
        and cb.closed_reason is null and (cb.handed_at is not null or cb.due_at <= now())
      limit 1) end`;
}

function dueCallbackOf(row: { dueAt: string; note: string }): DueCallback {
  const dueAt = new Date(row.dueAt);
  return { dueAt: dueAt.toISOString(), dueText: formatKyivClock(dueAt), note: row.note };
}

/**
 * What the lead panel shows of the lead a turn handed `actor` in topic `filterId` (issue 31): its attempt under a
 * retry rule, the import's labels for its card, whether anything happened to the client, and the topic's autodial.
 * The status press's turn statement reads them with the lead (`facts`); otherwise one query after the turn does. A
 * second query reads the history of a client something has happened to (a fresh contact, most leads, has none).
 * Who may see it is clientHistory's rule: an admin, or the holder (the turn's own lead is the actor's by construction).
 */
export async function leadView(
  db: Db,
  actor: Actor,
  filterId: number,
  lead: Lead | null,
  phoneRegion: string,
  facts?: LeadViewFacts | null,
): Promise<LeadView> {
  if (!lead) return { lead: null, callback: null, card: [], cardFields: [], history: [], autodial: null, doNotCall: false };
  let row = facts;
  if (!row) {
    const [read] = await selectRows(
      db,
      { held_by: sql<number | null>`c.held_by`, ...leadViewColumns() },
      (list) => sql`select ${list} ${leadInTopic(sql`${lead.id}::bigint`, sql`${filterId}::int`)}`,
    );
    if (!read) throw notFound("Клиент не найден");
    requireHolderOrAdmin(actor, read.held_by);
    row = read;
  }
  const attempt = attemptOf(row);
  const contactCalls = contactCallsOf(row.limit_calls);
  const shown = { ...lead, ...(attempt ? { attempt } : {}), ...(contactCalls.length > 0 ? { contactCalls } : {}) };
  return {
    lead: shown,
    callback: row.due_callback ? dueCallbackOf(row.due_callback) : null,
    card: leadCardRows(shown, row.extra_labels ?? [], phoneRegion),
    cardFields: cardFieldsOf(lead, row, phoneRegion),
    history: row.has_history ? (await readHistories(db, actor, [lead.id])).get(lead.id)! : [],
    autodial: autodialOf(row),
    doNotCall: Boolean(row.listed),
  };
}
