import { and, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { calls, listenSessions, users } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { AppError, badRequest, conflict, notFound } from "../errors";
import { bigIdSchema, idSchema, parseInput } from "../validation";

/**
 * Live listening (issue 28): an admin hears both sides of a manager's call in his browser, and neither the manager
 * nor the client is told anything (no re-INVITE, no sound). rtpengine, which already relays the call's media,
 * sends a copy of each party to the admin's browser: its `subscribe request` makes a send-only WebRTC offer with
 * one audio section per party, the browser answers, `subscribe answer` starts the copy, `unsubscribe` ends it
 * (DESIGN §12). The session is kept: who listened to whom, on which call, from when to when.
 */

/** The media relay's control channel, as core needs it (server/telephony/rtpengine-ng.ts speaks it). */
export interface MediaRelay {
  command(request: Record<string, unknown>): Promise<Record<string, unknown>>;
}

const unavailable = (why: string) => new AppError(503, "relay_unavailable", `Прослушивание недоступно: ${why}`);

/** The relay, or the reason there is none: RTPENGINE_NG is not set. */
function relayOrRefuse(relay: MediaRelay | null): MediaRelay {
  if (!relay) throw unavailable("не задан адрес управления rtpengine (RTPENGINE_NG)");
  return relay;
}

async function ask(relay: MediaRelay, request: Record<string, unknown>) {
  try {
    return await relay.command(request);
  } catch (error) {
    throw unavailable(error instanceof Error ? error.message : String(error));
  }
}

const startSchema = z.object({ managerId: idSchema });

/**
 * «Слушать»: the manager's call now (answered, not ended, relayed by the stack: the proxy's row), subscribed to as
 * a whole. Answers the session's id and the offer for the admin's browser.
 */
export async function startListening(db: Db, relay: MediaRelay | null, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { managerId } = parseInput(startSchema, input);
  const [manager] = await db.select({ id: users.id }).from(users).where(eq(users.id, managerId));
  if (!manager) throw notFound("Менеджер не найден");
  const [call] = await db
    .select({ id: calls.id, sipCallId: calls.sipCallId })
    .from(calls)
    .where(
      and(eq(calls.userId, managerId), eq(calls.byProxy, true), isNull(calls.endedAt), isNotNull(calls.answeredAt), isNotNull(calls.sipCallId)),
    )
    .orderBy(desc(calls.id))
    .limit(1);
  if (!call) throw conflict("Менеджер сейчас не разговаривает");
  const answer = await ask(relayOrRefuse(relay), {
    command: "subscribe request",
    "call-id": call.sipCallId,
    // Every party of the call; mids, which a browser's answer must echo.
    flags: ["all", "generate mid"],
    // The admin's browser: WebRTC as the managers' leg has it (decision 020).
    "transport-protocol": "UDP/TLS/RTP/SAVPF",
    ICE: "force",
    // rtpengine answers the browser's checks and makes none: with full ICE on both ends the second party's
    // section stayed "checking" for ever (measured with rtpengine 10.5 and Chromium).
    "ICE-lite": "forward",
    "rtcp-mux": ["require"],
    SDES: ["off"],
  });
  const sdp = typeof answer.sdp === "string" ? answer.sdp : "";
  const tag = typeof answer["to-tag"] === "string" ? answer["to-tag"] : "";
  if (!sdp || !tag) throw unavailable("rtpengine не прислал предложение");
  const [session] = await db
    .insert(listenSessions)
    .values({ adminId: actor.id, managerId, callId: call.id, relayTag: tag })
    .returning({ id: listenSessions.id });
  return { sessionId: session.id, sdp: distinctMids(sdp) };
}

/**
 * rtpengine 10.5 numbers the mids of each party's section on its own, so a subscription to two parties offers
 * `a=mid:1` twice, which a browser refuses ("Duplicate a=mid value"). The sections are renumbered in order; rtpengine
 * reads the answer's sections by their order.
 */
export function distinctMids(sdp: string): string {
  let next = 0;
  return sdp.replace(/^a=mid:.*$/gm, () => `a=mid:${next++}`);
}

const answerSchema = z.object({
  sessionId: bigIdSchema("Неверный идентификатор прослушивания"),
  sdp: z.string({ error: "Нет ответа браузера" }).min(10, { error: "Нет ответа браузера" }).max(20_000, { error: "Слишком длинный ответ браузера" }),
});

/** The admin's browser's answer: the copy starts flowing. */
export async function answerListening(db: Db, relay: MediaRelay | null, actor: Actor, input: unknown): Promise<void> {
  requireAdmin(actor);
  const { sessionId, sdp } = parseInput(answerSchema, input);
  const session = await openSession(db, actor, sessionId);
  await ask(relayOrRefuse(relay), { command: "subscribe answer", "call-id": session.sipCallId, "to-tag": session.relayTag, sdp });
}

const stopSchema = z.object({ sessionId: bigIdSchema("Неверный идентификатор прослушивания") });

/**
 * «Стоп» (or the admin's page going away): the copy ends and the session is closed. Closing is what matters to
 * the log, so a relay that cannot be told (the call is over, rtpengine restarted) does not keep it open.
 */
export async function stopListening(db: Db, relay: MediaRelay | null, actor: Actor, input: unknown): Promise<void> {
  requireAdmin(actor);
  const { sessionId } = parseInput(stopSchema, input);
  const session = await openSession(db, actor, sessionId);
  await db.update(listenSessions).set({ endedAt: sql`now()` }).where(eq(listenSessions.id, sessionId));
  if (relay) await relay.command({ command: "unsubscribe", "call-id": session.sipCallId, "to-tag": session.relayTag }).catch(() => {});
}

/** An admin's own open session with its call's Call-ID. */
async function openSession(db: Db, actor: Actor, sessionId: number) {
  const [session] = await db
    .select({ relayTag: listenSessions.relayTag, sipCallId: calls.sipCallId })
    .from(listenSessions)
    .innerJoin(calls, eq(calls.id, listenSessions.callId))
    .where(and(eq(listenSessions.id, sessionId), eq(listenSessions.adminId, actor.id), isNull(listenSessions.endedAt)));
  if (!session) throw badRequest("Прослушивание уже завершено");
  return session;
}
