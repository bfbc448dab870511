// A criterion's answers and their words, without zod: the pages that only show scores (the lead panel's and the
// dashboard's call history) import this, not the schemas (common/schemas/scoring.ts re-exports it). Decision 088.

/** A criterion's answer: да, нет, частично, не применимо. */
export const SCORE_ANSWERS = ["yes", "no", "partly", "na"] as const;
export type ScoreAnswer = (typeof SCORE_ANSWERS)[number];
export const ANSWER_TEXT: Record<ScoreAnswer, string> = { yes: "да", no: "нет", partly: "частично", na: "не применимо" };

/** A criterion as a score keeps it: copied from the scorecard with its answer. */
export interface ScoredCriterion {
  /** The criterion's id when it was scored (a rescore's answers name it; it may since have left the scorecard). */
  id: number;
  text: string;
  weight: number;
  critical: boolean;
  answer: ScoreAnswer;
}
