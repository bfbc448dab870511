import { useRef, useState, type RefObject } from "react";
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
  scheduleCallback(choice: { preset: string } | { local: string }): void;
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
          firstRef={firstPreset}
          onPreset={(preset) => scheduleCallback({ preset })}
          onLocal={(local) => scheduleCallback({ local })}
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

/**
 * The quick choices and the free choice (buttons that submit the press at once; Enter in the free choice's field
 * schedules it).
 */
function CallbackChoices({
  times,
  firstRef,
  onPreset,
  onLocal,
}: {
  times: CallbackTimes;
  firstRef?: RefObject<HTMLButtonElement>;
  onPreset: (preset: string) => void;
  onLocal: (local: string) => void;
}) {
  const [local, setLocal] = useState(times.initial);
  return (
    <div className="space-y-3">
      <div className="flex flex-wrap gap-2">
        {times.presets.map((preset, i) => (
          <button key={preset.value} type="button" ref={i === 0 ? firstRef : undefined} className="btn-primary" onClick={() => onPreset(preset.value)}>
            {preset.label}
          </button>
        ))}
      </div>
      <div className="flex flex-wrap items-end gap-2">
        <div>
          <label className="label" htmlFor="callback-local">
            Другое время
          </label>
          <input
            id="callback-local"
            type="datetime-local"
            className="input"
            min={times.min}
            value={local}
            onChange={(event) => setLocal(event.target.value)}
            // Chromium keeps Enter in a date field to itself (no implicit submission): schedule here.
            onKeyDown={(event) => {
              if (event.key !== "Enter") return;
              event.preventDefault();
              if (local) onLocal(local);
            }}
          />
        </div>
        <button type="button" className="btn-secondary" disabled={!local} onClick={() => onLocal(local)}>
          Запланировать
        </button>
      </div>
    </div>
  );
}
