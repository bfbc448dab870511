import { Form, useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { formatDuration } from "../../lib/softphone/machine";
import { useHydrated } from "../ui/hydrated";
import { notify } from "../ui/Toasts";

export const START_BREAK = "Перерыв";
export const END_BREAK = "Закончить перерыв";

/** The one fetcher of the break toggle: the header's button and the lead panel's share it (and its pending state). */
export const BREAK_FETCHER = "break";

interface BreakAnswer {
  ok?: boolean;
  message?: string;
  error?: { message: string };
}

/** When the document's response began: a figure that came with the page was read before then, not at hydration. */
function documentReceivedAt(): number {
  const now = Date.now();
  const navigation = performance.getEntriesByType?.("navigation")[0] as PerformanceNavigationTiming | undefined;
  return navigation && navigation.responseStart > 0 ? Math.min(now, performance.timeOrigin + navigation.responseStart) : now;
}

/**
 * Seconds since the break began, counted from its real start (issue 41 §13). The server gives its figure by the
 * database's clock with the break's `startedAt` (the break's identity); the browser turns it into a start on its
 * own clock (received now, minus the elapsed seconds) and counts from there. A later figure for the same break
 * only moves that start earlier (it was received sooner after the query), so the timer never runs back; a new
 * break (another `startedAt`, or the press still on its way) starts afresh, never from an old break's base.
 */
function useElapsed(serverSeconds: number, startedAt: string | null, running: boolean, hydrated: boolean): number {
  const [base, setBase] = useState<{ key: string; startMs: number } | null>(null);
  // Mounted while the page hydrates: its first figure is the document's.
  const fromDocument = useRef(!hydrated);
  const [, setTick] = useState(0);
  const key = running ? (startedAt ?? "pending") : null;
  useEffect(() => {
    const receivedAt = fromDocument.current ? documentReceivedAt() : Date.now();
    fromDocument.current = false;
    // Off a break the base stays: a press to end it that fails brings the same break back, counted as before.
    if (key === null) return;
    const estimate = receivedAt - serverSeconds * 1000;
    setBase((old) => {
      // The same break, or the one just pressed now confirmed: keep the earlier start. A press starts afresh.
      const confirmed = old?.key === "pending" && estimate - old.startMs < 60_000;
      const same = old !== null && key !== "pending" && (old.key === key || confirmed);
      return { key, startMs: same ? Math.min(old.startMs, estimate) : estimate };
    });
  }, [key, serverSeconds]);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [running]);
  if (!running) return 0;
  // The first render (server and hydration) shows the loader's figure; then the clock runs.
  if (base === null || base.key !== key) return serverSeconds;
  return Math.max(0, Math.floor((Date.now() - base.startMs) / 1000));
}

/**
 * Starts or ends the user's break (issue 18). A plain form post to /break without JavaScript; a fetcher with it,
 * so the page stays and its data reloads. On a break it says how long the break has lasted.
 */
export function BreakForm({
  onBreak,
  elapsedSeconds,
  startedAt,
  className = "",
  buttonTestId = "break-toggle",
  timerTestId = "break-elapsed",
  announce = true,
}: {
  onBreak: boolean;
  elapsedSeconds: number;
  /** When the open break began by the server (its identity: a new break's timer never goes on from an old one). */
  startedAt: string | null;
  className?: string;
  buttonTestId?: string;
  timerTestId?: string;
  /** Toasts the answer (once per page: the header's form does, the lead panel's shares its fetcher). */
  announce?: boolean;
}) {
  const fetcher = useFetcher<BreakAnswer>({ key: BREAK_FETCHER });
  const hydrated = useHydrated();
  const location = useLocation();
  const FormComponent = hydrated ? fetcher.Form : Form;

  useEffect(() => {
    if (!announce || fetcher.state !== "idle" || !fetcher.data) return;
    if (fetcher.data.error) notify("error", fetcher.data.error.message);
    else if (fetcher.data.message) notify("success", fetcher.data.message);
  }, [announce, fetcher.state, fetcher.data]);

  // While the post is on its way, show what it will do.
  const pending = fetcher.formData?.get("intent");
  const showBreak = pending === "start" ? true : pending === "end" ? false : onBreak;
  const elapsed = useElapsed(pending === "start" ? 0 : elapsedSeconds, pending === "start" ? null : startedAt, showBreak, hydrated);

  return (
    <FormComponent method="post" action="/break" className={`flex shrink-0 items-center ${className}`}>
      <input type="hidden" name="intent" value={showBreak ? "end" : "start"} />
      <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
      {hydrated ? <input type="hidden" name="_js" value="1" /> : null}
      <button
        type="submit"
        className={
          showBreak
            ? // On a phone the label and the timer stack, so the header keeps its other controls on screen.
              "btn flex-col gap-0 whitespace-nowrap bg-amber-500 px-2 py-1 text-xs leading-tight text-slate-950 hover:bg-amber-400 desk:flex-row desk:gap-2 desk:py-1.5 desk:text-sm"
            : "btn-secondary whitespace-nowrap px-2 py-1.5"
        }
        disabled={fetcher.state !== "idle"}
        data-testid={buttonTestId}
      >
        {showBreak ? (
          // A phone shows «Закончить» over the timer (the name stays whole for screen readers).
          <span>
            Закончить<span className="sr-only desk:not-sr-only"> перерыв</span>
          </span>
        ) : (
          <span>{START_BREAK}</span>
        )}
        {showBreak ? (
          <span className="font-semibold tabular-nums" title="Сколько длится перерыв">
            <span className="sr-only">, идёт </span>
            <span role="timer" data-testid={timerTestId}>
              {formatDuration(elapsed * 1000)}
            </span>
          </span>
        ) : null}
      </button>
    </FormComponent>
  );
}
