import { useRef } from "react";
import type { HistoryEntry } from "../../calls.server";
import { usePlayReport } from "../../lib/heard-audio";
import { formatKyiv } from "../../../common/business-zone";
import { callDirectionText } from "../../../common/call-direction";
import { formatDateTime } from "../../lib/format";
import { formatDuration } from "../../lib/softphone/machine";
import { ScoreBadge } from "../quality/ScoreBadge";

/** The call log's outcome of a call, as a manager says it. */
const OUTCOME_TEXT: Record<string, string> = {
  answered: "разговор",
  busy: "занято",
  no_answer: "нет ответа",
  failed: "не состоялся",
  cancelled: "отменён",
};

/** Talk time as m:ss (or h:mm:ss for a long call), like the call timer. */
export const formatTalkTime = (seconds: number) => formatDuration(seconds * 1000);

function callLine(entry: Extract<HistoryEntry, { kind: "call" }>): string {
  const what = `${callDirectionText(entry.direction, { capital: true })} звонок`;
  if (entry.outcome === null) return `${what}: идёт`;
  if (entry.outcome === "answered") return `${what}: разговор ${formatTalkTime(entry.talkSeconds)}`;
  return `${what}: ${OUTCOME_TEXT[entry.outcome]}${entry.reason ? ` (${entry.reason})` : ""}`;
}

/**
 * A call's recording: a player that seeks (the server answers byte ranges) and, for admins, a download link; or
 * what happened to it («удалена по сроку хранения», «не записан: нет места»).
 */
export function CallRecording({ entry }: { entry: { id: number; playable: boolean; downloadable: boolean; recordingNote: string | null } }) {
  if (!entry.playable && !entry.recordingNote) return null;
  return (
    <div className="mt-1 space-y-1" data-testid="call-recording">
      {entry.playable ? (
        <div className="flex flex-wrap items-center gap-2">
          <RecordingPlayer id={entry.id} />
          {entry.downloadable ? (
            <>
              <a href={`/recordings/${entry.id}?download=1`} className="text-xs underline" download>
                Скачать запись
              </a>
              {/* Whoever may download (an admin) may score the call too (issue 39). */}
              <a href={`/quality/call/${entry.id}`} className="text-xs underline" data-testid="score-call-link">
                Оценить звонок
              </a>
            </>
          ) : null}
        </div>
      ) : null}
      {entry.recordingNote ? <p className="text-xs text-slate-600 dark:text-slate-400">{entry.recordingNote}</p> : null}
    </div>
  );
}

/**
 * A call's recording player (the call log, the client's history, scoring); with JavaScript it names itself and
 * reports how much it played, for the access log (issue 39). `scoring` marks the one the scoring page's comments seek.
 */
export function RecordingPlayer({ id, className = "h-8 max-w-full", scoring = false }: { id: number; className?: string; scoring?: boolean }) {
  const audio = useRef<HTMLAudioElement>(null);
  const key = usePlayReport(audio);
  return (
    <audio
      ref={audio}
      controls
      preload="none"
      src={`/recordings/${id}${key ? `?play=${key}` : ""}`}
      className={className}
      aria-label="Запись разговора"
      data-score-player={scoring ? "" : undefined}
    >
      <a href={`/recordings/${id}`}>Запись разговора</a>
    </audio>
  );
}

/**
 * A scored call's score in the history (issue 39): the manager sees his own calls' scores here, with the way to
 * their answers, comments and his dispute on /profile; an admin goes to the call's scoring page.
 */
function CallScore({ entry }: { entry: { id: number; score: number | null; mine: boolean } }) {
  return (
    <div className="mt-1 flex flex-wrap items-center gap-2 text-xs" data-testid="history-score">
      <span>Оценка</span>
      <ScoreBadge score={entry.score ?? 0} testId="history-score-value" />
      <a href={entry.mine ? `/profile#score-${entry.id}` : `/quality/call/${entry.id}`} className="underline">
        {entry.mine ? "Подробнее в профиле" : "Открыть оценку"}
      </a>
    </div>
  );
}

/**
 * Everything that happened to this client, newest first: calls (outcome, talk time) and status presses (with
 * the card text), each with the manager and the time in Kyiv. Rendered on the server: JavaScript not needed.
 */
export function ClientHistory({ entries, testId = "client-history" }: { entries: HistoryEntry[]; testId?: string }) {
  if (entries.length === 0) {
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid={testId}>
        С этим клиентом ещё не работали: звонков и статусов нет.
      </p>
    );
  }
  return (
    <ol className="space-y-2 text-sm" data-testid={testId}>
      {entries.map((entry, i) => (
        <li key={`${entry.kind}-${entry.at}-${i}`} className="border-l-2 border-slate-300 pl-3 dark:border-slate-600" data-kind={entry.kind}>
          <div className="text-xs text-slate-600 dark:text-slate-400">
            <time dateTime={entry.at}>{formatDateTime(entry.at)}</time>
            {/* Named as everywhere (issue 41): the display name, the login on hover. */}
            {entry.manager ? (
              <>
                {" · "}
                <span title={entry.manager}>{entry.managerName ?? entry.manager}</span>
              </>
            ) : null}
          </div>
          {entry.kind === "call" ? (
            <div>
              <div>{callLine(entry)}</div>
              {entry.score !== null ? <CallScore entry={entry} /> : null}
              <CallRecording entry={entry} />
            </div>
          ) : (
            <div>
              <div>
                Статус: <strong>{entry.status}</strong>
                {entry.attempt ? <span data-testid="history-attempt"> · {entry.attempt}</span> : null}
              </div>
              {entry.callback ? (
                // Issue 41 §7: the callback this press scheduled, with the manager's note.
                <div data-testid="history-callback">
                  Перезвон на <strong>{formatKyiv(entry.callback.dueAt)}</strong>
                  {entry.callback.note ? <p className="mt-1 whitespace-pre-wrap">Заметка: {entry.callback.note}</p> : null}
                </div>
              ) : null}
              {entry.cardText ? <p className="mt-1 whitespace-pre-wrap text-slate-700 dark:text-slate-300">{entry.cardText}</p> : null}
            </div>
          )}
        </li>
      ))}
    </ol>
  );
}
