import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { contacts, filters, links, statuses, templates, users } from "../../../db/schema";
import type { Actor } from "../actor";
import { isAppError } from "../errors";
import { clientInHours, hoursLiteral } from "../filters/calling-hours";
import { callsResume, callsResumeText, openTopicCount } from "../filters/topic-choice";
import { type Lead, loadWorkSet, takeLead } from "./allocation";
import { type CardField, parseTemplateFields } from "./card-start";
import { leadView, type LeadView } from "./lead-view";
import { withButtonLabels, withKeys } from "../statuses/keys";

// The card's fields are card-start.ts's (the panel's view and the API's lead turn give them with their values).
export { type CardField, parseTemplateFields } from "./card-start";

export interface LeadPanel extends LeadView {
  filter: { id: number; name: string } | null;
  /** Visible statuses in their keys' order (issue 31, server/core/statuses/keys.ts), each with its digit. */
  statuses: Array<{
    id: number;
    text: string;
    buttonText: string;
    /** What the button says: its button text, and the status's text too where two buttons would read alike. */
    label: string;
    color: string;
    isReportStatus: boolean;
    isTechnical: boolean;
    asksCallback: boolean;
    order: number;
    hotkey: number | null;
    /** The digit that presses it, or null (past the ninth). */
    key: number | null;
  }>;
  template: { name: string; fields: CardField[] } | null;
  links: Array<{ id: number; name: string; link: string }>;
  /** He is on a break: no new lead is handed out until he ends it (decision 038). */
  onBreak: boolean;
  /** No lead now, but the topic has free clients whose calling hours have not begun (decision 050). */
  waitingForHours: boolean;
  /**
   * Then, when their calls resume (issue 41): «звонки продолжатся в 09:00 по их времени, через 5 ч 57 мин»; null
   * when nobody waits or no window opens in the weeks ahead.
   */
  callsResume: string | null;
  /** How many topics are open to him: «Сменить тематику» is offered only when there is another to choose. */
  openTopics: number;
}

/**
 * Whether the topic still has never-worked clients who are outside their calling hours: asked only when the claim
 * found nothing, so the first free contact it reads is one of them (contacts_free_idx; an empty index answers at once).
 */
async function clientsWaitForHours(db: Db, filterId: number): Promise<{ waiting: boolean; resume: string | null }> {
  const work = await loadWorkSet(db, filterId);
  if (work.databaseIds.length === 0) return { waiting: false, resume: null };
  const [row] = await selectRows(
    db,
    {
      waiting: sql<boolean>`exists (select 1 from contacts c
      where c.database_id = any(${sql.param(work.databaseIds)}::int[]) and c.status_id is null and c.held_by is null and not c.listed
        and not ${clientInHours(sql`c.tz`, hoursLiteral(work.hours))})`,
    },
    (list) => sql`select ${list}`,
  );
  if (!row?.waiting) return { waiting: false, resume: null };
  const resume = await callsResume(db, work);
  return { waiting: true, resume: resume ? callsResumeText(resume) : null };
}

/**
 * Everything /leadpanel shows: the user's chosen topic, the status buttons, the topic's template, the active
 * links and the lead (held, or claimed now). No topic, or one no longer open to him: no lead.
 */
export async function loadLeadPanel(db: Db, actor: Actor, holdMinutes: number, phoneRegion: string): Promise<LeadPanel> {
  const [user] = await db.select({ gettingFilter: users.gettingFilter }).from(users).where(eq(users.id, actor.id));
  const filterId = user?.gettingFilter ?? 0;
  const [filterRow] = filterId
    ? await db
        .select({ id: filters.id, name: filters.name, templateName: templates.name, templateFields: templates.templateFields })
        .from(filters)
        // Only an active template is given to managers (decision 034): a deactivated one is like none.
        .leftJoin(templates, and(eq(templates.id, filters.templateId), eq(templates.isActive, true)))
        .where(eq(filters.id, filterId))
    : [];
  const [statusRows, linkRows] = await Promise.all([
    db
      .select({
        id: statuses.id,
        text: statuses.text,
        buttonText: statuses.buttonText,
        color: statuses.color,
        isReportStatus: statuses.isReportStatus,
        isTechnical: statuses.isTechnical,
        asksCallback: statuses.asksCallback,
        order: statuses.order,
        hotkey: statuses.hotkey,
      })
      .from(statuses)
      .where(eq(statuses.isHidden, false)),
    db.select({ id: links.id, name: links.name, link: links.link }).from(links).where(eq(links.isActive, true)).orderBy(asc(links.id)),
  ]);

  let lead: Lead | null = null;
  let onBreak = false;
  if (filterRow) {
    try {
      ({ lead, onBreak } = await takeLead(db, actor, holdMinutes, { filterId: filterRow.id, userId: actor.id }));
    } catch (error) {
      // A topic that closed meanwhile (deactivated, he was taken off it): nothing to work.
      if (!isAppError(error)) throw error;
    }
  }
  const [view, waiting, openTopics] = await Promise.all([
    leadView(db, actor, filterId, lead, phoneRegion),
    filterRow && !lead && !onBreak ? clientsWaitForHours(db, filterRow.id) : { waiting: false, resume: null },
    openTopicCount(db, actor.id),
  ]);
  return {
    filter: filterRow ? { id: filterRow.id, name: filterRow.name } : null,
    statuses: withButtonLabels(withKeys(statusRows)),
    template:
      filterRow?.templateName != null ? { name: filterRow.templateName, fields: parseTemplateFields(filterRow.templateFields ?? "[]") } : null,
    links: linkRows,
    ...view,
    onBreak,
    waitingForHours: waiting.waiting,
    callsResume: waiting.resume,
    openTopics,
  };
}

/** The manager leaves his topic (to choose another on /getFilters) and lets go of his lead. */
export async function leaveFilter(db: Db, actor: Actor) {
  await db.transaction(async (tx) => {
    await tx.update(users).set({ gettingFilter: 0, updatedAt: new Date() }).where(eq(users.id, actor.id));
    await tx
      .update(contacts)
      .set({ heldBy: null, heldUntil: null })
      .where(and(eq(contacts.heldBy, actor.id)));
  });
  return { success: true, message: "Выберите новую тематику" };
}

/** The status a lead panel button names (by its id), for the report check before the confirmation. */
export async function findStatus(db: Db, rawId: unknown) {
  const id = Number(rawId);
  if (!Number.isInteger(id) || id <= 0) return null;
  const [row] = await db
    .select({ id: statuses.id, text: statuses.text, isReportStatus: statuses.isReportStatus, asksCallback: statuses.asksCallback })
    .from(statuses)
    .where(eq(statuses.id, id));
  return row ?? null;
}
