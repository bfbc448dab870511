import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { callbacks, callScores, calls, contacts, filters, leadEvents, users, type CallDirection, type CallOutcome } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { inVisibleBase } from "../bases/visible";
import { forbidden, notFound } from "../errors";
import { mayHear, recordingNote } from "../recordings/recordings";
import { userNameSql } from "../users/present";
import { contactIdSchema, parseInput } from "../validation";
import { attemptLabel } from "../../../common/attempt";

/** What a press under a retry rule says in the history: «Попытка 5 из 5 · итог: Недозвон». */
function pressAttempt(event: { attempt: number | null; attemptsMax: number | null; finalStatusText: string | null }): string | null {
  if (event.attempt == null || event.attemptsMax == null) return null;
  const label = attemptLabel({ number: event.attempt, of: event.attemptsMax });
  return event.finalStatusText ? `${label} · итог: ${event.finalStatusText}` : label;
}

/** How many of each kind one client's history shows (a client called more often than this is rare). */
export const HISTORY_LIMIT = 50;

export type HistoryEntry =
  | {
      kind: "call";
      at: string;
      /** The manager's login, and the name pages show (the display name, else the login). */
      manager: string | null;
      managerName: string | null;
      direction: CallDirection;
      number: string;
      outcome: CallOutcome | null;
      talkSeconds: number;
      reason: string | null;
      /** The call's id in the log (its recording plays at /recordings/:id). */
      id: number;
      /** What the row says of its recording («удалена по сроку хранения», ...), or null. */
      recordingNote: string | null;
      /** The viewer may play this call's recording (it is ready, and he may hear it). */
      playable: boolean;
      /** ...and may download it (admins). */
      downloadable: boolean;
      /**
       * The call's score (0-100, a rescore when a dispute was accepted), shown to admins and to the call's own
       * manager (issue 39: he sees his scores in his history); null when not scored or not his.
       */
      score: number | null;
      /** The call is the viewer's own (his score's details are on his /profile; an admin's are at /quality). */
      mine: boolean;
    }
  | {
      kind: "status";
      at: string;
      manager: string | null;
      managerName: string | null;
      status: string;
      cardText: string;
      /** «Попытка 3 из 5» when the status had a retry rule in its topic, with «итог: …» on the last (decision 057). */
      attempt: string | null;
      /** The callback this press scheduled (issue 41 §7): when and the manager's note; null for other presses. */
      callback: { dueAt: string; note: string } | null;
    };

/**
 * Everything that happened to some clients: every call and every status press, newest first, with the manager
 * and the card text. For many clients at once (a page of search hits) in two queries; admins only.
 */
export async function historiesOf(db: Db, actor: Actor, contactIds: number[]): Promise<Map<number, HistoryEntry[]>> {
  requireAdmin(actor);
  return readHistories(db, actor, contactIds);
}

/** The histories of some clients; who may read them is the caller's check (an admin, or the client's holder). */
export async function readHistories(db: Db, actor: Actor, contactIds: number[]): Promise<Map<number, HistoryEntry[]>> {
  const histories = new Map<number, HistoryEntry[]>(contactIds.map((id) => [id, []]));
  if (contactIds.length === 0) return histories;
  const [callRows, eventRows] = await Promise.all([
    db
      .select({
        call: calls,
        manager: users.login,
        managerName: userNameSql,
        managersHear: filters.managersHearRecordings,
        score: sql<number | null>`coalesce(${callScores.rescore}, ${callScores.score})`,
      })
      .from(calls)
      .leftJoin(users, eq(users.id, calls.userId))
      .leftJoin(filters, eq(filters.id, calls.filterId))
      .leftJoin(callScores, eq(callScores.callId, calls.id))
      .where(inArray(calls.contactId, contactIds))
      .orderBy(desc(calls.startedAt))
      .limit(HISTORY_LIMIT * contactIds.length),
    db
      .select({ event: leadEvents, manager: users.login, managerName: userNameSql, callbackDue: callbacks.dueAt, callbackNote: callbacks.note })
      .from(leadEvents)
      .leftJoin(users, eq(users.id, leadEvents.userId))
      .leftJoin(callbacks, eq(callbacks.leadEventId, leadEvents.id))
      .where(inArray(leadEvents.contactId, contactIds))
      .orderBy(desc(leadEvents.createdAt))
      .limit(HISTORY_LIMIT * contactIds.length),
  ]);
  for (const { call, manager, managerName, managersHear, score } of callRows) {
    histories.get(Number(call.contactId))?.push({
      kind: "call",
      at: call.startedAt.toISOString(),
      manager,
      managerName: managerName ?? null,
      direction: call.direction,
      number: call.number,
      outcome: call.outcome,
      talkSeconds: call.talkSeconds,
      reason: call.reason,
      id: call.id,
      recordingNote: recordingNote(call),
      playable: mayHear(actor, call, managersHear),
      downloadable: actor.isAdmin && call.recording === "ready",
      score: score !== null && (actor.isAdmin || call.userId === actor.id) ? Number(score) : null,
      mine: call.userId === actor.id,
    });
  }
  for (const { event, manager, managerName, callbackDue, callbackNote } of eventRows) {
    histories.get(Number(event.contactId))?.push({
      kind: "status",
      at: event.createdAt.toISOString(),
      manager,
      managerName: managerName ?? null,
      status: event.statusText,
      cardText: event.clientInfo,
      attempt: pressAttempt(event),
      callback: callbackDue ? { dueAt: callbackDue.toISOString(), note: callbackNote ?? "" } : null,
    });
  }
  for (const [id, entries] of histories) {
    histories.set(id, entries.sort((a, b) => b.at.localeCompare(a.at)).slice(0, HISTORY_LIMIT));
  }
  return histories;
}

/** Who may see a client's history: an admin, or the manager who holds the client now (his lead). */
export function requireHolderOrAdmin(actor: Actor, heldBy: number | null): void {
  if (!actor.isAdmin && heldBy !== actor.id) throw forbidden("Этот клиент сейчас не закреплён за вами");
}

/** One client's history: an admin's, or the manager's who holds the client now (his lead). */
export async function clientHistory(db: Db, actor: Actor, rawContactId: unknown): Promise<HistoryEntry[]> {
  const contactId = parseInput(contactIdSchema, rawContactId);
  const [contact] = await db
    .select({ heldBy: contacts.heldBy })
    .from(contacts)
    .where(and(eq(contacts.id, contactId), inVisibleBase("contacts")));
  if (!contact) throw notFound("Клиент не найден");
  requireHolderOrAdmin(actor, contact.heldBy);
  return (await readHistories(db, actor, [contactId])).get(contactId)!;
}
