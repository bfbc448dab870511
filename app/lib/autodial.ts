/**
 * Progressive dialing on the lead panel (issue 29, decision 058), without React and without sip.js: whether the
 * lead on screen is dialled by itself now, or why not; which ended calls say the line is down. The panel feeds it
 * what it knows; the unit tests feed it the same by hand (test/core/autodial.test.ts).
 */
import { PROXY_REFUSALS } from "../../common/proxy-refusals";
import { callReport, type PhoneState } from "./softphone/machine";

/** Two calls in a row that failed on the network stop autodial (the line looks down). */
export const NETWORK_FAILURES_TO_STOP = 2;

/** Where this browser tab remembers «Пауза» (a reload keeps it; a new tab starts unpaused). */
export const AUTODIAL_PAUSED_KEY = "autodial.paused";

/**
 * What became of autodial for the lead on screen: still to be dialled, skipped with «Пропустить», or a call was
 * placed to it (by autodial or by Позвонить). Each lead shown, also the same client shown again after a press,
 * starts armed.
 */
export type LeadDial = "armed" | "skipped" | "called";

export interface AutodialInputs {
  /** The topic's «Автонабор через N с»; null: off. */
  seconds: number | null;
  /** The server's word on this lead (server/core/leads/autodial.ts). */
  leadBlock: "do_not_call" | "outside_hours" | null;
  onBreak: boolean;
  /** The softphone runs and is registered. */
  registered: boolean;
  /** A call is being placed, ringing or talking. */
  lineActive: boolean;
  /** A status press is on its way or waits in a dialog: the lead is about to change. */
  pressing: boolean;
  /** Calls in a row that failed on the network (networkStreak). */
  networkFailures: number;
  paused: boolean;
  lead: LeadDial;
}

export const AUTODIAL_STOPPED = {
  break: "Автонабор не звонит во время перерыва",
  unregistered: "Автонабор ждёт, пока подключится телефон",
  lineDown:
    "Похоже, линия не работает: два звонка подряд не прошли по сети. Автонабор остановлен до звонка, который пройдёт; звоните кнопкой «Позвонить»",
  doNotCall: "Автонабор не звонит: номер в списке «Не звонить»",
  outsideHours: "Автонабор не звонит: у клиента сейчас нерабочее время",
  paused: "Автонабор на паузе",
  skipped: "Автонабор пропустил этого клиента: позвонить можно кнопкой «Позвонить»",
} as const;

export type AutodialState =
  /** The topic has no autodial: the panel shows nothing of it. */
  | { kind: "off" }
  /** The countdown runs: the call starts by itself after `seconds`. */
  | { kind: "countdown"; seconds: number }
  /** Nothing to say: a call was placed to this lead, a call is on, or a press is on its way. */
  | { kind: "idle" }
  /** Not dialled by itself, and the panel says why. */
  | { kind: "stopped"; reason: keyof typeof AUTODIAL_STOPPED; text: string };

const stopped = (reason: keyof typeof AUTODIAL_STOPPED): AutodialState => ({ kind: "stopped", reason, text: AUTODIAL_STOPPED[reason] });

/** The one rule: the lead on screen is counted down and dialled only when nothing below holds. */
export function autodialState(i: AutodialInputs): AutodialState {
  if (i.seconds === null) return { kind: "off" };
  if (i.lead === "called" || i.lineActive || i.pressing) return { kind: "idle" };
  if (i.onBreak) return stopped("break");
  if (!i.registered) return stopped("unregistered");
  if (i.networkFailures >= NETWORK_FAILURES_TO_STOP) return stopped("lineDown");
  if (i.leadBlock === "do_not_call") return stopped("doNotCall");
  if (i.leadBlock === "outside_hours") return stopped("outsideHours");
  if (i.paused) return stopped("paused");
  if (i.lead === "skipped") return stopped("skipped");
  return { kind: "countdown", seconds: i.seconds };
}

/**
 * What an ended call says about the line: "network" when it failed on the way (no final answer, the connection to
 * the PBX lost, a 5xx from the carrier or the stack), "through" when it reached the other side (answered, or the
 * client's own answer: busy, no answer, declined, unknown number), null when it says nothing (nothing was sent,
 * or the app's own rules refused it: do-not-call, break, hours).
 */
export type CallVerdict = "network" | "through" | null;

const POLICY_PHRASES = new Set(
  Object.keys(PROXY_REFUSALS).filter((phrase) => phrase !== "Carrier Not Responding" && phrase !== "Call Policy Unavailable"),
);

export function callVerdict(prev: PhoneState, next: PhoneState): CallVerdict {
  const report = callReport(prev, next);
  if (report?.type !== "end") return null;
  if (report.cause === "lost") return "network";
  if (report.cause === "dial") return null;
  if (report.sipCode !== undefined) {
    if (report.phrase && POLICY_PHRASES.has(report.phrase)) return null;
    return report.sipCode >= 500 && report.sipCode < 600 ? "network" : "through";
  }
  return "through";
}

/** Calls in a row that failed on the network, after one more ended call. */
export function networkStreak(streak: number, verdict: CallVerdict): number {
  if (verdict === "network") return streak + 1;
  if (verdict === "through") return 0;
  return streak;
}
