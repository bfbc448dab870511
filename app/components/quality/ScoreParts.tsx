import { ANSWER_TEXT, type ScoredCriterion } from "../../../common/score-answers";
import { formatDateTime } from "../../lib/format";
import type { ScoreView } from "../../quality.server";

/** How a score is worked out (decision 073), said where the scorecard is edited and a call is scored. */
export function ScoreFormula() {
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="score-formula">
      Оценка звонка от 0 до 100: сумма весов пунктов с ответом «да» плюс половина весов пунктов «частично», делённая на сумму весов всех применимых
      пунктов (пункты «не применимо» не считаются). «Нет» по критичному пункту — оценка 0.
    </p>
  );
}

/** The answers of a score, criterion by criterion. */
export function AnswerList({ answers, testId }: { answers: ScoredCriterion[]; testId?: string }) {
  return (
    <ul className="space-y-1 text-sm" data-testid={testId}>
      {answers.map((a) => (
        <li key={a.id} className="flex justify-between gap-3 border-b border-slate-100 pb-1 last:border-b-0 dark:border-slate-800">
          <span>
            {a.text}
            <span className="text-slate-600 dark:text-slate-400">
              {" "}
              · вес {a.weight}
              {a.critical ? " · критичный" : ""}
            </span>
          </span>
          <span className={`shrink-0 font-medium ${a.answer === "no" ? "text-red-700 dark:text-red-400" : ""}`}>{ANSWER_TEXT[a.answer]}</span>
        </li>
      ))}
    </ul>
  );
}

/** An admin's decision on a dispute: accepted with the rescore's answers, or rejected with the reason. */
export function Decision({ decision }: { decision: NonNullable<ScoreView["decision"]> }) {
  return (
    <div className="space-y-2 text-sm" data-testid="decision">
      <p>
        <strong>{decision.decision === "accepted" ? "Спор принят, оценка пересмотрена" : "Спор отклонён"}</strong> · {decision.by ?? "Администратор"}{" "}
        · <time dateTime={decision.at}>{formatDateTime(decision.at)}</time>
      </p>
      {decision.reason ? <p className="whitespace-pre-wrap">{decision.reason}</p> : null}
      {decision.answers ? <AnswerList answers={decision.answers} testId="rescore-answers" /> : null}
    </div>
  );
}
