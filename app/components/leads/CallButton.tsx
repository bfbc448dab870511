import { lazy, Suspense, useEffect } from "react";
import { cannotCallReason } from "../../lib/softphone/machine";
import { afterStylesheet } from "../../lib/stylesheet-complete";
import { PhoneStatus } from "../softphone/PhoneStatus";
import { useSoftphone } from "../softphone/SoftphoneProvider";

/**
 * The call's controls show once the softphone runs (after hydration, sip.js loaded): their code is fetched then,
 * not before the page is interactive (decision 090), and drawn once the whole stylesheet is in (decision 093).
 */
const CallControls = lazy(() => afterStylesheet(import("../softphone/CallControls")).then((module) => ({ default: module.CallControls })));

/**
 * Позвонить on the lead panel. With the softphone running (JavaScript on, the user has SIP credentials) it dials
 * the lead through sip.js and shows the call's state and a hang-up button; a second press while the line is busy
 * shows Идет вызов. Before hydration, with JavaScript off or without a softphone it is a tel: link.
 * `refusal`: why this client may not be called at all (his number is on «Не звонить»: the proxy refuses the call):
 * the button is disabled, with the reason as its title and as text beside it; a call in progress keeps its controls.
 */
export function CallButton({ phone, contactId, refusal = null }: { phone: string; contactId?: number; refusal?: string | null }) {
  const softphone = useSoftphone();
  const number = phone.replace(/[^\d+]/g, "");
  const { state, showsPhone } = softphone;
  // While this panel is on screen it is the one place that says the phone's state (the dock steps aside).
  useEffect(() => showsPhone(), [showsPhone]);
  if (state) {
    // Not `disabled` while the phone is not ready: a press (or the C key) still tells why it cannot call. A refused
    // client is `disabled`: nothing to try again, the reason is on the screen.
    const cannot = refusal ?? (state.lineActive ? null : cannotCallReason(state));
    return (
      <div className="flex flex-wrap items-center gap-3" data-testid="call-panel">
        <button
          type="button"
          className={`btn-primary ${cannot ? "cursor-not-allowed opacity-50" : ""}`}
          disabled={refusal !== null}
          aria-disabled={cannot && !refusal ? true : undefined}
          title={cannot ?? undefined}
          aria-describedby={refusal ? "call-refused call-state" : "call-state"}
          data-testid="call-button"
          onClick={() => softphone.call(phone, contactId)}
        >
          Позвонить
        </button>
        {refusal ? <CallRefusal text={refusal} /> : null}
        {state.lineActive ? (
          <button type="button" className="btn-danger" data-testid="hang-up-button" onClick={softphone.hangUp}>
            Завершить
          </button>
        ) : null}
        <PhoneStatus state={state} testId="call-state" id="call-state" />
        <Suspense fallback={null}>
          <CallControls state={state} contactId={contactId ?? null} />
        </Suspense>
      </div>
    );
  }
  if (refusal) {
    return (
      <div className="flex flex-wrap items-center gap-3" data-testid="call-panel">
        <button type="button" className="btn-primary" disabled title={refusal} aria-describedby="call-refused" data-testid="call-button">
          Позвонить
        </button>
        <CallRefusal text={refusal} />
      </div>
    );
  }
  if (!number) {
    return (
      <button type="button" className="btn-primary" disabled data-testid="call-button">
        Позвонить
      </button>
    );
  }
  return (
    <a href={`tel:${number}`} className="btn-primary" data-testid="call-button">
      Позвонить
    </a>
  );
}

/** Why the client may not be called, beside the disabled button (its title says the same). */
function CallRefusal({ text }: { text: string }) {
  return (
    <p id="call-refused" className="min-w-0 text-sm font-medium text-red-700 dark:text-red-400" data-testid="call-refused">
      {text}
    </p>
  );
}
