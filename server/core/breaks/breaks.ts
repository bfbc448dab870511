import { and, eq, isNull, type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { type BreakEndReason, managerBreaks, users } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { conflict, notFound } from "../errors";
import { kyivDay } from "../../../common/business-time";

/**
 * Breaks (Перерыв, issue 18, decision 038): the one place their rules live. While a manager has an open break:
 * - no lead is handed to him: the lead turn (record-status.ts) and GET filtered-lead (allocation.ts) ask
 *   `onBreak` and claim nothing; a status press on the lead he holds is still recorded;
 * - the lead he holds stays his: the expired-hold tier (tiers.ts) leaves out holds of a holder on a break, and
 *   ending the break renews the hold;
 * - his due callbacks are not taken by him, so after the grace time they pass to the topic's other managers (the
 *   overdue tier, decision 035): on a break counts as not working.
 * A break ends when he ends it, logs out, or is forced out. Pages and the API only call these functions.
 */

type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];

/** Who may take breaks: he works leads (not an admin, or an admin who is a manager of a topic). */
export const BREAK_NOT_FOR_YOU = "Перерыв берут только те, кто работает с лидами: вас нет ни в одной тематике";

/** Taking a client by hand (Позвонить сейчас) during a break. */
export const ON_BREAK_TAKE = "Вы на перерыве: закончите перерыв, чтобы взять клиента";

/** Refuses what would hand him a lead by his own request while he is on a break (409). */
export async function requireNotOnBreak(db: Db | Tx, userId: number): Promise<void> {
  const [row] = await selectRows(db, { paused: sql<boolean>`${onBreak(sql`${userId}::int`)}` }, (list) => sql`select ${list}`);
  if (row?.paused) throw conflict(ON_BREAK_TAKE, "on_break");
}

/** Tells /users' watchers at once that someone's state changed (the realtime hub). */
export interface PresenceSignal {
  presenceChanged(): Promise<void>;
}

/**
 * The rule as one SQL predicate: the user `userId` (an int expression) is on a break now. One probe of the
 * partial unique index manager_breaks_open_idx.
 */
export function onBreak(userId: SQL): SQL {
  return sql`exists (select 1 from manager_breaks mb where mb.user_id = ${userId} and mb.ended_at is null)`;
}

/** SQL: the user works leads, so breaks are his to take. */
function worksLeads(userId: SQL): SQL {
  return sql`(select not u.is_admin or exists (select 1 from filter_managers fm where fm.user_id = u.id) from users u where u.id = ${userId})`;
}

export interface BreakState {
  onBreak: boolean;
  /** When the open break began (ISO 8601), or null. */
  startedAt: string | null;
  /** Whole seconds it has lasted, by the database's clock (0 when not on a break). */
  elapsedSeconds: number;
  /** He may take breaks (he works leads). */
  mayBreak: boolean;
}

async function readState(db: Db | Tx, userId: number): Promise<BreakState> {
  const [row] = await selectRows(
    db,
    {
      may_break: sql<boolean | null>`${worksLeads(sql`${userId}::int`)}`,
      started_at: sql<Date | string | null>`b.started_at`,
      elapsed: sql<number | string | null>`floor(extract(epoch from (now() - b.started_at)))::int`,
    },
    (list) => sql`select ${list}
      from (select 1) one
      left join manager_breaks b on b.user_id = ${userId} and b.ended_at is null`,
  );
  const startedAt = row?.started_at == null ? null : new Date(row.started_at).toISOString();
  return {
    onBreak: startedAt !== null,
    startedAt,
    elapsedSeconds: startedAt === null ? 0 : Math.max(0, Number(row.elapsed ?? 0)),
    mayBreak: Boolean(row?.may_break),
  };
}

/** The actor's break: the header's toggle and GET /api/v1/breaks/current. */
export async function breakState(db: Db, actor: Actor): Promise<BreakState> {
  return readState(db, actor.id);
}

/** Locks the user's row: a break starts or ends in order with his lead turns (which lock it first too). */
async function lockUserRow(tx: Tx, userId: number) {
  const [row] = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
  if (!row) throw notFound("Пользователь не найден", "user_not_found");
}

/**
 * Starts the actor's break. Starting it again while on one changes nothing (a second tab, a double click).
 * Only someone who works leads may: anyone else gets 409 with the reason.
 */
export async function startBreak(db: Db, signal: PresenceSignal | null, actor: Actor): Promise<BreakState> {
  const state = await db.transaction(async (tx) => {
    await lockUserRow(tx, actor.id);
    const before = await readState(tx, actor.id);
    if (before.onBreak) return before;
    if (!before.mayBreak) throw conflict(BREAK_NOT_FOR_YOU, "not_working_leads");
    await tx.execute(sql`insert into manager_breaks (user_id) values (${actor.id}) on conflict (user_id) where ended_at is null do nothing`);
    return readState(tx, actor.id);
  });
  await signal?.presenceChanged().catch(() => {});
  return state;
}

