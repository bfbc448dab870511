import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { calls, listenSessions, recordingPlays } from "../../../db/schema";
import type { Actor } from "../actor";
import { badRequest } from "../errors";
import { bigIdSchema, parseInput } from "../validation";

/**
 * What a page really played (issue 39, decision 071): the access log says how long audio was heard, not how long
 * a page was open. The page that plays reports it: the listening admin's (or, for a whisper, the manager's) how
 * many milliseconds its element played while the relay's packets came, and how long ago it first and last did;
 * a recording's player the sum of the ranges it played. Times come as "ms ago" so that the browser's clock does
 * not matter; the server bounds every figure by what could have happened (a session's own span, the recording's
 * length), so a page can make a figure neither run backwards nor exceed the real time.
 */

/** How long after a session's end its page's last report still counts (a report in flight beside the «Стоп»). */
const LATE_REPORT_SECONDS = 120;
/** How long after a play's start its player's reports count (a long recording paused and resumed). */
const PLAY_REPORT_HOURS = 12;

const ms = (message: string) =>
  z.coerce.number({ error: message }).int({ error: message }).min(0, { error: message }).max(2_147_483_647, { error: message });

const heardSchema = z.object({
  sessionId: bigIdSchema("Неверный идентификатор прослушивания"),
  heardMs: ms("Неверная длительность звука"),
  firstAgoMs: ms("Неверное время начала звука").default(0),
  lastAgoMs: ms("Неверное время конца звука").default(0),
});

export const LISTEN_REPORT_GONE = "Сеанс прослушивания не найден или давно завершён";

/**
 * The listening page's report: `heardMs` heard so far (0 until the audio plays), the first heard `firstAgoMs` and
 * the last `lastAgoMs` before now. Only the page that hears may report: the admin of a listening, the manager of
 * a whisper.
 */
export async function reportHeard(db: Db, actor: Actor, input: unknown): Promise<void> {
  const { sessionId, heardMs, firstAgoMs, lastAgoMs } = parseInput(heardSchema, input);
  const end = sql`coalesce(${listenSessions.endedAt}, now())`;
  const span = sql`greatest(0, floor(extract(epoch from (${end} - ${listenSessions.startedAt})) * 1000))::int`;
  const heard = heardMs > 0;
  const updated = await db
    .update(listenSessions)
    .set({
      heardMs: sql`least(greatest(coalesce(${listenSessions.heardMs}, 0), ${heardMs}::int), ${span})`,
      firstHeardAt: heard
        ? sql`coalesce(${listenSessions.firstHeardAt}, least(${end}, greatest(${listenSessions.startedAt}, now() - make_interval(secs => ${firstAgoMs}::float8 / 1000))))`
        : sql`${listenSessions.firstHeardAt}`,
      lastHeardAt: heard
        ? sql`least(${end}, greatest(coalesce(${listenSessions.lastHeardAt}, ${listenSessions.startedAt}), now() - make_interval(secs => ${lastAgoMs}::float8 / 1000)))`
        : sql`${listenSessions.lastHeardAt}`,
    })
    .where(
      and(
        eq(listenSessions.id, sessionId),
        sql`(${listenSessions.kind} = 'listen' and ${listenSessions.adminId} = ${actor.id} or ${listenSessions.kind} = 'whisper' and ${listenSessions.managerId} = ${actor.id})`,
        sql`(${listenSessions.endedAt} is null or ${listenSessions.endedAt} > now() - make_interval(secs => ${LATE_REPORT_SECONDS}))`,
      ),
    )
    .returning({ id: listenSessions.id });
  if (updated.length === 0) throw badRequest(LISTEN_REPORT_GONE, "listen_session_gone");
}

/** A player's key: what a page puts in ?play= (letters, digits, - and _). */
export const playKeySchema = z
  .string({ error: "Неверный ключ проигрывателя" })
  .regex(/^[A-Za-z0-9_-]{8,64}$/, { error: "Неверный ключ проигрывателя" });

const playedSchema = z.object({ playKey: playKeySchema, playedMs: ms("Неверная длительность прослушивания") });

export const PLAY_REPORT_GONE = "Прослушивание записи не найдено";

/** A recording's player reports how much it has played (the sum of its played ranges), bounded by the audio's length. */
export async function reportPlayed(db: Db, actor: Actor, input: unknown): Promise<void> {
  const { playKey, playedMs } = parseInput(playedSchema, input);
  const updated = await db
    .update(recordingPlays)
    .set({
      playedMs: sql`least(greatest(coalesce(${recordingPlays.playedMs}, 0), ${playedMs}::int), coalesce(${calls.recordingMs}, ${playedMs}::int))`,
    })
    .from(calls)
    .where(
      and(
        eq(calls.id, recordingPlays.callId),
        eq(recordingPlays.userId, actor.id),
        eq(recordingPlays.playKey, playKey),
        eq(recordingPlays.download, false),
        sql`${recordingPlays.at} > now() - make_interval(hours => ${PLAY_REPORT_HOURS})`,
      ),
    )
    .returning({ id: recordingPlays.id });
  if (updated.length === 0) throw badRequest(PLAY_REPORT_GONE, "play_gone");
}
