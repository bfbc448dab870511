import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../../db/client";
import type { Actor } from "../actor";
import { type HistoryEntry, readHistories, requireHolderOrAdmin } from "../calls/history";
import { notFound } from "../errors";
import type { Lead } from "./allocation";
import { AUTODIAL_COLUMNS, autodialOf, type Autodial } from "./autodial";
import { leadCardRows, type LeadCardRow } from "./card";
import { attemptColumns, attemptOf, type AttemptFacts, leadInTopic } from "./retry";
import { contactCallsColumn, contactCallsOf } from "../filters/contact-limits";

/** A lead as the lead panel shows it: the lead with its attempt, its card, its history and the topic's autodial. */
export interface LeadView {
  lead: Lead | null;
  card: LeadCardRow[];
  history: HistoryEntry[];
  autodial: Autodial | null;
}

/** What one query (leadViewColumns) reads of a lead for the panel; the history itself follows only when there is one. */
export interface LeadViewFacts extends AttemptFacts {
  extra_labels: string[] | null;
  has_history: boolean;
  autodial_seconds: number | null;
  listed: boolean;
  within: boolean;
  limit_calls: unknown;
}

/**
 * The LeadViewFacts columns of contact `c` in its base `d` and topic `f`, with the rule of its status joined as `r`
 * (leadInTopic).
 * `holdStart` is when the manager's hold began (attemptColumns); `historyAlso` counts as history too (the turn's
 * own press, which its statement cannot see yet).
 */
export function leadViewColumns(holdStart?: SQL, historyAlso: SQL = sql`false`): SQL {
  return sql`d.extra_labels,
    ${historyAlso} or exists (select 1 from calls k where k.contact_id = c.id)
      or exists (select 1 from lead_events e where e.contact_id = c.id) as has_history,
    ${AUTODIAL_COLUMNS}, ${attemptColumns(holdStart)}, ${contactCallsColumn(sql`c.id`, sql`c.tz`, sql`f.id`)}`;
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
  if (!lead) return { lead: null, card: [], history: [], autodial: null };
  let row = facts;
  if (!row) {
    const [read] = await queryRows<LeadViewFacts & { held_by: number | null }>(
      db,
      sql`select c.held_by, ${leadViewColumns()} ${leadInTopic(sql`${lead.id}::bigint`, sql`${filterId}::int`)}`,
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
    card: leadCardRows(shown, row.extra_labels ?? [], phoneRegion),
    history: row.has_history ? (await readHistories(db, actor, [lead.id])).get(lead.id)! : [],
    autodial: autodialOf(row),
  };
}
