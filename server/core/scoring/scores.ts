import { and, desc, eq, inArray, isNotNull, isNull, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import * as z from "zod";
import type { Db } from "../../../db/client";
import { callComments, callScores, calls, filters, users, type CallDirection, type CallScore, type ScoredCriterion } from "../../../db/schema";
import {
  ANSWER_TEXT,
  callCommentSchema,
  decisionSchema,
  disputeSchema,
  formatMoment,
  type ScoreAnswer,
  scoreInputSchema,
  scoreOf,
} from "../../../common/schemas/scoring";
import { type Actor, requireAdmin } from "../actor";
import { badRequest, conflict, forbidden, notFound } from "../errors";
import { mayHear, recordingNote } from "../recordings/recordings";
import { bigIdSchema, idSchema, parseInput } from "../validation";
import { criteriaOf, type ScorecardCriterion } from "./scorecards";

export { callCommentSchema, decisionSchema, disputeSchema, scoreInputSchema };

const callIdSchema = bigIdSchema("Неверный идентификатор звонка");
const scoreIdSchema = bigIdSchema("Неверный идентификатор оценки");

const callNotFound = () => notFound("Звонок не найден", "call_not_found");
const scoreNotFound = () => notFound("Оценка не найдена", "score_not_found");
/** A manager asking for another manager's call or score. */
export const notYourCall = () => forbidden("Это не ваш звонок: его оценку видит только он сам и администраторы", "score_forbidden");
export const ALREADY_DISPUTED = "Оценку можно оспорить только один раз: вы её уже оспорили";

export interface CommentView {
  id: number;
  atSeconds: number;
  at: string;
  text: string;
  author: string | null;
  createdAt: string;
}

export interface CallSummary {
  id: number;
  startedAt: string;
  number: string;
  direction: CallDirection;
  talkSeconds: number;
  managerId: number | null;
  manager: string | null;
  filterId: number | null;
  topic: string | null;
  playable: boolean;
  recordingNote: string | null;
  recordingMs: number | null;
}

export interface ScoreView {
  id: number;
  callId: number;
  managerId: number | null;
  manager: string | null;
  filterId: number | null;
  topic: string | null;
  scorer: string | null;
  scoredAt: string;
  answers: ScoredCriterion[];
  score: number;
  comment: string;
  dispute: { at: string; comment: string } | null;
  decision: {
    decision: "accepted" | "rejected";
    at: string;
    by: string | null;
    reason: string;
    answers: ScoredCriterion[] | null;
    rescore: number | null;
  } | null;
  /** The score that counts: the rescore of an accepted dispute, else the score. */
  finalScore: number;
}

export interface CallSheet {
  call: CallSummary;
  /** The topic's scorecard now (what a new score answers; empty: the topic has none). */
  criteria: ScorecardCriterion[];
  score: ScoreView | null;
  comments: CommentView[];
}

const manager = alias(users, "manager");
const scorer = alias(users, "scorer");
const decider = alias(users, "decider");
const nameOf = (u: { login: string | null; displayName: string | null }) => (u.login === null ? null : u.displayName || u.login);

async function readCall(db: Db, actor: Actor, callId: number): Promise<CallSummary> {
  const call = (await summaries(db, actor, [callId])).get(callId);
  if (!call) throw callNotFound();
  if (!actor.isAdmin && call.managerId !== actor.id) throw notYourCall();
  return call;
}

async function commentsOf(db: Db, callIds: number[]): Promise<Map<number, CommentView[]>> {
  const byCall = new Map<number, CommentView[]>();
  if (callIds.length === 0) return byCall;
  const author = alias(users, "author");
  const rows = await db
    .select({ comment: callComments, login: author.login, displayName: author.displayName })
    .from(callComments)
    .leftJoin(author, eq(author.id, callComments.authorId))
    .where(inArray(callComments.callId, callIds))
    .orderBy(callComments.atSeconds, callComments.id);
  for (const { comment, login, displayName } of rows) {
    const list = byCall.get(comment.callId) ?? [];
    list.push({
      id: comment.id,
      atSeconds: comment.atSeconds,
      at: formatMoment(comment.atSeconds),
      text: comment.text,
      author: nameOf({ login, displayName }),
      createdAt: comment.createdAt.toISOString(),
    });
    byCall.set(comment.callId, list);
  }
  return byCall;
}

async function readScores(db: Db, where: SQL | undefined, limit = 200): Promise<ScoreView[]> {
  const rows = await db
    .select({
      score: callScores,
      managerLogin: manager.login,
      managerName: manager.displayName,
      scorerLogin: scorer.login,
      scorerName: scorer.displayName,
      deciderLogin: decider.login,
      deciderName: decider.displayName,
      topic: filters.name,
    })
    .from(callScores)
    .leftJoin(manager, eq(manager.id, callScores.managerId))
    .leftJoin(scorer, eq(scorer.id, callScores.scorerId))
    .leftJoin(decider, eq(decider.id, callScores.deciderId))
    .leftJoin(filters, eq(filters.id, callScores.filterId))
    .where(where)
    .orderBy(desc(callScores.scoredAt), desc(callScores.id))
    .limit(limit);
  return rows.map((r) =>
    viewOf(r.score, {
      manager: nameOf({ login: r.managerLogin, displayName: r.managerName }),
      scorer: nameOf({ login: r.scorerLogin, displayName: r.scorerName }),
      decider: nameOf({ login: r.deciderLogin, displayName: r.deciderName }),
      topic: r.topic,
    }),
  );
}

function viewOf(s: CallScore, names: { manager: string | null; scorer: string | null; decider: string | null; topic: string | null }): ScoreView {
  return {
    id: s.id,
    callId: s.callId,
    managerId: s.managerId,
    manager: names.manager,
    filterId: s.filterId,
    topic: names.topic,
    scorer: names.scorer,
    scoredAt: s.scoredAt.toISOString(),
    answers: s.answers,
    score: s.score,
    comment: s.comment,
    dispute: s.disputedAt ? { at: s.disputedAt.toISOString(), comment: s.disputeComment ?? "" } : null,
    decision:
      s.decision && s.decidedAt
        ? {
            decision: s.decision,
            at: s.decidedAt.toISOString(),
            by: names.decider,
            reason: s.decisionReason ?? "",
            answers: s.rescoreAnswers,
            rescore: s.rescore,
          }
        : null,
    finalScore: s.rescore ?? s.score,
  };
}

/**
 * One call for the scoring screen and the API: the call, its topic's scorecard, its score (with the dispute and the
 * decision) and its comments. An admin any call; a manager his own only.
 */
export async function callSheet(db: Db, actor: Actor, rawCallId: unknown): Promise<CallSheet> {
  const callId = parseInput(callIdSchema, rawCallId);
  const call = await readCall(db, actor, callId);
  const [criteria, [score], comments] = await Promise.all([
    actor.isAdmin && call.filterId !== null ? criteriaOf(db, call.filterId) : Promise.resolve([]),
    readScores(db, eq(callScores.callId, callId), 1),
    commentsOf(db, [callId]),
  ]);
  return { call, criteria, score: score ?? null, comments: comments.get(callId) ?? [] };
}

/** The answers for these criteria, each one answered, nothing else: their copies with the answers, and the score. */
function answered(
  criteria: Array<Omit<ScoredCriterion, "answer">>,
  answers: Record<string, ScoreAnswer>,
): { answers: ScoredCriterion[]; score: number } {
  const known = new Set(criteria.map((c) => String(c.id)));
  const stranger = Object.keys(answers).find((id) => !known.has(id));
  if (stranger !== undefined) throw badRequest(`В оценочном листе нет пункта с id ${stranger}`, "unknown_criterion");
  const missing = criteria.find((c) => answers[String(c.id)] === undefined);
  if (missing) throw badRequest(`Ответьте на пункт «${missing.text}»`, "criterion_unanswered");
  const list = criteria.map((c) => ({ id: c.id, text: c.text, weight: c.weight, critical: c.critical, answer: answers[String(c.id)] }));
  const score = scoreOf(list);
  if (score === null) throw badRequest("Все пункты «не применимо»: оценивать нечего", "nothing_applicable");
  return { answers: list, score };
}

/** Scores a call against its topic's scorecard (admins). One score per call: a later change goes through a dispute. */
export async function scoreCall(db: Db, actor: Actor, rawCallId: unknown, input: unknown): Promise<CallSheet> {
  requireAdmin(actor);
  const callId = parseInput(callIdSchema, rawCallId);
  const { answers, comment } = parseInput(scoreInputSchema, input);
  const [call] = await db
    .select({ userId: calls.userId, filterId: calls.filterId, answeredAt: calls.answeredAt })
    .from(calls)
    .where(eq(calls.id, callId));
  if (!call) throw callNotFound();
  if (!call.answeredAt) throw badRequest("Разговора не было: оценивать нечего", "call_not_answered");
  const criteria = call.filterId === null ? [] : await criteriaOf(db, call.filterId);
  if (criteria.length === 0)
    throw badRequest("У тематики этого звонка нет оценочного листа: заполните его на странице «Оценка звонков»", "no_scorecard");
  const scored = answered(criteria, answers);
  const inserted = await db
    .insert(callScores)
    .values({ callId, managerId: call.userId, filterId: call.filterId, scorerId: actor.id, answers: scored.answers, score: scored.score, comment })
    .onConflictDoNothing({ target: callScores.callId })
    .returning({ id: callScores.id });
  if (inserted.length === 0) throw conflict("Этот звонок уже оценён: изменить оценку можно только по спору менеджера", "already_scored");
  return callSheet(db, actor, callId);
}

/** A comment pinned to a moment of the call (admins); a moment past the recording's end is refused. */
export async function addCallComment(db: Db, actor: Actor, rawCallId: unknown, input: unknown): Promise<CommentView[]> {
  requireAdmin(actor);
  const callId = parseInput(callIdSchema, rawCallId);
  const { at, text } = parseInput(callCommentSchema, input);
  const [call] = await db.select({ recording: calls.recording, recordingMs: calls.recordingMs }).from(calls).where(eq(calls.id, callId));
  if (!call) throw callNotFound();
  if (call.recording === "ready" && call.recordingMs !== null && at > Math.ceil(call.recordingMs / 1000)) {
    throw badRequest(`Момент ${formatMoment(at)} позже конца записи (${formatMoment(Math.ceil(call.recordingMs / 1000))})`, "moment_after_end");
  }
  await db.insert(callComments).values({ callId, authorId: actor.id, atSeconds: at, text });
  return (await commentsOf(db, [callId])).get(callId) ?? [];
}

/** Removes a comment (admins). */
export async function deleteCallComment(db: Db, actor: Actor, rawCommentId: unknown): Promise<{ callId: number }> {
  requireAdmin(actor);
  const id = parseInput(bigIdSchema("Неверный идентификатор комментария"), rawCommentId);
  const [gone] = await db.delete(callComments).where(eq(callComments.id, id)).returning({ callId: callComments.callId });
  if (!gone) throw notFound("Комментарий не найден", "comment_not_found");
  return gone;
}

async function scoreRow(db: Db, scoreId: number): Promise<CallScore> {
  const [row] = await db.select().from(callScores).where(eq(callScores.id, scoreId));
  if (!row) throw scoreNotFound();
  return row;
}

async function oneScore(db: Db, scoreId: number): Promise<ScoreView> {
  const [view] = await readScores(db, eq(callScores.id, scoreId), 1);
  if (!view) throw scoreNotFound();
  return view;
}

/** The manager disputes his own score, once, saying why. */
export async function disputeScore(db: Db, actor: Actor, rawScoreId: unknown, input: unknown): Promise<ScoreView> {
  const scoreId = parseInput(scoreIdSchema, rawScoreId);
  const row = await scoreRow(db, scoreId);
  if (row.managerId !== actor.id) {
    throw actor.isAdmin ? forbidden("Оспорить оценку может только менеджер, чей это звонок", "score_forbidden") : notYourCall();
  }
  const { comment } = parseInput(disputeSchema, input);
  // Once: the row changes only while it has no dispute, so two posts at once make one dispute.
  const changed = await db
    .update(callScores)
    .set({ disputedAt: new Date(), disputeComment: comment })
    .where(and(eq(callScores.id, scoreId), isNull(callScores.disputedAt)))
    .returning({ id: callScores.id });
  if (changed.length === 0) throw conflict(ALREADY_DISPUTED, "already_disputed");
  return oneScore(db, scoreId);
}

/**
 * An admin's decision on a dispute: accept with new answers (the rescore, against the criteria the call was scored
 * on) or reject with a reason. The original score stays; both are shown.
 */
export async function decideDispute(db: Db, actor: Actor, rawScoreId: unknown, input: unknown): Promise<ScoreView> {
  requireAdmin(actor);
  const scoreId = parseInput(scoreIdSchema, rawScoreId);
  const decision = parseInput(decisionSchema, input);
  const row = await scoreRow(db, scoreId);
  if (!row.disputedAt) throw conflict("Эту оценку не оспаривали: решать нечего", "not_disputed");
  if (row.decision) throw conflict("По этому спору уже есть решение", "already_decided");
  const rescored = decision.decision === "accept" ? answered(row.answers, decision.answers ?? {}) : null;
  const changed = await db
    .update(callScores)
    .set({
      decision: rescored ? "accepted" : "rejected",
      decidedAt: new Date(),
      deciderId: actor.id,
      decisionReason: decision.reason,
      rescoreAnswers: rescored?.answers ?? null,
      rescore: rescored?.score ?? null,
    })
    .where(and(eq(callScores.id, scoreId), isNull(callScores.decision)))
    .returning({ id: callScores.id });
  if (changed.length === 0) throw conflict("По этому спору уже есть решение", "already_decided");
  return oneScore(db, scoreId);
}

export const scoreListQuerySchema = z.object({
  managerId: idSchema.optional(),
  filterId: idSchema.optional(),
  disputed: z.enum(["open", "any"], { error: "disputed: open (ждут решения) или any (все оспоренные)" }).optional(),
});

/**
 * Scores, newest first, each with its call's comments: an admin's of anyone (by manager, topic, open disputes); a
 * manager's of his own calls only.
 */
export async function listScores(
  db: Db,
  actor: Actor,
  rawQuery: unknown = {},
): Promise<Array<ScoreView & { call: CallSummary; comments: CommentView[] }>> {
  const query = parseInput(scoreListQuerySchema, rawQuery);
  if (!actor.isAdmin && query.managerId !== undefined && query.managerId !== actor.id) throw notYourCall();
  const managerId = actor.isAdmin ? query.managerId : actor.id;
  const where = and(
    managerId !== undefined ? eq(callScores.managerId, managerId) : undefined,
    query.filterId !== undefined ? eq(callScores.filterId, query.filterId) : undefined,
    query.disputed === "open" ? and(isNotNull(callScores.disputedAt), isNull(callScores.decision)) : undefined,
    query.disputed === "any" ? isNotNull(callScores.disputedAt) : undefined,
  );
  const scores = await readScores(db, where, 100);
  const ids = scores.map((s) => s.callId);
  const [comments, callsById] = await Promise.all([commentsOf(db, ids), summaries(db, actor, ids)]);
  return scores.flatMap((s) => {
    const call = callsById.get(s.callId);
    return call ? [{ ...s, call, comments: comments.get(s.callId) ?? [] }] : [];
  });
}

async function summaries(db: Db, actor: Actor, ids: number[]): Promise<Map<number, CallSummary>> {
  const found = new Map<number, CallSummary>();
  if (ids.length === 0) return found;
  const rows = await db
    .select({
      call: calls,
      managerLogin: manager.login,
      managerName: manager.displayName,
      topic: filters.name,
      managersHear: filters.managersHearRecordings,
    })
    .from(calls)
    .leftJoin(manager, eq(manager.id, calls.userId))
    .leftJoin(filters, eq(filters.id, calls.filterId))
    .where(inArray(calls.id, ids));
  for (const { call, ...r } of rows) {
    found.set(call.id, {
      id: call.id,
      startedAt: call.startedAt.toISOString(),
      number: call.number,
      direction: call.direction,
      talkSeconds: call.talkSeconds,
      managerId: call.userId,
      manager: nameOf({ login: r.managerLogin, displayName: r.managerName }),
      filterId: call.filterId,
      topic: r.topic,
      playable: mayHear(actor, call, r.managersHear),
      recordingNote: recordingNote(call),
      recordingMs: call.recording === "ready" ? call.recordingMs : null,
    });
  }
  return found;
}

/** A criterion's answer as a person reads it. */
export const answerText = (answer: ScoreAnswer) => ANSWER_TEXT[answer];
