import { useEffect } from "react";
import { cannotCallReason } from "../../lib/softphone/machine";
import { CallControls } from "../softphone/CallControls";
import { PhoneStatus } from "../softphone/PhoneStatus";
import { useSoftphone } from "../softphone/SoftphoneProvider";

/**
 * Позвонить on the lead panel. With the softphone running (JavaScript on, the user has SIP credentials) it dials
 * the lead through sip.js and shows the call's state and a hang-up button; a second press while the line is busy
 * shows Идет вызов. Before hydration, with JavaScript off or without a softphone it is a tel: link.
 */
export function CallButton({ phone, contactId }: { phone: string; contactId?: number }) {
  const softphone = useSoftphone();
  const number = phone.replace(/[^\d+]/g, "");
  const { state, showsPhone } = softphone;
  // While this panel is on screen it is the one place that says the phone's state (the dock steps aside).
  useEffect(() => showsPhone(), [showsPhone]);
  if (state) {
    // Not `disabled`: a press (or the C key) still tells why it cannot call.
    const cannot = state.lineActive ? null : cannotCallReason(state);
    return (
      <div className="flex flex-wrap items-center gap-3" data-testid="call-panel">
        <button
          type="button"
          className={`btn-primary ${cannot ? "cursor-not-allowed opacity-50" : ""}`}
          aria-disabled={cannot ? true : undefined}
          title={cannot ?? undefined}
          aria-describedby="call-state"
          data-testid="call-button"
          onClick={() => softphone.call(phone, contactId)}
        >
          Позвонить
        </button>
        {state.lineActive ? (
          <button type="button" className="btn-danger" data-testid="hang-up-button" onClick={softphone.hangUp}>
            Завершить
          </button>
        ) : null}
        <PhoneStatus state={state} testId="call-state" id="call-state" />
        <CallControls state={state} contactId={contactId ?? null} />
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
