import { useRef, useState, type ChangeEvent, type ReactNode, type RefObject } from "react";
import { CALLBACK_NOTE_MAX } from "../../../common/callback-note";
import { REPORT_CONFIRM } from "../leads/clientCard";
import { Modal, ModalClose } from "../ui/Modal";
import type { CallbackTimes } from "./answer";
import type { PendingCallback, PendingReport } from "./usePanelPress";

export const CALLBACK_QUESTION = "Когда перезвонить? Время киевское.";

/**
 * The press's questions with JavaScript: the callback time (Enter takes the first quick choice; Tab moves to the
 * others and to the free choice) and the report confirmation (Enter confirms: the focus starts on «Да, я
 * уверен!»; Esc closes either).
 */
export function PressDialogs({
  times,
  pendingCallback,
  pendingReport,
  closeCallback,
  closeReport,
  scheduleCallback,
  confirmReport,
}: {
  times: CallbackTimes;
  pendingCallback: PendingCallback | null;
  pendingReport: PendingReport | null;
  closeCallback(): void;
  closeReport(): void;
  scheduleCallback(choice: ({ preset: string } | { local: string }) & { note: string }): void;
  confirmReport(): void;
}) {
  const confirmButton = useRef<HTMLButtonElement>(null);
  const firstPreset = useRef<HTMLButtonElement>(null);
  return (
    <>
      <Modal
        open={pendingCallback !== null}
        onClose={closeCallback}
        title={pendingCallback?.text}
        description={`${CALLBACK_QUESTION}${pendingCallback?.report ? ` ${REPORT_CONFIRM}` : ""}`}
        initialFocus={firstPreset}
        testId="callback-time"
      >
        <CallbackChoices
          times={times}
          fieldId="callback-local"
          firstRef={firstPreset}
          noteId="callback-note"
          on={{ preset: (preset, note) => scheduleCallback({ preset, note }), local: (local, note) => scheduleCallback({ local, note }) }}
        />
        <div className="mt-4 flex justify-end">
          <ModalClose />
        </div>
      </Modal>

      <Modal
        open={pendingReport !== null}
        onClose={closeReport}
        title={pendingReport?.text}
        description={REPORT_CONFIRM}
        initialFocus={confirmButton}
        testId="report-confirm"
      >
        <div className="flex justify-end gap-2">
          <ModalClose />
          <button type="button" className="btn-primary" ref={confirmButton} onClick={confirmReport}>
            Да, я уверен!
          </button>
        </div>
      </Modal>
    </>
  );
}

export const CALLBACK_NOTE_LABEL = "Заметка к перезвону";

/**
 * The callback time's quick choices and its free choice, under the note for it (issue 41 §7: shown when the
 * callback is due, in the history, on Мои перезвоны). With `on` (JavaScript) they call it: a quick choice at
 * once, the free one by its button or Enter in its field. Without, they submit the form they are in
 * (`callbackPreset`, or `callbackLocal` by «Запланировать», with `callbackNote`): the press's question as a
 * section of the page.
 */
export function CallbackChoices({
  times,
  fieldId,
  noteId,
  note: typedNote = "",
  firstRef,
  on,
  after,
}: {
  times: CallbackTimes;
  fieldId: string;
  noteId: string;
  /** The note as typed before (a time refused without JavaScript asks again with it). */
  note?: string;
  firstRef?: RefObject<HTMLButtonElement>;
  on?: { preset(preset: string, note: string): void; local(local: string, note: string): void };
  /** After «Запланировать» (the section's «Закрыть»). */
  after?: ReactNode;
}) {
  const [local, setLocal] = useState(times.initial);
  const [note, setNote] = useState(typedNote);
  return (
    <div className="space-y-3">
      <div>
        <label className="label" htmlFor={noteId}>
          {CALLBACK_NOTE_LABEL}
        </label>
        {/* Without JavaScript it goes with whichever choice submits the form. */}
        <textarea
          id={noteId}
          name={on ? undefined : "callbackNote"}
          className="input min-h-16"
          maxLength={CALLBACK_NOTE_MAX}
          placeholder="Например: просил набрать после обеда, спросить про рассрочку"
          {...(on
            ? { value: note, onChange: (event: ChangeEvent<HTMLTextAreaElement>) => setNote(event.target.value) }
            : { defaultValue: typedNote })}
          data-testid="callback-note"
        />
      </div>
      <div className="flex flex-wrap gap-2">
        {times.presets.map((preset, i) =>
          on ? (
            <button
              key={preset.value}
              type="button"
              ref={i === 0 ? firstRef : undefined}
              className="btn-primary"
              onClick={() => on.preset(preset.value, note)}
            >
              {preset.label}
            </button>
          ) : (
            <button key={preset.value} type="submit" name="callbackPreset" value={preset.value} className="btn-primary">
              {preset.label}
            </button>
          ),
        )}
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <div>
          <label className="label" htmlFor={fieldId}>
            Другое время
          </label>
          {on ? (
            <input
              id={fieldId}
              type="datetime-local"
              className="input"
              min={times.min}
              value={local}
              onChange={(event) => setLocal(event.target.value)}
              // Chromium keeps Enter in a date field to itself (no implicit submission): schedule here.
              onKeyDown={(event) => {
                if (event.key !== "Enter") return;
                event.preventDefault();
                if (local) on.local(local, note);
              }}
            />
          ) : (
            <input id={fieldId} type="datetime-local" name="callbackLocal" className="input" min={times.min} defaultValue={times.initial} />
          )}
        </div>
        {on ? (
          <button type="button" className="btn-secondary" disabled={!local} onClick={() => on.local(local, note)}>
            Запланировать
          </button>
        ) : (
          <button type="submit" className="btn-secondary">
            Запланировать
          </button>
        )}
        {after}
      </div>
    </div>
  );
}
