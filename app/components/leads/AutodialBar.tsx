import { countdownAnnouncement } from "../../lib/autodial-words";
import type { useAutodial } from "./Autodial";
import { KeyCap } from "./key-cap";

/**
 * The autodial strip under the status buttons: the countdown with Пропустить and Пауза, or why it does not dial.
 * Drawn once the panel is interactive (the softphone it waits for starts then), from the chunk fetched after
 * hydration (app/components/leadpanel/after-hydration.ts, decision 091).
 */
export function AutodialBar({ autodial, client }: { autodial: ReturnType<typeof useAutodial>; client: string }) {
  const { state, paused, left, skip, togglePause } = autodial;
  if (state.kind === "off") return null;
  const counting = state.kind === "countdown";
  return (
    <div
      className={`flex flex-wrap items-center gap-x-3 gap-y-2 rounded-md border px-3 py-2 text-sm ${
        counting
          ? "border-sky-300 bg-sky-50 text-sky-950 dark:border-sky-700 dark:bg-sky-950 dark:text-sky-100"
          : "border-slate-200 bg-white text-slate-700 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-300"
      }`}
      data-testid="autodial"
      data-state={state.kind === "stopped" ? state.reason : state.kind}
    >
      {/* Read once when a countdown starts, never every second (the visible seconds are aria-hidden). */}
      <p className="sr-only" aria-live="polite" data-testid="autodial-announcement">
        {counting ? countdownAnnouncement(state.seconds, client) : state.kind === "stopped" && state.reason !== "paused" ? state.text : ""}
      </p>
      {counting ? (
        <p className="flex items-center gap-2 font-medium" aria-hidden="true">
          <span>Автонабор через</span>
          <span className="inline-flex min-w-[2ch] justify-center text-xl font-semibold tabular-nums" data-testid="autodial-seconds">
            {left ?? state.seconds}
          </span>
          <span>с</span>
        </p>
      ) : state.kind === "stopped" ? (
        <p className={state.reason === "lineDown" ? "font-medium text-red-700 dark:text-red-300" : ""} data-testid="autodial-stopped">
          {state.text}
        </p>
      ) : null}
      <div className="ml-auto flex flex-wrap gap-2">
        {counting ? (
          <button type="button" className="btn-secondary px-2 py-1" aria-keyshortcuts="S" onClick={skip} data-testid="autodial-skip">
            Пропустить
            <KeyCap>S</KeyCap>
          </button>
        ) : null}
        <button
          type="button"
          className="btn-secondary px-2 py-1"
          aria-keyshortcuts="P"
          aria-pressed={paused}
          onClick={togglePause}
          data-testid="autodial-pause"
        >
          {paused ? "Продолжить автонабор" : "Пауза"}
          <KeyCap>P</KeyCap>
        </button>
      </div>
    </div>
  );
}
