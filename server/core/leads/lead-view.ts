import { sql } from "drizzle-orm";
import { type Db, queryRows } from "../../../db/client";
import type { Actor } from "../actor";
import { visibleBase } from "../bases/visible";
import { type HistoryEntry, readHistories, requireHolderOrAdmin } from "../calls/history";
import { notFound } from "../errors";
import type { Lead } from "./allocation";
import { AUTODIAL_COLUMNS, autodialOf, type Autodial } from "./autodial";
import { leadCardRows, type LeadCardRow } from "./card";
import { ATTEMPT_COLUMNS, attemptOf } from "./retry";

/** A lead as the lead panel shows it: the lead with its attempt, its card, its history and the topic's autodial. */
export interface LeadView {
  lead: Lead | null;
  card: LeadCardRow[];
  history: HistoryEntry[];
  autodial: Autodial | null;
}

interface LeadViewRow {
  extra_labels: string[] | null;
  held_by: number | null;
  has_history: boolean;
  autodial_seconds: number | null;
  listed: boolean;
  within: boolean;
  attempts_done: number | null;
  attempts_of: number | null;
}

/**
 * What the lead panel shows of the lead a turn handed `actor` in topic `filterId` (issue 31): its attempt under a
 * retry rule, the import's labels for its card, whether anything happened to the client, and the topic's autodial,
 * all in one query after the turn; a second reads the history of a client something has happened to (a fresh
 * contact, most leads, has none). A turn's bare answer (the API) adds only the attempt (withAttempt).
 * Who may see it is clientHistory's rule: an admin, or the holder.
 */
export async function leadView(db: Db, actor: Actor, filterId: number, lead: Lead | null, phoneRegion: string): Promise<LeadView> {
  if (!lead) return { lead: null, card: [], history: [], autodial: null };
  const [row] = await queryRows<LeadViewRow>(
    db,
    sql`select d.extra_labels, c.held_by,
        exists (select 1 from calls k where k.contact_id = c.id) or exists (select 1 from lead_events e where e.contact_id = c.id) as has_history,
        ${AUTODIAL_COLUMNS}, ${ATTEMPT_COLUMNS}
      from contacts c
      join databases d on d.id = c.database_id and ${visibleBase("d")}
      join filters f on f.id = ${filterId}::int
      left join filter_retry_rules r on r.filter_id = f.id and r.status_id = c.status_id
      where c.id = ${lead.id}::bigint`,
  );
  if (!row) throw notFound("Клиент не найден");
  requireHolderOrAdmin(actor, row.held_by);
  const attempt = attemptOf(row);
  const shown = attempt ? { ...lead, attempt } : lead;
  return {
    lead: shown,
    card: leadCardRows(shown, row.extra_labels ?? [], phoneRegion),
    history: row.has_history ? (await readHistories(db, actor, [lead.id])).get(lead.id)! : [],
    autodial: autodialOf(row),
  };
}
