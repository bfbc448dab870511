import { and, desc, eq, isNull, lt, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { calls, listenSessions, users } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { AppError, badRequest, conflict, notFound } from "../errors";
import { bigIdSchema, idSchema, parseInput } from "../validation";
import { checkBrowserSdp } from "./browser-sdp";

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

/**
 * rtpengine's refusals as the page says them (issue 39): never its English reason. Its own answers are English
 * ("Unknown call-ID"); what the client found (no answer) is already Russian.
 */
export function relayReason(reason: string): string {
  if (/[а-яё]/i.test(reason)) return reason;
  if (/unknown call-?id|call-id not found/i.test(reason)) return "rtpengine не знает этот звонок: он уже завершён, или rtpengine перезапускали";
  if (/tag.*not found|unknown (from|to)-tag/i.test(reason)) return "rtpengine не знает этого участника звонка";
  return "rtpengine отказал";
}

async function ask(relay: MediaRelay, request: Record<string, unknown>) {
  try {
    return await relay.command(request);
  } catch (error) {
    throw unavailable(relayReason(error instanceof Error ? error.message : String(error)));
  }
}

/**
 * Removes one party of the call at rtpengine (a listener's subscription, a whisper's published voice, the
 * manager's subscription to it) with its ports, at once. `unsubscribe` is not enough: it drops the copy but keeps
 * the party in the call, and rtpengine destroys a call only when fewer than two parties remain after Kamailio's
 * delete of the SIP dialogue, so a call with two listeners or a whisper stayed with its ports until rtpengine's
 * timeout, and its recording waited for the 30 s fallback (issue 39). Errors are the caller's to ignore.
 */
async function dropParty(relay: MediaRelay, sipCallId: string, tag: string) {
  await relay.command({ command: "delete", "call-id": sipCallId, "from-tag": tag, "delete-delay": 0 });
}

/** The parties a session added to the call: a listener's subscription; a whisper's manager's subscription and the admin's voice. */
const partiesOf = (session: { relayTag: string | null; hearTag: string | null; kind: string }) =>
  (session.kind === "whisper" ? [session.hearTag, session.relayTag] : [session.relayTag]).filter((tag): tag is string => !!tag);

/** An open session closed in the log and its parties removed at rtpengine (a relay that cannot be told is not waited for twice). */
async function closeSession(
  db: Db,
  relay: MediaRelay | null,
  session: { id: number; sipCallId: string; relayTag: string | null; hearTag: string | null; kind: string },
): Promise<boolean> {
  const closed = await db
    .update(listenSessions)
    .set({ endedAt: sql`now()` })
    .where(and(eq(listenSessions.id, session.id), isNull(listenSessions.endedAt)))
    .returning({ id: listenSessions.id });
  if (relay) {
    for (const tag of partiesOf(session)) {
      try {
        await dropParty(relay, session.sipCallId, tag);
      } catch (error) {
        // rtpengine does not answer: the next party would wait as long again for nothing.
        if (/не отвечает/.test(error instanceof Error ? error.message : "")) break;
      }
    }
  }
  return closed.length > 0;
}

/** What the pages are told when sessions end without their own «Стоп»: the admin who listened, the manager whispered to. */
export interface EndedSession {
  id: number;
  kind: "listen" | "whisper";
  adminId: number | null;
  managerId: number | null;
}

const sessionColumns = {
  id: listenSessions.id,
  kind: listenSessions.kind,
  adminId: listenSessions.adminId,
  managerId: listenSessions.managerId,
  relayTag: listenSessions.relayTag,
  hearTag: listenSessions.hearTag,
  sipCallId: sql<string>`${calls.sipCallId}`,
};

/**
 * The call is over (the proxy's end or failure report): every listening and whisper on it ends, and rtpengine
 * forgets the whole call at once (a browser killed mid-call is hung up by Kamailio's own BYE, which deletes nothing
 * at rtpengine), so its recording is finished now rather than after rtpengine's timeout. Answers the sessions ended.
 */
export async function endSupervisionOfCall(
  db: Db,
  relay: MediaRelay | null,
  callId: number,
  /** The proxy's report: a call in that rang a manager out fails, and its media may ring the next one (issue 42). */
  event: "end" | "fail" = "end",
): Promise<EndedSession[]> {
  const [call] = await db
    .select({ sipCallId: calls.sipCallId, byProxy: calls.byProxy, direction: calls.direction })
    .from(calls)
    .where(eq(calls.id, callId));
  if (!call?.sipCallId) return [];
  const open = await db
    .select(sessionColumns)
    .from(listenSessions)
    .innerJoin(calls, eq(calls.id, listenSessions.callId))
    .where(and(eq(listenSessions.callId, callId), isNull(listenSessions.endedAt)));
  const ended: EndedSession[] = [];
  for (const session of open) if (await closeSession(db, relay, session)) ended.push(session);
  // Not a call in that failed: the next manager Kamailio rings shares its Call-ID and rtpengine's offer (a delete here
  // left his answer without media), and Kamailio deletes the call itself when nobody is left (failure_route[INBOUND_NEXT]).
  const nextMayRing = event === "fail" && call.direction === "in";
  if (relay && call.byProxy && !nextMayRing) await relay.command({ command: "delete", "call-id": call.sipCallId, "delete-delay": 0 }).catch(() => {});
  return ended;
}

/**
 * The admin's page went away without a word (its realtime sockets closed: a closed tab, a killed browser): his
 * sessions opened before that end. Answers them.
 */
export async function endSupervisionOfAdmin(db: Db, relay: MediaRelay | null, adminId: number, before: Date): Promise<EndedSession[]> {
  const open = await db
    .select(sessionColumns)
    .from(listenSessions)
    .innerJoin(calls, eq(calls.id, listenSessions.callId))
    .where(and(eq(listenSessions.adminId, adminId), isNull(listenSessions.endedAt), lt(listenSessions.startedAt, before)));
  const ended: EndedSession[] = [];
  for (const session of open) if (await closeSession(db, relay, session)) ended.push(session);
  return ended;
}

const startSchema = z.object({ managerId: idSchema });

export const NOT_ANSWERED = "Звонок ещё не принят";
/** What the admin's page says when the call it listened to ended. */
export const CALL_ENDED = "Звонок завершён: прослушивание остановлено";

/** The manager's call now: answered, not ended, relayed by the stack (the proxy's row, so rtpengine has its media). */
async function liveCallOf(db: Db, managerId: number): Promise<{ id: number; sipCallId: string }> {
  const [manager] = await db.select({ id: users.id }).from(users).where(eq(users.id, managerId));
  if (!manager) throw notFound("Менеджер не найден");
  const [call] = await db
    .select({ id: calls.id, sipCallId: calls.sipCallId, answeredAt: calls.answeredAt })
    .from(calls)
    .where(and(eq(calls.userId, managerId), eq(calls.byProxy, true), isNull(calls.endedAt), sql`${calls.sipCallId} is not null`))
    .orderBy(desc(calls.id))
    .limit(1);
  if (!call) throw conflict("Менеджер сейчас не разговаривает");
  // Rings still: the page waits for the answer and starts then (ListenButton).
  if (!call.answeredAt) throw conflict(NOT_ANSWERED, "call_not_answered");
  return { id: call.id, sipCallId: call.sipCallId! };
}

/** How rtpengine talks to a browser (decision 020): DTLS-SRTP, ICE, rtcp-mux, no SDES. */
const TO_A_BROWSER = {
  "transport-protocol": "UDP/TLS/RTP/SAVPF",
  ICE: "force",
  "rtcp-mux": ["require"],
  SDES: ["off"],
};

/**
 * A send-only offer to a browser of some parties of the call (`all`, or one from-tag), and the subscription's tag.
 * rtpengine is ICE-lite towards that browser: it answers the browser's checks and makes none, since with full ICE
 * on both ends a second party's section stayed "checking" for ever (measured with rtpengine 10.5 and Chromium).
 */
async function subscribe(relay: MediaRelay, sipCallId: string, parties: Record<string, unknown>) {
  const answer = await ask(relay, {
    command: "subscribe request",
    "call-id": sipCallId,
    ...parties,
    ...TO_A_BROWSER,
    "ICE-lite": "forward",
  });
  const sdp = typeof answer.sdp === "string" ? answer.sdp : "";
  const tag = typeof answer["to-tag"] === "string" ? answer["to-tag"] : "";
  if (!sdp || !tag) throw unavailable("rtpengine не прислал предложение");
  return { sdp: distinctMids(sdp), tag };
}

/**
 * «Слушать»: the manager's call now (answered, not ended, relayed by the stack: the proxy's row), subscribed to as
 * a whole. Answers the session's id and the offer for the admin's browser.
 */
export async function startListening(db: Db, relay: MediaRelay | null, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { managerId } = parseInput(startSchema, input);
  const call = await liveCallOf(db, managerId);
  const ready = relayOrRefuse(relay);
  // One subscription per listener: a second «Слушать» (another tab, a page reloaded) ends the first.
  await endOwnSessions(db, ready, actor.id, call.id, "listen");
  const { sdp, tag } = await subscribe(ready, call.sipCallId, { flags: ["all", "generate mid"] });
  const [session] = await db
    .insert(listenSessions)
    .values({ adminId: actor.id, managerId, callId: call.id, relayTag: tag })
    .returning({ id: listenSessions.id });
  return { sessionId: session.id, sdp };
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
  checkBrowserSdp(sdp, "answer");
  const session = await openSession(db, sessionId, { adminId: actor.id });
  await ask(relayOrRefuse(relay), { command: "subscribe answer", "call-id": session.sipCallId, "to-tag": session.relayTag, sdp });
}

const stopSchema = z.object({ sessionId: bigIdSchema("Неверный идентификатор прослушивания") });

/**
 * «Стоп» (or the admin's page going away, or /users's row leaving the call): the copy or the whisper ends and the
 * session is closed. Closing is what matters to the log, so a relay that cannot be told (the call is over, rtpengine
 * restarted) does not keep it open. Answers the manager a whisper was for, whose page is to stop playing it, and
 * CALL_ENDED when the session's call is over: the row that left the call may unmount before the call's end reaches
 * the page as listenEnded, and the admin is told why all the same.
 */
export async function stopListening(
  db: Db,
  relay: MediaRelay | null,
  actor: Actor,
  input: unknown,
): Promise<{ whisperedTo: number | null; callEnded: string | null }> {
  requireAdmin(actor);
  const { sessionId } = parseInput(stopSchema, input);
  const [own] = await db
    .select({ endedAt: listenSessions.endedAt, callEndedAt: calls.endedAt })
    .from(listenSessions)
    .innerJoin(calls, eq(calls.id, listenSessions.callId))
    .where(and(eq(listenSessions.id, sessionId), eq(listenSessions.adminId, actor.id)));
  const callEnded = own?.callEndedAt ? CALL_ENDED : null;
  // His own session ended already (the call's end, another tab's «Слушать»): nothing left to stop.
  if (own?.endedAt) return { whisperedTo: null, callEnded };
  const session = await openSession(db, sessionId, { adminId: actor.id });
  await closeSession(db, relay, { id: sessionId, ...session });
  return { whisperedTo: session.kind === "whisper" ? session.managerId : null, callEnded };
}

const whisperSchema = z.object({
  managerId: idSchema,
  sdp: z
    .string({ error: "Нет предложения браузера" })
    .min(10, { error: "Нет предложения браузера" })
    .max(20_000, { error: "Слишком длинное предложение браузера" }),
});

/**
 * «Подсказать»: the admin's microphone (his browser's send-only offer) is published into the manager's call as a
 * party of its own, which only the manager's browser then subscribes to (`hearWhisper`): the client's leg never
 * carries it, and nothing is re-negotiated with either. Answers rtpengine's answer for the admin's browser.
 */
export async function startWhisper(db: Db, relay: MediaRelay | null, actor: Actor, input: unknown) {
  requireAdmin(actor);
  const { managerId, sdp } = parseInput(whisperSchema, input);
  checkBrowserSdp(sdp, "offer");
  const call = await liveCallOf(db, managerId);
  const ready = relayOrRefuse(relay);
  await endOwnSessions(db, ready, actor.id, call.id, "whisper");
  const [session] = await db
    .insert(listenSessions)
    .values({ adminId: actor.id, managerId, callId: call.id, kind: "whisper" })
    .returning({ id: listenSessions.id });
  const tag = `whisper-${session.id}`;
  try {
    const answer = await ask(ready, { command: "publish", "call-id": call.sipCallId, "from-tag": tag, sdp, ...TO_A_BROWSER, DTLS: "passive" });
    if (typeof answer.sdp !== "string") throw unavailable("rtpengine не прислал ответ");
    await db.update(listenSessions).set({ relayTag: tag }).where(eq(listenSessions.id, session.id));
    return { sessionId: session.id, managerId, sdp: answer.sdp };
  } catch (error) {
    await db
      .update(listenSessions)
      .set({ endedAt: sql`now()` })
      .where(eq(listenSessions.id, session.id));
    throw error;
  }
}

const hearSchema = z.object({ sessionId: bigIdSchema("Неверный идентификатор подсказки") });

/** The manager's page, told of a whisper without its offer (or asking again): its offer of the admin's voice. */
export async function hearWhisper(db: Db, relay: MediaRelay | null, actor: Actor, input: unknown) {
  const { sessionId } = parseInput(hearSchema, input);
  const session = await openSession(db, sessionId, { managerId: actor.id, kind: "whisper" });
  return { sdp: await subscribeManager(db, relay, sessionId, session) };
}

/**
 * The manager's offer of the admin's voice, made by the server as soon as the whisper is published, so that his
 * page gets it with the news and answers at once (issue 39: «Подсказать» heard within 1 s; the page's own `hear`
 * was one more round trip). Answers the manager it is for and the offer.
 */
export async function whisperOffer(db: Db, relay: MediaRelay | null, sessionId: number): Promise<{ managerId: number | null; sdp: string }> {
  const session = await openSession(db, sessionId, { kind: "whisper" });
  return { managerId: session.managerId, sdp: await subscribeManager(db, relay, sessionId, session) };
}

/** The manager's subscription to the whisper's published voice; one per session (a second replaces the first). */
async function subscribeManager(
  db: Db,
  relay: MediaRelay | null,
  sessionId: number,
  session: { relayTag: string | null; hearTag: string | null; sipCallId: string },
): Promise<string> {
  if (!session.relayTag) throw badRequest("Подсказка ещё не началась");
  const ready = relayOrRefuse(relay);
  // One subscription for the manager: a second `hear` (his page reloaded, told twice) replaces the first.
  if (session.hearTag) await dropParty(ready, session.sipCallId, session.hearTag).catch(() => {});
  const { sdp, tag } = await subscribe(ready, session.sipCallId, { "from-tag": session.relayTag, flags: ["generate mid"] });
  await db.update(listenSessions).set({ hearTag: tag }).where(eq(listenSessions.id, sessionId));
  return sdp;
}

/** The manager's browser's answer: the admin's voice starts flowing to him. */
export async function answerWhisper(db: Db, relay: MediaRelay | null, actor: Actor, input: unknown): Promise<void> {
  const { sessionId, sdp } = parseInput(answerSchema, input);
  checkBrowserSdp(sdp, "answer");
  const session = await openSession(db, sessionId, { managerId: actor.id, kind: "whisper" });
  await ask(relayOrRefuse(relay), { command: "subscribe answer", "call-id": session.sipCallId, "to-tag": session.hearTag, sdp });
}

/** An open session of this admin (or for this manager), with its call's Call-ID. */
async function openSession(db: Db, sessionId: number, whose: { adminId?: number; managerId?: number; kind?: "whisper" }) {
  const [session] = await db
    .select({
      kind: listenSessions.kind,
      managerId: listenSessions.managerId,
      relayTag: listenSessions.relayTag,
      hearTag: listenSessions.hearTag,
      sipCallId: sql<string>`${calls.sipCallId}`,
    })
    .from(listenSessions)
    .innerJoin(calls, eq(calls.id, listenSessions.callId))
    .where(
      and(
        eq(listenSessions.id, sessionId),
        isNull(listenSessions.endedAt),
        whose.adminId === undefined ? undefined : eq(listenSessions.adminId, whose.adminId),
        whose.managerId === undefined ? undefined : eq(listenSessions.managerId, whose.managerId),
        whose.kind === undefined ? undefined : eq(listenSessions.kind, whose.kind),
      ),
    );
  if (!session) throw badRequest(whose.kind === "whisper" ? "Подсказка уже завершена" : "Прослушивание уже завершено");
  return session;
}

/** This admin's open sessions of one kind on this call, ended (a second «Слушать» or «Подсказать» replaces the first). */
async function endOwnSessions(db: Db, relay: MediaRelay, adminId: number, callId: number, kind: "listen" | "whisper") {
  const open = await db
    .select(sessionColumns)
    .from(listenSessions)
    .innerJoin(calls, eq(calls.id, listenSessions.callId))
    .where(
      and(eq(listenSessions.adminId, adminId), eq(listenSessions.callId, callId), eq(listenSessions.kind, kind), isNull(listenSessions.endedAt)),
    );
  for (const session of open) await closeSession(db, relay, session);
  return open;
}
