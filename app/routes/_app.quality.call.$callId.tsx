import type { SubmissionResult } from "@conform-to/react";
import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useSearchParams } from "@remix-run/react";
import { idFields } from "../../common/validation";
import { commentFormSchema, rejectFormSchema, rescoreFormSchema, type ScoredCriterion, scoreFormSchema } from "../../common/schemas/scoring";
import { actorOf, requireAdminUser } from "../auth.server";
import { formatTalkTime } from "../components/calls/ClientHistory";
import { ScoreBadge } from "../components/quality/ScoreBadge";
import { AnswerList, Decision, ScoreFormula } from "../components/quality/ScoreParts";
import { AnswerRadios, COMMENT_FORM, CommentForm, CommentList, ScorePlayer } from "../components/quality/ScoringParts";
import { ConfirmDelete } from "../components/ui/ConfirmAction";
import { actionMessage, FieldError, formProps, resultOf, textareaProps, unshownError, useSchemaForm } from "../components/ui/forms";
import { ServerMessage, useAnswerKey } from "../components/ui/Toasts";
import { actionError, isAppError } from "../errors.server";
import { formIntent, readFields, readFormBody, submitForm, unknownIntent } from "../forms.server";
import { formatDateTime } from "../lib/format";
import { addCallComment, callSheet, type CallSheet, decideDispute, deleteCallComment, scoreCall } from "../quality.server";
import { redirectWithToast } from "../toast.server";
import { callDirectionText } from "../../common/call-direction";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";

export const meta: MetaFunction = () => [{ title: "Оценка звонка" }];

/**
 * /quality/call/:callId: scoring one call (admins; issue 39, decision 073): its recording, comments pinned to its
 * moments, the scorecard's answers, and the manager's dispute with its decision.
 */
export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  try {
    return await callSheet(context.deps.db, actorOf(user), params.callId);
  } catch (error) {
    if (isAppError(error) && (error.status === 404 || error.status === 400)) throw new Response(error.message, { status: 404 });
    throw error;
  }
}

const SCORE_FORM = "score";
const REJECT_FORM = "reject";
const RESCORE_FORM = "rescore";

