import { Form, useFetcher, useLocation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { formatDuration } from "../../lib/softphone/machine";
import { useHydrated } from "../ui/Pager";
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

/** Seconds since the break began: the server's figure, then counted on by the browser's clock. */
function useElapsed(serverSeconds: number, running: boolean): number {
  const [base, setBase] = useState<{ seconds: number; at: number } | null>(null);
  const [, setTick] = useState(0);
  useEffect(() => setBase({ seconds: serverSeconds, at: Date.now() }), [serverSeconds]);
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(() => setTick((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [running]);
  if (!running) return 0;
  // The first render (server and hydration) shows the loader's figure; then the clock runs.
  return base ? base.seconds + Math.floor((Date.now() - base.at) / 1000) : serverSeconds;
}

/**
 * Starts or ends the user's break (issue 18). A plain form post to /break without JavaScript; a fetcher with it,
 * so the page stays and its data reloads. On a break it says how long the break has lasted.
 */
export function BreakForm({
  onBreak,
  elapsedSeconds,
  className = "",
  buttonTestId = "break-toggle",
  timerTestId = "break-elapsed",
  announce = true,
}: {
  onBreak: boolean;
  elapsedSeconds: number;
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
  const elapsed = useElapsed(pending === "start" ? 0 : elapsedSeconds, showBreak);

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
