import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { disputeSchema } from "../../../common/schemas/scoring";
import { bigIdSchema } from "../../../common/validation";
import { formatDateTime } from "../../lib/format";
import type { CallSummary, CommentView, ScoreView } from "../../quality.server";
import { formatTalkTime } from "../calls/ClientHistory";
import { FieldError, formProps, textareaProps, unshownError, useSchemaForm } from "../ui/forms";
import { ServerMessage, useAnswerKey } from "../ui/Toasts";
import { ScoreBadge } from "./ScoreBadge";
import { AnswerList, Decision } from "./ScoreParts";
import { CommentList, ScorePlayer } from "./ScoringParts";
import { callDirectionText } from "../../../common/call-direction";

/** The manager's dispute form: his comment, and which score (its id, checked again by core: his own, once). */
export const DisputeFormSchema = disputeSchema.extend({ id: bigIdSchema("Неверный идентификатор оценки") });
export const disputeFormName = (fields: Record<string, unknown>) => `dispute-${String(fields.id ?? "")}`;

type MyScore = ScoreView & { call: CallSummary; comments: CommentView[] };

/**
 * «Мои оценки» on the manager's /profile (issue 39): each scored call with its score, answers, comments pinned to
 * its moments (a player where the topic lets him hear his recordings), and his one dispute or its decision.
 */
export function MyScores({ scores, answer }: { scores: MyScore[]; answer: unknown }) {
  return (
    <div className="card space-y-4" data-testid="my-scores">
      <h2 className="text-lg font-semibold">Мои оценки</h2>
      {scores.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="my-scores-empty">
          Ваши звонки ещё не оценивали.
        </p>
      ) : (
        <ol className="space-y-4">
          {scores.map((s) => (
            <li
              key={s.id}
              id={`score-${s.callId}`}
              className="space-y-3 border-t border-slate-200 pt-3 first:border-t-0 first:pt-0 dark:border-slate-700"
              data-testid="my-score"
            >
              <div className="flex flex-wrap items-center gap-2">
                <ScoreBadge score={s.finalScore} testId="my-score-value" />
                {s.decision?.rescore != null ? <span className="text-sm text-slate-600 dark:text-slate-400">(было {s.score})</span> : null}
                <span className="text-sm">
                  <time dateTime={s.call.startedAt}>{formatDateTime(s.call.startedAt)}</time>
                  {`${s.topic ? ` · ${s.topic}` : ""} · ${callDirectionText(s.call.direction)} · ${s.call.number} · ${formatTalkTime(s.call.talkSeconds)}`}
                </span>
              </div>
              <p className="text-xs text-slate-600 dark:text-slate-400">
                Оценил {s.scorer ?? "администратор"} <time dateTime={s.scoredAt}>{formatDateTime(s.scoredAt)}</time>
              </p>
              {s.call.playable ? <ScorePlayer callId={s.callId} /> : null}
              <AnswerList answers={s.answers} />
              {s.comment ? <p className="whitespace-pre-wrap text-sm">{s.comment}</p> : null}
              <CommentList callId={s.callId} comments={s.comments} playable={s.call.playable} />
              {s.dispute ? (
                <div className="space-y-2 rounded-md border border-amber-300 p-3 text-sm dark:border-amber-700" data-testid="my-dispute">
                  <RefusedAgain result={resultFor(answer, s.id)} />
                  <p>
                    <strong>Вы оспорили оценку</strong> <time dateTime={s.dispute.at}>{formatDateTime(s.dispute.at)}</time>
                  </p>
                  <p className="whitespace-pre-wrap">{s.dispute.comment}</p>
                  {s.decision ? (
                    <Decision decision={s.decision} />
                  ) : (
                    <p className="text-slate-600 dark:text-slate-400">Ждёт решения администратора.</p>
                  )}
                </div>
              ) : (
                <DisputeForm scoreId={s.id} lastResult={resultFor(answer, s.id)} />
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function resultFor(answer: unknown, id: number): SubmissionResult<string[]> | null {
  if (!answer || typeof answer !== "object" || !("form" in answer) || !("result" in answer)) return null;
  return answer.form === `dispute-${id}` ? (answer.result as SubmissionResult<string[]>) : null;
}

/** A dispute sent again from a page older than the first (another tab): core's refusal, where the form was. */
function RefusedAgain({ result }: { result: SubmissionResult<string[]> | null }) {
  const answerKey = useAnswerKey(result);
  const message = unshownError(result, []);
  return message ? <ServerMessage key={answerKey} kind="error" message={message} /> : null;
}

function DisputeForm({ scoreId, lastResult }: { scoreId: number; lastResult: SubmissionResult<string[]> | null }) {
  const [form, fields] = useSchemaForm(DisputeFormSchema, {
    id: `dispute-${scoreId}`,
    lastResult,
    defaultValue: { id: scoreId, comment: "" },
  });
  const answerKey = useAnswerKey(lastResult);
  const unshown = unshownError(lastResult, ["comment"]);
  return (
    <Form method="post" preventScrollReset {...formProps(form)} className="space-y-2" data-testid="dispute-form">
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      <input type="hidden" name="id" value={scoreId} />
      <label className="label" htmlFor={fields.comment.id}>
        Не согласны? Оспорить оценку можно один раз
      </label>
      <textarea
        {...textareaProps(fields.comment)}
        rows={2}
        className="input"
        placeholder="Что в оценке неверно (можно указать момент, например 0:40)"
      />
      <FieldError field={fields.comment} />
      <button type="submit" name="intent" value="dispute" className="btn-secondary">
        Оспорить оценку
      </button>
    </Form>
  );
}
