import { sql } from "drizzle-orm";
import { bigint, bigserial, boolean, check, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { SCORE_ANSWERS, type ScoredCriterion } from "../../common/schemas/scoring";
import { calls } from "./calls";
import { filters } from "./filters";
import { users } from "./users";

export { SCORE_ANSWERS, type ScoredCriterion };

/**
 * A topic's scorecard (issue 39, decision 073): its criteria in order, each with a weight (1-100) and whether a «нет»
 * on it makes the call's score 0. A topic with no criteria has no scorecard and its calls are not scored.
 */
export const scorecardCriteria = pgTable(
  "scorecard_criteria",
  {
    id: serial("id").primaryKey(),
    filterId: integer("filter_id")
      .notNull()
      .references(() => filters.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    text: text("text").notNull(),
    weight: integer("weight").notNull(),
    critical: boolean("critical").notNull().default(false),
  },
  (t) => [
    index("scorecard_criteria_filter_id_idx").on(t.filterId, t.position),
    check("scorecard_criteria_weight", sql`${t.weight} between 1 and 100`),
  ],
);

export const DISPUTE_DECISIONS = ["accepted", "rejected"] as const;

/**
 * One call's score (decision 073): the answers as they were given, with each criterion's text, weight and
 * criticality copied in (a scorecard edited later changes no past score), and the score 0-100 they make. The
 * manager may dispute it once; an admin accepts (a rescore: its answers and score kept beside the original) or
 * rejects it with a reason. One score per call.
 */
export const callScores = pgTable(
  "call_scores",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    callId: bigint("call_id", { mode: "number" })
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    /** The call's manager and topic, copied from the call (the numbers group by them). */
    managerId: integer("manager_id").references(() => users.id, { onDelete: "set null" }),
    filterId: integer("filter_id").references(() => filters.id, { onDelete: "set null" }),
    scorerId: integer("scorer_id").references(() => users.id, { onDelete: "set null" }),
    scoredAt: timestamp("scored_at", { withTimezone: true }).notNull().defaultNow(),
    answers: jsonb("answers").$type<ScoredCriterion[]>().notNull(),
    score: integer("score").notNull(),
    comment: text("comment").notNull().default(""),
    disputedAt: timestamp("disputed_at", { withTimezone: true }),
    disputeComment: text("dispute_comment"),
    decision: text("decision", { enum: DISPUTE_DECISIONS }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    deciderId: integer("decider_id").references(() => users.id, { onDelete: "set null" }),
    decisionReason: text("decision_reason"),
    /** An accepted dispute's new answers and score; the score that counts is `rescore ?? score`. */
    rescoreAnswers: jsonb("rescore_answers").$type<ScoredCriterion[]>(),
    rescore: integer("rescore"),
  },
  (t) => [
    uniqueIndex("call_scores_call_id_idx").on(t.callId),
    index("call_scores_manager_id_scored_at_idx").on(t.managerId, t.scoredAt),
    index("call_scores_scored_at_idx").on(t.scoredAt),
    index("call_scores_open_disputes_idx")
      .on(t.disputedAt)
      .where(sql`disputed_at is not null and decision is null`),
    check("call_scores_score", sql`${t.score} between 0 and 100`),
  ],
);

export type CallScore = typeof callScores.$inferSelect;

/** A supervisor's comment pinned to a moment of a call (seconds from the recording's start). */
export const callComments = pgTable(
  "call_comments",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    callId: bigint("call_id", { mode: "number" })
      .notNull()
      .references(() => calls.id, { onDelete: "cascade" }),
    authorId: integer("author_id").references(() => users.id, { onDelete: "set null" }),
    atSeconds: integer("at_seconds").notNull(),
    text: text("text").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("call_comments_call_id_idx").on(t.callId, t.atSeconds), check("call_comments_at", sql`${t.atSeconds} >= 0`)],
);

export type CallComment = typeof callComments.$inferSelect;
