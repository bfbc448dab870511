import { describePhone, type PhoneState } from "../../lib/softphone/machine";

const tone: Record<string, string> = {
  error: "text-red-700 dark:text-red-400",
  active: "text-blue-700 dark:text-blue-300",
  ok: "text-green-700 dark:text-green-400",
  muted: "text-slate-500 dark:text-slate-400",
};

function toneOf(state: PhoneState): string {
  if (state.call === "calling" || state.call === "ringing" || state.call === "inCall") return tone.active;
  if (state.error || state.registration === "failed") return tone.error;
  if (state.registration === "registered") return tone.ok;
  return tone.muted;
}

/** The phone's state in words (registering, ready, calling, ringing, in call, ended, error). */
export function PhoneStatus({ state, testId, id }: { state: PhoneState; testId: string; id?: string }) {
  return (
    <span id={id} role="status" aria-live="polite" className={`text-sm ${toneOf(state)}`} data-testid={testId} data-call={state.call}>
      {describePhone(state)}
    </span>
  );
}
