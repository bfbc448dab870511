// Server code for call scoring (issue 39 §3, decision 073): /quality, its scorecard editor and scoring screen, and
// the manager's scores on /profile.
export { getScorecard, listScorecards, saveScorecard } from "#server/core/scoring/scorecards";
export { addCallComment, callSheet, decideDispute, deleteCallComment, disputeScore, listScores, scoreCall } from "#server/core/scoring/scores";
export type { CallSheet, CallSummary, CommentView, ScoreView } from "#server/core/scoring/scores";
export { scoreNext, scoreNumbers } from "#server/core/scoring/numbers";
export type { NextForManager, ScoreNumbers } from "#server/core/scoring/numbers";
