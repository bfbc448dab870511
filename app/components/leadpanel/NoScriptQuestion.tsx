import { Form, Link } from "@remix-run/react";
import { REPORT_CONFIRM } from "../leads/clientCard";
import type { CallbackTimes, ConfirmState } from "./answer";
import { CALLBACK_QUESTION, CallbackChoices } from "./PressDialogs";

/**
 * A question the action asked a press without JavaScript, as a section of the page: the report confirmation, or
 * the callback time (its choices are submit buttons). Either posts the press again, the card carried in hidden
 * fields; «Закрыть» goes back to the panel. `cardText`: the card as the report sends it (common/client-card's
 * clientCardText), given by the page, which has that module before hydration (this one comes after, decision 091).
 */
export function NoScriptQuestion({
  kind,
  press,
  times,
  cardText,
}: {
  kind: "confirm" | "callback";
  press: ConfirmState;
  times: CallbackTimes;
  cardText: string;
}) {
  const close = (
    <Link to="/leadpanel" className="btn-secondary">
      Закрыть
    </Link>
  );
  return (
    <section className="card mb-4 border-amber-300" data-testid={kind === "confirm" ? "report-confirm" : "callback-time"} data-no-script-question>
      <h2 className="mb-2 text-lg font-semibold">{press.statusText}</h2>
      {kind === "confirm" ? (
        <>
          <p className="mb-3 text-sm">{REPORT_CONFIRM}</p>
          <pre className="mb-3 whitespace-pre-wrap rounded bg-slate-50 p-2 text-sm dark:bg-slate-900">{cardText}</pre>
        </>
      ) : null}
      <Form method="post" className={kind === "confirm" ? "flex justify-end gap-2" : "space-y-3"}>
        {kind === "callback" ? <p className="text-sm">{CALLBACK_QUESTION}</p> : null}
        <input type="hidden" name="intent" value="status" />
        {kind === "confirm" || press.confirmed ? <input type="hidden" name="confirmed" value="1" /> : null}
        <input type="hidden" name="statusId" value={press.statusId} />
        <input type="hidden" name="contactId" value={press.contactId} />
        <input type="hidden" name="passport" value={press.passport} />
        {press.card.map((field, i) => (
          <span key={i} hidden>
            <input type="hidden" name="cardLabel" value={field.label} />
            <input type="hidden" name="cardValue" value={field.value} />
          </span>
        ))}
        {kind === "confirm" ? (
          <>
            {close}
            <button type="submit" className="btn-primary">
              Да, я уверен!
            </button>
          </>
        ) : (
          <CallbackChoices times={times} fieldId="callback-local-nojs" noteId="callback-note-nojs" note={press.callbackNote} after={close} />
        )}
      </Form>
    </section>
  );
}
