import { and, asc, eq, exists, gt, inArray, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { sessions, users } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { agentStates, type AgentState } from "../breaks/agent-state";
import { sessionIsLive } from "../auth/live-session";

/**
 * Presence (DESIGN §7): a user is on /users while he has a live session (isOnline) and his realtime socket
 * was alive within the grace period (lastSeen, kept fresh by updateStatus and the hub's pings). Every
 * instance writes lastSeen to the one database, so the list is the same on each of them.
 */
export interface PresentUser {
  id: number;
  login: string;
  displayName: string;
  isAdmin: boolean;
  lastSeen: string;
  /** What he is doing (decision 038): in a call, on a break, working a lead, idle; null for an admin off the leads. */
  state: AgentState | null;
  /** Since when (ISO 8601), null when unknown. */
  stateSince: string | null;
  /** In a call: its id in the log (the scoring page's /quality/call/:id); otherwise null. */
  callId: number | null;
  /** A call of his rings (the proxy's, not answered yet): «Слушать» may be pressed already, and waits for the answer. */
  ringing: boolean;
}

export async function listPresentUsers(db: Db, graceSeconds: number): Promise<PresentUser[]> {
  const since = new Date(Date.now() - graceSeconds * 1000);
  const rows = await db
    .select({
      id: users.id,
      login: users.login,
      displayName: users.displayName,
      isAdmin: users.isAdmin,
      lastSeen: users.lastSeen,
    })
    .from(users)
    .where(and(eq(users.isOnline, true), gt(users.lastSeen, since)))
    // By login: the same order at every refresh (by lastSeen, every ping reordered the rows under the admin's eyes).
    .orderBy(asc(users.login), asc(users.id));
  const states = await agentStates(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({
    ...r,
    lastSeen: (r.lastSeen as Date).toISOString(),
    state: states.get(r.id)?.state ?? null,
    stateSince: states.get(r.id)?.since ?? null,
    callId: states.get(r.id)?.callId ?? null,
    ringing: states.get(r.id)?.ringing ?? false,
  }));
}

/** /users and GET /api/v1/users/online: admins only. */
export async function listUsersOnline(db: Db, actor: Actor, graceSeconds: number) {
  requireAdmin(actor);
  return listPresentUsers(db, graceSeconds);
}

/**
 * Which of these users are admins now. The hub asks before each online list it sends, so an admin demoted
 * (through any path, on any instance) stops getting the list at once, without being told.
 */
export async function adminsAmong(db: Db, userIds: number[]): Promise<Set<number>> {
  if (userIds.length === 0) return new Set();
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(inArray(users.id, userIds), eq(users.isAdmin, true)));
  return new Set(rows.map((r) => r.id));
}

/**
 * A socket said "I am here": lastSeen moves to now, but only while the socket's session still exists.
 * Returns false when the session is gone (logged out or forced out), so the hub closes that socket.
 */
export async function touchPresence(db: Db, userId: number, sessionToken: string): Promise<boolean> {
  const rows = await db
    .update(users)
    .set({ lastSeen: new Date() })
    .where(
      and(
        eq(users.id, userId),
        exists(
          db
            .select({ one: sql`1` })
            .from(sessions)
            .where(and(eq(sessions.id, sessionToken), eq(sessions.userId, userId), sessionIsLive())),
        ),
      ),
    )
    .returning({ id: users.id });
  return rows.length > 0;
}
