import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import { softphoneConfig, type SoftphoneSettings } from "../../lib/softphone/config";
import { DIAL_ERROR, type PhoneState } from "../../lib/softphone/machine";
import type { Softphone } from "../../lib/softphone/softphone";
import { notify } from "../ui/Toasts";

export interface SoftphoneContextValue {
  /** The user has SIP credentials and the server a SIP address: a softphone will run after hydration. */
  configured: boolean;
  /** Null until the softphone runs (server render, JavaScript off, no SIP credentials). */
  state: PhoneState | null;
  /** Dials a number; `contactId` when it is the lead panel's client (the call log ties the call to him). */
  call(number: string, contactId?: number): void;
  answer(): void;
  hangUp(): void;
  redial(): void;
  setMuted(on: boolean): void;
  setHeld(on: boolean): void;
  /** False when the key could not be sent (no call up). */
  sendDtmf(key: string): boolean;
  /** The chosen microphone's deviceId ("" for the browser's default), remembered in this browser. */
  microphone: string;
  setMicrophone(deviceId: string): void;
  /** A page's call panel says the phone's state: the dock steps aside while it is shown (call the returned function when it goes). */
  showsPhone(): () => void;
  /** Whether a page's call panel says the phone's state now. */
  phoneShownByPage: boolean;
}

const SoftphoneContext = createContext<SoftphoneContextValue>({
  configured: false,
  state: null,
  call: () => {},
  answer: () => {},
  hangUp: () => {},
  redial: () => {},
  setMuted: () => {},
  setHeld: () => {},
  sendDtmf: () => false,
  microphone: "",
  setMicrophone: () => {},
  showsPhone: () => () => {},
  phoneShownByPage: false,
});

/** Where this browser remembers the manager's microphone. */
export const MICROPHONE_KEY = "softphone.microphone";

function storedMicrophone(): string {
  try {
    return window.localStorage.getItem(MICROPHONE_KEY) ?? "";
  } catch {
    return "";
  }
}

export const useSoftphone = () => useContext(SoftphoneContext);

/**
 * Runs the browser softphone for the logged-in user: created after hydration (sip.js is loaded then, never on the
 * server), only when the user has a SIP login and password, and stopped (calls ended, unregistered) when the
 * layout goes away or the credentials change.
 */
export function SoftphoneProvider({
  settings,
  user,
  children,
}: {
  settings: SoftphoneSettings;
  user: { sipLogin: string; sipPassword: string };
  children: ReactNode;
}) {
  const config = softphoneConfig(settings, user);
  const [phone, setPhone] = useState<Softphone | null>(null);
  const [state, setState] = useState<PhoneState | null>(null);
  const [microphone, setMicrophoneState] = useState("");
  const [panels, setPanels] = useState(0);
  const showsPhone = useCallback(() => {
    setPanels((n) => n + 1);
    return () => setPanels((n) => n - 1);
  }, []);
  const { wsUrl, domain, sipLogin, sipPassword } = config ?? {};

  useEffect(() => {
    if (!wsUrl || !domain || !sipLogin || !sipPassword) return;
    let cancelled = false;
    let instance: Softphone | null = null;
    let stopReporting: (() => void) | null = null;
    // The call log's reporting comes with the phone, after hydration: it does nothing before (decision 091).
    Promise.all([import("../../lib/softphone/softphone"), import("../../lib/softphone/call-log")])
      .then(([{ Softphone }, { reportCalls }]) => {
        if (cancelled) return;
        instance = new Softphone({ wsUrl, domain, sipLogin, sipPassword }, { onNotice: (notice) => notify(notice.kind, notice.text) });
        // Before start(): the call log's pagehide beacon must run before the softphone's own pagehide stop.
        stopReporting = reportCalls(instance);
        instance.setMicrophone(storedMicrophone() || null);
        setMicrophoneState(storedMicrophone());
        instance.subscribe(setState);
        setState(instance.getState());
        setPhone(instance);
        void instance.start();
      })
      .catch(() => {
        if (!cancelled) notify("error", "Не удалось загрузить телефон");
      });
    return () => {
      cancelled = true;
      stopReporting?.();
      void instance?.stop();
      setPhone(null);
      setState(null);
    };
  }, [wsUrl, domain, sipLogin, sipPassword]);

  const configured = config !== null;
  const value = useMemo<SoftphoneContextValue>(
    () => ({
      configured,
      state,
      call: (number, contactId) => (phone ? phone.call(number, contactId ?? null) : notify("error", DIAL_ERROR)),
      answer: () => phone?.answer(),
      hangUp: () => void phone?.hangUp(),
      redial: () => phone?.redial(),
      setMuted: (on) => phone?.setMuted(on),
      setHeld: (on) => phone?.setHeld(on),
      sendDtmf: (key) => phone?.sendDtmf(key) ?? false,
      microphone,
      setMicrophone: (deviceId) => {
        try {
          if (deviceId) window.localStorage.setItem(MICROPHONE_KEY, deviceId);
          else window.localStorage.removeItem(MICROPHONE_KEY);
        } catch {
          // Private mode: the choice lasts for this page only.
        }
        setMicrophoneState(deviceId);
        phone?.setMicrophone(deviceId || null);
      },
      showsPhone,
      phoneShownByPage: panels > 0,
    }),
    [configured, state, phone, microphone, showsPhone, panels],
  );
  return <SoftphoneContext.Provider value={value}>{children}</SoftphoneContext.Provider>;
}
