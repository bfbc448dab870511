/**
 * The softphone's transitions (machine.ts holds its state and rules): the next state after each event sip.js
 * reports, and which message a failure shows (SPEC §8). `softphone.ts` feeds it the events; the unit tests feed it
 * the same events by hand. Its own module, loaded with sip.js after hydration (decision 090).
 */
import { failureReason } from "../../../common/sip-reasons";
import { CALL_ERROR, CONNECTION_LOST, DIAL_ERROR, lineBusy, type PhoneEvent, type PhoneState, type Transition } from "./machine";

/**
 * Ошибка вызова with the reason of a SIP failure code, e.g. "Ошибка вызова: абонент занят" for 486; the telephony
 * stack's own refusals by their reason phrase («Ошибка вызова: номер в списке «Не звонить»»).
 */
export function callErrorFor(statusCode: number, reasonPhrase?: string): string {
  const reason = failureReason(statusCode, reasonPhrase);
  return reason ? `${CALL_ERROR}: ${reason}` : CALL_ERROR;
}

/** Why a REGISTER was refused, from its SIP code. */
export function registrationProblemFor(statusCode: number): string {
  if (statusCode === 401 || statusCode === 403 || statusCode === 407) return "неверный SIP логин или пароль";
  if (statusCode >= 500) return "сервер телефонии недоступен";
  return `сервер телефонии ответил ${statusCode}`;
}

/** 487 is the answer to our own CANCEL: the caller hung up, nothing failed. */
const REQUEST_TERMINATED = 487;

function ended(state: PhoneState, error: string | null): PhoneState {
  return { ...state, call: "ended", lineActive: false, error, muted: false, held: false, answeredAt: null };
}

/** The next state after something sip.js reported, and the toast it shows if any. */
export function transition(state: PhoneState, event: PhoneEvent): Transition {
  switch (event.type) {
    case "connecting":
      return { state: { ...state, registration: "connecting", registrationProblem: null } };
    case "registered":
      // Back on the server (first time or after a reconnect): an old failure no longer describes the phone.
      return {
        state: {
          ...state,
          registration: "registered",
          registrationProblem: null,
          error: state.call === "idle" ? null : state.error,
        },
      };
    case "registrationFailed": {
      const problem = event.statusCode ? registrationProblemFor(event.statusCode) : state.registrationProblem;
      return { state: { ...state, registration: "failed", registrationProblem: problem } };
    }
    case "dialFailed":
      if (state.call !== "calling") return { state };
      return { state: ended(state, DIAL_ERROR), notice: { kind: "error", text: DIAL_ERROR } };
    case "rejected":
      if (!lineBusy(state.call)) return { state };
      if (event.statusCode === REQUEST_TERMINATED) return { state: ended(state, null) };
      return {
        state: {
          ...ended(state, callErrorFor(event.statusCode, event.reasonPhrase)),
          endCode: event.statusCode,
          endPhrase: event.reasonPhrase ?? null,
        },
        notice: { kind: "error", text: callErrorFor(event.statusCode, event.reasonPhrase) },
      };
    case "failed":
      if (!lineBusy(state.call)) return { state };
      return { state: ended(state, CALL_ERROR), notice: { kind: "error", text: CALL_ERROR } };
    case "connectionLost":
      if (!lineBusy(state.call)) return { state };
      return { state: ended(state, CONNECTION_LOST), notice: { kind: "error", text: CONNECTION_LOST } };
    case "established":
      if (state.call !== "calling" && state.call !== "ringing") return { state };
      return { state: { ...state, call: "inCall", lineActive: true, error: null, answeredAt: event.at ?? Date.now() } };
    case "muted":
      if (state.call !== "inCall") return { state };
      return { state: { ...state, muted: event.on } };
    case "held":
      if (state.call !== "inCall") return { state };
      return { state: { ...state, held: event.on } };
    case "incoming":
      // A second call while the line is busy is refused (486) by the caller of `acceptsIncoming`.
      if (state.lineActive) return { state };
      return {
        state: {
          ...state,
          call: "ringing",
          direction: "in",
          peer: event.peer,
          lineActive: true,
          error: null,
          contactId: null,
          endCode: null,
          endPhrase: null,
          sipCallId: event.sipCallId ?? null,
        },
      };
    case "answering":
      return { state };
    case "terminated":
      if (!lineBusy(state.call)) return { state };
      return { state: ended(state, null) };
    case "cleared":
      if (state.call !== "ended") return { state };
      return { state: { ...state, call: "idle", direction: null, peer: null } };
  }
}