export interface EndedBreak extends BreakState {
  /** The break this call ended (null: he was not on one). */
  ended: { startedAt: string; endedAt: string; seconds: number } | null;
}

/**
 * Ends the actor's break and renews the hold on the lead he kept through it (so nobody takes it before his
 * next turn). Ending it when not on one changes nothing.
 */
export async function endBreak(db: Db, signal: PresenceSignal | null, actor: Actor, holdMinutes: number): Promise<EndedBreak> {
  const result = await db.transaction(async (tx) => {
    await lockUserRow(tx, actor.id);
    const [ended] = await tx
      .update(managerBreaks)
      .set({ endedAt: sql`now()`, endedBy: "manager" })
      .where(and(eq(managerBreaks.userId, actor.id), isNull(managerBreaks.endedAt)))
      .returning({
        startedAt: managerBreaks.startedAt,
        endedAt: managerBreaks.endedAt,
        seconds: sql<number>`floor(extract(epoch from (${managerBreaks.endedAt} - ${managerBreaks.startedAt})))::int`,
      });
    if (ended) {
      await tx.execute(
        sql`update contacts set held_until = greatest(held_until, now() + make_interval(mins => ${holdMinutes}::int))
          where held_by = ${actor.id}`,
      );
    }
    const state = await readState(tx, actor.id);
    return {
      ...state,
      ended: ended
        ? {
            startedAt: ended.startedAt.toISOString(),
            // Set by this very update (the column is nullable only for an open break).
            endedAt: (ended.endedAt ?? new Date()).toISOString(),
            seconds: Number(ended.seconds),
          }
        : null,
    };
  });
  if (result.ended) await signal?.presenceChanged().catch(() => {});
  return result;
}

/**
 * Logging out, or being forced out, ends an open break (decision 038): the manager is no longer working, so his
 * hold lapses as usual and his due callbacks pass on after the grace time. True when a break was ended.
 */
export async function endOpenBreak(db: Db | Tx, userId: number, reason: Exclude<BreakEndReason, "manager">): Promise<boolean> {
  const rows = await db
    .update(managerBreaks)
    .set({ endedAt: sql`now()`, endedBy: reason })
    .where(and(eq(managerBreaks.userId, userId), isNull(managerBreaks.endedAt)))
    .returning({ id: managerBreaks.id });
  return rows.length > 0;
}

export interface ManagerBreakDay {
  userId: number;
  login: string;
  displayName: string;
  /** Whole seconds of break inside the day (an open break counts up to now). */
  seconds: number;
  /** How many breaks touched the day. */
  breaks: number;
  /** On a break right now. */
  onBreak: boolean;
}

/**
 * Break time per manager in [start, end): each break clipped to the day and to `now` (one over midnight counts its
 * part on each side; an open one counts up to now; `least` skips the null end of an open one). Every break that
 * touches the day is open or ended after `start`, or lasted 0 s at `start` itself (manager_breaks_ended_idx finds
 * them all). A break started and ended in the same second still counts as one, listed with its 0 s (issue 29).
 */
export async function breakTimeBetween(db: Db, start: Date, end: Date, now: Date): Promise<ManagerBreakDay[]> {
  const until = new Date(Math.min(now.getTime(), end.getTime())).toISOString();
  const rows = await selectRows(
    db,
    {
      user_id: sql<number>`u.id`,
      login: sql<string>`u.login`,
      display_name: sql<string>`u.display_name`,
      seconds: sql<number | string>`floor(sum(extract(epoch from (
          least(b.ended_at, ${until}::timestamptz)
          - greatest(b.started_at, ${start.toISOString()}::timestamptz)))))::int`,
      breaks: sql<number | string>`count(*)::int`,
      on_break: sql<boolean>`bool_or(b.ended_at is null)`,
    },
    (list) => sql`select ${list}
      from manager_breaks b join users u on u.id = b.user_id
      where (b.ended_at is null or b.ended_at > ${start.toISOString()}::timestamptz
          or (b.ended_at = ${start.toISOString()}::timestamptz and b.started_at = b.ended_at))
        and b.started_at < ${until}::timestamptz
      group by u.id, u.login, u.display_name
      order by u.login`,
  );
  return rows.map((row) => ({
    userId: row.user_id,
    login: row.login,
    displayName: row.display_name,
    seconds: Math.max(0, Number(row.seconds)),
    breaks: Number(row.breaks),
    onBreak: Boolean(row.on_break),
  }));
}

/** Today's break time per manager (the Kyiv day, like every statistic): the dashboard and GET /api/v1/breaks/today. */
export async function breakTimeToday(db: Db, actor: Actor, now = new Date()): Promise<ManagerBreakDay[]> {
  requireAdmin(actor);
  const { start, end } = kyivDay(now);
  return breakTimeBetween(db, start, end, now);
}
