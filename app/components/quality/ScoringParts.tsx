import type { SubmissionResult } from "@conform-to/react";
import { Form, Link } from "@remix-run/react";
import { useRef } from "react";
import { ANSWER_TEXT, commentFormSchema, SCORE_ANSWERS, type ScoredCriterion } from "../../../common/schemas/scoring";
import type { CommentView } from "../../quality.server";
import { type AnyField, FieldError, formProps, inputProps, unshownError, useSchemaForm, TextField } from "../ui/forms";
import { useHydrated } from "../ui/hydrated";
import { RecordingPlayer } from "../calls/ClientHistory";
import { ServerMessage, useAnswerKey } from "../ui/Toasts";

/**
 * The player of the call being scored: comments seek it (`data-score-player`); it reports what it played for the
 * access log as every recording's player does.
 */
export const ScorePlayer = ({ callId }: { callId: number }) => <RecordingPlayer id={callId} className="w-full" scoring />;

function seek(seconds: number) {
  const player = document.querySelector<HTMLAudioElement>("audio[data-score-player]");
  if (!player) return false;
  player.currentTime = seconds;
  void player.play().catch(() => undefined);
  return true;
}

/**
 * Comments pinned to moments, in order. With JavaScript a moment seeks the page's player there and plays; without
 * it the moment is a link to the recording from that second (a media fragment, #t=), or plain text with no player.
 */
export function CommentList({
  callId,
  comments,
  playable,
  deletable = false,
}: {
  callId: number;
  comments: CommentView[];
  playable: boolean;
  deletable?: boolean;
}) {
  if (comments.length === 0) {
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="comments-empty">
        Комментариев к моментам разговора нет.
      </p>
    );
  }
  return (
    <ol className="space-y-2 text-sm" data-testid="call-comments">
      {comments.map((c) => (
        <li key={c.id} className="flex items-start gap-3" data-testid="call-comment">
          {playable ? (
            <a
              href={`/recordings/${callId}#t=${c.atSeconds}`}
              onClick={(event) => {
                if (seek(c.atSeconds)) event.preventDefault();
              }}
              className="shrink-0 rounded bg-blue-50 px-1.5 font-mono tabular-nums text-blue-800 hover:underline dark:bg-blue-950 dark:text-blue-200"
              data-seek={c.atSeconds}
              title={`Перейти к ${c.at}`}
            >
              {c.at}
            </a>
          ) : (
            <span className="shrink-0 font-mono tabular-nums text-slate-600 dark:text-slate-400" data-seek={c.atSeconds}>
              {c.at}
            </span>
          )}
          <span className="min-w-0 flex-1 whitespace-pre-wrap break-words">
            {c.text}
            {c.author ? <span className="text-slate-600 dark:text-slate-400"> · {c.author}</span> : null}
          </span>
          {deletable ? (
            <Link
              to={`?deleteComment=${c.id}`}
              preventScrollReset
              className="text-xs text-red-700 hover:underline dark:text-red-400"
              aria-label={`Удалить комментарий ${c.at}`}
            >
              Удалить
            </Link>
          ) : null}
        </li>
      ))}
    </ol>
  );
}

export const COMMENT_FORM = "comment";

/** A new comment at a moment: «мм:сс» typed, or with JavaScript taken from the player («Сейчас в записи»). */
export function CommentForm({ lastResult, playable }: { lastResult?: SubmissionResult<string[]> | null; playable: boolean }) {
  const [form, fields] = useSchemaForm(commentFormSchema, { id: "call-comment", lastResult, defaultValue: { at: "", text: "" } });
  const hydrated = useHydrated();
  const at = useRef<HTMLInputElement>(null);
  const answerKey = useAnswerKey(lastResult);
  const unshown = unshownError(lastResult, ["at", "text"]);
  return (
    <Form method="post" preventScrollReset {...formProps(form)} className="space-y-2" data-testid="comment-form">
      {unshown ? <ServerMessage key={answerKey} kind="error" message={unshown} /> : null}
      <div className="flex flex-wrap items-start gap-2">
        <div className="w-36">
          <label className="label" htmlFor={fields.at.id}>
            Момент (мм:сс)
          </label>
          <input {...inputProps(fields.at)} ref={at} className="input tabular-nums" placeholder="1:05" autoComplete="off" />
          <FieldError field={fields.at} />
        </div>
        <TextField field={fields.text} label="Комментарий" boxClassName="min-w-0 flex-1 basis-64" autoComplete="off" />
      </div>
      <div className="flex flex-wrap gap-2">
        {hydrated && playable ? (
          <button
            type="button"
            className="btn-secondary"
            onClick={() => {
              const player = document.querySelector<HTMLAudioElement>("audio[data-score-player]");
              if (player && at.current) at.current.value = formatNow(player.currentTime);
            }}
          >
            Сейчас в записи
          </button>
        ) : null}
        <button type="submit" name="intent" value="comment-add" className="btn-primary">
          Добавить комментарий
        </button>
      </div>
    </Form>
  );
}

function formatNow(seconds: number): string {
  const s = Math.floor(seconds);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** One criterion's four answers as radio buttons (a fieldset named by the criterion), its error under it. */
export function AnswerRadios({ criterion, field }: { criterion: Pick<ScoredCriterion, "text" | "weight" | "critical">; field: AnyField }) {
  return (
    <fieldset
      className="rounded-md border border-slate-200 p-3 dark:border-slate-700"
      data-testid="criterion-answer"
      aria-describedby={field.errors?.length ? field.errorId : undefined}
    >
      <legend className="px-1 text-sm font-medium">
        {criterion.text}
        <span className="font-normal text-slate-600 dark:text-slate-400">
          {" "}
          · вес {criterion.weight}
          {criterion.critical ? " · критичный" : ""}
        </span>
      </legend>
      <div className="flex flex-wrap gap-x-4 gap-y-1">
        {SCORE_ANSWERS.map((answer) => (
          <label key={answer} className="flex min-h-9 items-center gap-1.5 text-sm">
            <input type="radio" name={field.name} value={answer} defaultChecked={field.initialValue === answer} className="h-4 w-4" />
            {ANSWER_TEXT[answer]}
          </label>
        ))}
      </div>
      <FieldError field={field} />
    </fieldset>
  );
}