export async function action({ request, params, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const actor = actorOf(user);
  const { db } = context.deps;
  const form = await readFormBody(request);
  const page = `/quality/call/${encodeURIComponent(params.callId ?? "")}`;
  try {
    switch (formIntent(form)) {
      case "comment-add":
        return submitForm(form, { name: COMMENT_FORM, schema: commentFormSchema }, async (_value, fields) => {
          await addCallComment(db, actor, params.callId, fields);
          return redirectWithToast(page, { type: "success", message: "Комментарий добавлен" });
        });
      case "comment-delete": {
        await deleteCallComment(db, actor, readFields(form, idFields).id);
        return redirectWithToast(page, { type: "success", message: "Комментарий удалён" });
      }
      case "score-save": {
        const sheet = await callSheet(db, actor, params.callId);
        return submitForm(form, { name: SCORE_FORM, schema: scoreFormSchema(sheet.criteria.map((c) => c.id)) }, async (value) => {
          await scoreCall(db, actor, sheet.call.id, value);
          return redirectWithToast(page, { type: "success", message: "Оценка сохранена" });
        });
      }
      case "dispute-reject": {
        const scoreId = (await callSheet(db, actor, params.callId)).score?.id;
        return submitForm(form, { name: REJECT_FORM, schema: rejectFormSchema }, async ({ reason }) => {
          await decideDispute(db, actor, scoreId, { decision: "reject", reason });
          return redirectWithToast(page, { type: "success", message: "Спор отклонён" });
        });
      }
      case "dispute-accept": {
        const score = (await callSheet(db, actor, params.callId)).score;
        return submitForm(
          form,
          { name: RESCORE_FORM, schema: rescoreFormSchema((score?.answers ?? []).map((a) => a.id)) },
          async ({ answers, reason }) => {
            await decideDispute(db, actor, score?.id, { decision: "accept", reason, answers });
            return redirectWithToast(page, { type: "success", message: "Оценка пересмотрена" });
          },
        );
      }
      default:
        return actionError(unknownIntent());
    }
  } catch (error) {
    return actionError(error);
  }
}

export default function ScoreCallPage() {
  const sheet = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const answerKey = useAnswerKey(answer);
  const message = actionMessage(answer);
  const { call, score } = sheet;
  const [search] = useSearchParams();
  const deleting = sheet.comments.find((c) => String(c.id) === search.get("deleteComment"));
  return (
    <section className="max-w-3xl space-y-4">
      <ConfirmDelete
        row={deleting}
        title="Удалить комментарий?"
        closeHref={`/quality/call/${call.id}`}
        intent="comment-delete"
        testId="delete-comment"
      >
        Комментарий на {deleting?.at} «{deleting?.text}» будет удалён.
      </ConfirmDelete>
      <p className="text-sm">
        <Link to="/quality" className="text-blue-600 hover:underline dark:text-blue-400">
          ← Оценка звонков
        </Link>
      </p>
      <h1 className="page-title">Оценка звонка</h1>
      {message ? <ServerMessage key={answerKey} kind="error" message={message} /> : null}
      <div className="card space-y-3" data-testid="scored-call">
        <p className="text-sm">
          <strong>{call.manager ?? "Менеджер удалён"}</strong>
          {`${call.topic ? ` · ${call.topic}` : ""} · ${callDirectionText(call.direction)} · ${call.number}`}
        </p>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <time dateTime={call.startedAt}>{formatDateTime(call.startedAt)}</time> · разговор {formatTalkTime(call.talkSeconds)}
        </p>
        {call.playable ? (
          <ScorePlayer callId={call.id} />
        ) : (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {call.recordingNote ? `Запись: ${call.recordingNote}.` : "Этот звонок не записывался."}
          </p>
        )}
      </div>
      <div className="card space-y-3">
        <h2 className="text-lg font-semibold">Комментарии к моментам</h2>
        <CommentList callId={call.id} comments={sheet.comments} playable={call.playable} deletable />
        <CommentForm lastResult={resultOf(answer, COMMENT_FORM)} playable={call.playable} />
      </div>
      {score ? <ScoreDone sheet={sheet} answer={answer} /> : <ScoreForm sheet={sheet} lastResult={resultOf(answer, SCORE_FORM)} />}
    </section>
  );
}

function ScoreForm({ sheet, lastResult }: { sheet: CallSheet; lastResult: SubmissionResult<string[]> | null }) {
  const ids = sheet.criteria.map((c) => c.id);
  const [form, fields] = useSchemaForm(scoreFormSchema(ids), {
    id: `score-${sheet.call.id}`,
    lastResult,
    defaultValue: { answers: {}, comment: "" },
  });
  const answers = fields.answers.getFieldset();
  const answerKey = useAnswerKey(lastResult);
  const unshown = unshownError(lastResult, [...ids.map((id) => `answers.${id}`), "comment"]);
  if (sheet.criteria.length === 0) {
    return (
      <div className="card text-sm" data-testid="no-scorecard">
        У тематики этого звонка нет оценочного листа.{" "}
        {sheet.call.filterId ? (
          <Link to={`/quality/scorecard/${sheet.call.filterId}`} className="text-blue-600 hover:underline dark:text-blue-400">
            Заполнить оценочный лист
          </Link>
        ) : null}
      </div>
    );
  }
  return (
    <Form method="post" preventScrollReset {...formProps(form)} className="card space-y-3" data-testid="score-form">
      <h2 className="text-lg font-semibold">Оценочный лист</h2>
      <ScoreFormula />
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      {sheet.criteria.map((c) => (
        <AnswerRadios key={c.id} criterion={c} field={answers[String(c.id)]} />
      ))}
      <div>
        <label className="label" htmlFor={fields.comment.id}>
          Общий комментарий
        </label>
        <textarea {...textareaProps(fields.comment)} rows={3} className="input" />
        <FieldError field={fields.comment} />
      </div>
      <div className="flex justify-end">
        <button type="submit" name="intent" value="score-save" className="btn-primary">
          Сохранить оценку
        </button>
      </div>
    </Form>
  );
}

/** A call already scored: its score and answers, the manager's dispute, and the decision (or the forms to make it). */
function ScoreDone({ sheet, answer }: { sheet: CallSheet; answer: unknown }) {
  const score = sheet.score!;
  return (
    <div className="card space-y-3" data-testid="score-done">
      <div className="flex flex-wrap items-center gap-2">
        <h2 className="text-lg font-semibold">Оценка</h2>
        <ScoreBadge score={score.score} testId="score-value" />
        {score.decision?.rescore != null ? (
          <span className="text-sm">
            → пересмотрена: <ScoreBadge score={score.decision.rescore} testId="rescore-value" />
          </span>
        ) : null}
      </div>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        {score.scorer ?? "Администратор"} · <time dateTime={score.scoredAt}>{formatDateTime(score.scoredAt)}</time>
      </p>
      <AnswerList answers={score.answers} testId="score-answers" />
      {score.comment ? <p className="whitespace-pre-wrap text-sm">{score.comment}</p> : null}
      {score.dispute ? (
        <div className="space-y-2 rounded-md border border-amber-300 p-3 dark:border-amber-700" data-testid="dispute">
          <p className="text-sm font-medium">
            Менеджер оспорил оценку <time dateTime={score.dispute.at}>{formatDateTime(score.dispute.at)}</time>
          </p>
          <p className="whitespace-pre-wrap text-sm">{score.dispute.comment}</p>
          {score.decision ? <Decision decision={score.decision} /> : <DecideForms answers={score.answers} answer={answer} scoreId={score.id} />}
        </div>
      ) : null}
    </div>
  );
}

function DecideForms({ answers, answer, scoreId }: { answers: ScoredCriterion[]; answer: unknown; scoreId: number }) {
  const ids = answers.map((a) => a.id);
  const rejectResult = resultOf(answer, REJECT_FORM);
  const rescoreResult = resultOf(answer, RESCORE_FORM);
  const [reject, rejectFields] = useSchemaForm(rejectFormSchema, { id: `reject-${scoreId}`, lastResult: rejectResult, defaultValue: { reason: "" } });
  const [rescore, rescoreFields] = useSchemaForm(rescoreFormSchema(ids), {
    id: `rescore-${scoreId}`,
    lastResult: rescoreResult,
    defaultValue: { answers: Object.fromEntries(answers.map((a) => [String(a.id), a.answer])), reason: "" },
  });
  const fieldset = rescoreFields.answers.getFieldset();
  return (
    <div className="grid gap-4 desk:grid-cols-2">
      <Form method="post" preventScrollReset {...formProps(rescore)} className="space-y-2" data-testid="rescore-form">
        <h3 className="font-medium">Пересмотреть</h3>
        {answers.map((a) => (
          <AnswerRadios key={a.id} criterion={a} field={fieldset[String(a.id)]} />
        ))}
        <label className="label" htmlFor={rescoreFields.reason.id}>
          Почему (необязательно)
        </label>
        <textarea {...textareaProps(rescoreFields.reason)} rows={2} className="input" />
        <FieldError field={rescoreFields.reason} />
        <button type="submit" name="intent" value="dispute-accept" className="btn-primary">
          Принять спор и пересмотреть
        </button>
      </Form>
      <Form method="post" preventScrollReset {...formProps(reject)} className="space-y-2" data-testid="reject-form">
        <h3 className="font-medium">Отклонить</h3>
        <label className="label" htmlFor={rejectFields.reason.id}>
          Причина отказа
        </label>
        <textarea {...textareaProps(rejectFields.reason)} rows={3} className="input" />
        <FieldError field={rejectFields.reason} />
        <button type="submit" name="intent" value="dispute-reject" className="btn-secondary">
          Отклонить спор
        </button>
      </Form>
    </div>
  );
}
