/**
 * The softphone's rules, without sip.js and without a browser: what state the phone is in, whether a call may
 * start (the line-active flag of SPEC §4), and how the pages describe it. The next state after each event sip.js
 * reports, and the message a failure shows (SPEC §8), are transition.ts's: only the running softphone needs them,
 * so the layout's first chunk carries neither them nor the SIP reasons' table (decision 090).
 */

/** SPEC §8 toasts the softphone shows. */
export const CALL_BUSY = "Идет вызов";
export const CALL_ERROR = "Ошибка вызова";
export const DIAL_ERROR = "Ошибка набора";
/** The socket to the PBX dropped during a call: the call cannot be controlled any more and is ended here. */
export const CONNECTION_LOST = "Связь с сервером телефонии потеряна";

/** The hidden footer button dials this (SPEC §9). */
export const TEST_CALL_NUMBER = "210";

export type Registration = "connecting" | "registered" | "failed";
export type CallPhase = "idle" | "calling" | "ringing" | "inCall" | "ended";

export interface PhoneState {
  registration: Registration;
  call: CallPhase;
  direction: "out" | "in" | null;
  /** The other side's number (dialled or calling in). */
  peer: string | null;
  /** SPEC §4: set while a call is being placed, ringing or talking; a second call is refused while it is. */
  lineActive: boolean;
  /** The message of the last failure, shown in the panel until the next call. */
  error: string | null;
  /** The client dialled from the lead panel (for the call log); null for other calls. */
  contactId: number | null;
  /** The SIP final response that refused the last call (486, 480, ...), and its reason phrase, for the call log. */
  endCode: number | null;
  endPhrase: string | null;
  /** The SIP Call-ID of the call on the line: the call log meets the proxy's report of it there (decision 049). */
  sipCallId: string | null;
  /** Why the server refused the registration (wrong SIP password, ...), shown while the phone is not connected. */
  registrationProblem: string | null;
  /** During a call: the microphone is off (the other side hears silence). */
  muted: boolean;
  /** During a call: on hold (re-INVITE inactive; no media either way). */
  held: boolean;
  /** When the call was answered (epoch ms), for the call timer; null before and after. */
  answeredAt: number | null;
  /** The last number dialled from here, for Повторить. */
  lastDialled: string | null;
  /** The lead panel's client that last number was dialled for (null: not a lead's call): Повторить belongs to him. */
  lastContactId: number | null;
}

export interface Notice {
  kind: "warning" | "error";
  text: string;
}

export type PhoneEvent =
  | { type: "connecting" }
  | { type: "registered" }
  /** The socket dropped, or the server refused the REGISTER with `statusCode`. */
  | { type: "registrationFailed"; statusCode?: number }
  /** The INVITE could not be sent (no media, transport down, bad target): nothing reached the server. */
  | { type: "dialFailed" }
  /** The other side or the server answered the INVITE with a final failure (404, 486, 480, 603, ...). */
  | { type: "rejected"; statusCode: number; reasonPhrase?: string }
  /** The call ended before it was established and nobody here hung up (timeout, lost connection). */
  | { type: "failed" }
  /** The socket to the PBX dropped while a call was on: it is ended here. */
  | { type: "connectionLost" }
  /** Media flows: the caller got 200 OK, or the callee got the ACK for its 200 OK. */
  | { type: "established"; at?: number }
  /** The manager switched the microphone off or on. */
  | { type: "muted"; on: boolean }
  /** The other side accepted the hold or resume re-INVITE. */
  | { type: "held"; on: boolean }
  | { type: "incoming"; peer: string; sipCallId?: string }
  | { type: "answering" }
  /** Either side hung up, or a ringing call was cancelled or rejected here. */
  | { type: "terminated" }
  /** After an ended call has been on screen for a moment, the panel goes back to ready. */
  | { type: "cleared" };

export const initialPhoneState: PhoneState = {
  registration: "connecting",
  call: "idle",
  direction: null,
  peer: null,
  lineActive: false,
  error: null,
  contactId: null,
  endCode: null,
  endPhrase: null,
  sipCallId: null,
  registrationProblem: null,
  muted: false,
  held: false,
  answeredAt: null,
  lastDialled: null,
  lastContactId: null,
};

export interface Transition {
  state: PhoneState;
  notice?: Notice;
}

/** A call is on the line (dialling, ringing or talking). */
export const lineBusy = (call: CallPhase) => call === "calling" || call === "ringing" || call === "inCall";

export type CallRequest = { ok: true; state: PhoneState; target: string } | { ok: false; state: PhoneState; notice: Notice };

/**
 * Pressing Позвонить (or the footer's test call). The line-active flag is set here, before anything is sent,
 * so a second press while the first INVITE is still on its way shows Идет вызов instead of a second call.
 */
