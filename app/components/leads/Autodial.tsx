import { useEffect, useRef, useState } from "react";
import {
  AUTODIAL_PAUSED_KEY,
  autodialState,
  callVerdict,
  networkStreak,
  type AutodialInputs,
  type AutodialState,
  type LeadDial,
} from "../../lib/autodial";
import type { PhoneState } from "../../lib/softphone/machine";

function storedPause(): boolean {
  try {
    return window.sessionStorage.getItem(AUTODIAL_PAUSED_KEY) === "1";
  } catch {
    return false;
  }
}

export interface AutodialOptions extends Omit<AutodialInputs, "lead" | "paused" | "networkFailures" | "registered" | "lineActive"> {
  /** The lead on screen, one key per showing (the same client shown again after a press is a new showing). */
  showing: string | null;
  /** The softphone's state; null while there is none (then nothing is dialled by itself). */
  phone: PhoneState | null;
  /** Places the call, as Позвонить does. */
  dial(): void;
  /** The client's name and phone, for the screen reader's one announcement. */
  client: string;
}

/**
 * The lead panel's autodial (decision 058): counts down for each lead shown and dials it at zero, unless the rule
 * of app/lib/autodial.ts says not now. It never moves the focus; the visible seconds are a timer a screen reader
 * does not read out, and one polite announcement is made when a countdown starts.
 */
export function useAutodial(options: AutodialOptions) {
  const { showing, phone, dial } = options;
  const [leads, setLeads] = useState<{ showing: string | null; dial: LeadDial }>({ showing, dial: "armed" });
  const lead: LeadDial = leads.showing === showing ? leads.dial : "armed";
  const setLead = (next: LeadDial) => setLeads({ showing, dial: next });
  const [paused, setPaused] = useState(false);
  useEffect(() => setPaused(storedPause()), []);
  const [failures, setFailures] = useState(0);

  // Every ended call, autodial's or a manual one, moves the line's streak; any call placed uses up this lead's.
  const lastPhone = useRef<PhoneState | null>(phone);
  useEffect(() => {
    const prev = lastPhone.current;
    lastPhone.current = phone;
    if (!prev || !phone) return;
    const verdict = callVerdict(prev, phone);
    if (verdict) setFailures((n) => networkStreak(n, verdict));
    if (!prev.lineActive && phone.lineActive && phone.direction === "out") setLeads({ showing, dial: "called" });
  }, [phone, showing]);

  const state = autodialState({
    ...options,
    registered: phone?.registration === "registered",
    lineActive: phone?.lineActive ?? false,
    networkFailures: failures,
    paused,
    lead: showing ? lead : "called",
  });

  // The countdown: a deadline set when it starts, the call at the deadline; anything that stops it clears both.
  const counting = state.kind === "countdown";
  const [deadline, setDeadline] = useState<number | null>(null);
  const [, tick] = useState(0);
  const dialRef = useRef(dial);
  dialRef.current = dial;
  useEffect(() => {
    if (!counting) {
      setDeadline(null);
      return;
    }
    const seconds = (state as { seconds: number }).seconds;
    const end = Date.now() + seconds * 1000;
    setDeadline(end);
    const ticker = setInterval(() => tick((n) => n + 1), 250);
    const timer = setTimeout(() => {
      setLeads({ showing, dial: "called" });
      dialRef.current();
    }, seconds * 1000);
    return () => {
      clearInterval(ticker);
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a new countdown for each showing and each start
  }, [counting, showing]);

  const skip = () => {
    if (counting) setLead("skipped");
  };
  const togglePause = () => {
    if (state.kind === "off") return;
    const next = !paused;
    setPaused(next);
    try {
      if (next) window.sessionStorage.setItem(AUTODIAL_PAUSED_KEY, "1");
      else window.sessionStorage.removeItem(AUTODIAL_PAUSED_KEY);
    } catch {
      // Private mode: the pause lasts for this page only.
    }
  };
  const left = deadline === null ? null : Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
  return { state, paused, left, skip, togglePause };
}

export type { AutodialState };