export function requestCall(state: PhoneState, rawNumber: string, contactId: number | null = null, sipCallId: string | null = null): CallRequest {
  if (state.lineActive) return { ok: false, state, notice: { kind: "warning", text: CALL_BUSY } };
  const cannot = cannotCallReason(state);
  if (cannot) return { ok: false, state, notice: { kind: "error", text: cannot } };
  const target = dialableNumber(rawNumber);
  if (!target) {
    return { ok: false, state: { ...state, error: DIAL_ERROR }, notice: { kind: "error", text: DIAL_ERROR } };
  }
  return {
    ok: true,
    target,
    state: {
      ...state,
      call: "calling",
      direction: "out",
      peer: target,
      lineActive: true,
      error: null,
      contactId,
      endCode: null,
      endPhrase: null,
      sipCallId,
      lastDialled: target,
      lastContactId: contactId,
    },
  };
}

/** An incoming call rings only on a free line; otherwise it is answered 486 Busy Here. */
export function acceptsIncoming(state: PhoneState): boolean {
  return !state.lineActive;
}

/**
 * A phone number as the PBX dials it: the digits only ("+380 (67) 123-45-67" → "380671234567"; an extension
 * stays as it is). Null when there is nothing to dial or the text is not a number at all.
 */
export function dialableNumber(raw: string): string | null {
  const trimmed = raw.trim();
  if (!/^\+?[\d\s().-]+$/.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, "");
  if (digits.length === 0 || digits.length > 20) return null;
  return digits;
}

/** What the call log is told when the phone moves from one state to the next (server/core/calls). */
export type CallReport =
  | { type: "start"; number: string; direction: "out" | "in"; contactId: number | null; sipCallId: string | null }
  | { type: "answer" }
  | { type: "end"; sipCode?: number; phrase?: string; cause: "hangup" | "remote" | "dial" | "lost" };

export function callReport(prev: PhoneState, next: PhoneState): CallReport | null {
  const wasOn = lineBusy(prev.call);
  if (!wasOn && (next.call === "calling" || next.call === "ringing")) {
    return { type: "start", number: next.peer ?? "", direction: next.direction ?? "out", contactId: next.contactId, sipCallId: next.sipCallId };
  }
  if (next.call === "inCall" && prev.call !== "inCall") return { type: "answer" };
  if (wasOn && next.call === "ended") {
    if (prev.call === "inCall") return { type: "end", cause: "hangup" };
    if (next.endCode !== null) return { type: "end", sipCode: next.endCode, phrase: next.endPhrase ?? undefined, cause: "remote" };
    if (next.error === DIAL_ERROR) return { type: "end", cause: "dial" };
    if (next.error === CALL_ERROR || next.error === CONNECTION_LOST) return { type: "end", cause: "lost" };
    // Ended before an answer with no failure: our own cancel, or (ringing in) the caller gave up or we declined.
    return { type: "end", cause: prev.direction === "in" ? "remote" : "hangup" };
  }
  return null;
}

/** The call timer: 0:07, 1:05, 1:02:03. */
export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** The registration alone, always visible beside the call controls. */
export function describeRegistration(state: PhoneState): string {
  if (state.registration === "registered") return "Телефон подключён";
  if (state.registration === "connecting") return "Подключение телефона…";
  return state.registrationProblem ? `Телефон не подключён: ${state.registrationProblem}` : "Телефон не подключён";
}

/**
 * Why Позвонить cannot call right now, or null when it can: the phone is not registered (issue 31: the button
 * looked active and answered a vague Ошибка набора). The button says it (greyed, with this as its title) and a
 * press shows it.
 */
export function cannotCallReason(state: PhoneState): string | null {
  if (state.registration === "registered") return null;
  if (state.registration === "connecting") return "Позвонить пока нельзя: телефон подключается";
  return `Позвонить нельзя: телефон не подключён${state.registrationProblem ? ` (${state.registrationProblem})` : ""}`;
}

/** DTMF keys of the keypad, in keypad order. */
export const DTMF_KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#"] as const;

/** What the panel says about the phone right now. */
export function describePhone(state: PhoneState): string {
  switch (state.call) {
    case "calling":
      return `Вызов ${state.peer ?? ""}…`;
    case "ringing":
      return `Входящий звонок: ${state.peer ?? ""}`;
    case "inCall":
      return state.held ? `На удержании: ${state.peer ?? ""}` : `Разговор: ${state.peer ?? ""}`;
    case "ended":
      return state.error ?? "Звонок завершён";
    case "idle":
      if (state.registration === "failed") {
        return state.registrationProblem ? `Телефон не подключён: ${state.registrationProblem}` : "Телефон не подключён";
      }
      if (state.registration === "connecting") return "Подключение телефона…";
      return state.error ?? "Телефон готов";
  }
}
