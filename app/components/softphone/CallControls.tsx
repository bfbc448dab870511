import { useEffect, useState } from "react";
import { DTMF_KEYS, describeRegistration, formatDuration, type PhoneState } from "../../lib/softphone/machine";
import { useSoftphone } from "./SoftphoneProvider";
// Loaded after the layout, and shares its modules: one chunk with them (app/layout-chunk.ts, decision 090).
import "../../layout-chunk";

/** The running call's length from the answer, updated every second. */
function CallTimer({ answeredAt }: { answeredAt: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return (
    <span role="timer" aria-label="Длительность разговора" className="font-mono text-sm tabular-nums" data-testid="call-timer">
      {formatDuration(now - answeredAt)}
    </span>
  );
}

/** The microphones the browser offers (names appear once the browser was allowed to use one). */
function MicrophonePicker() {
  const { microphone, setMicrophone } = useSoftphone();
  const [devices, setDevices] = useState<MediaDeviceInfo[]>([]);
  useEffect(() => {
    const media = navigator.mediaDevices;
    if (!media?.enumerateDevices) return;
    const load = () =>
      media
        .enumerateDevices()
        // Before the browser was allowed a microphone it lists one nameless entry; the picker mounts again after
        // each call, by which time it names them all.
        .then((all) => setDevices(all.filter((d) => d.kind === "audioinput" && d.deviceId !== "" && d.deviceId !== "default")))
        .catch(() => {});
    load();
    media.addEventListener?.("devicechange", load);
    return () => media.removeEventListener?.("devicechange", load);
  }, []);
  if (devices.length < 2 && !microphone) return null;
  return (
    <label className="flex items-center gap-1 text-sm">
      <span>Микрофон</span>
      <select className="input py-1" value={microphone} onChange={(event) => setMicrophone(event.target.value)} data-testid="microphone-select">
        <option value="">По умолчанию</option>
        {devices.map((device, index) => (
          <option key={device.deviceId} value={device.deviceId}>
            {device.label || `Микрофон ${index + 1}`}
          </option>
        ))}
      </select>
    </label>
  );
}

const toggle = (on: boolean) =>
  `rounded border px-2 py-1 text-sm ${on ? "border-amber-500 bg-amber-100 dark:bg-amber-900" : "border-slate-300 dark:border-slate-600"}`;

/**
 * What the manager can do during a call (issue 15 part 2): microphone off, hold, the DTMF keypad and the timer;
 * between calls Повторить and the microphone choice. Every control is a labelled button reachable with Tab.
 * Повторить belongs to the lead it was made on (issue 41): it shows only while the panel's client (`contactId`)
 * is the one last dialled, never on the next lead.
 */
export function CallControls({ state, contactId }: { state: PhoneState; contactId: number | null }) {
  const softphone = useSoftphone();
  const [keypad, setKeypad] = useState(false);
  const [typed, setTyped] = useState("");
  const inCall = state.call === "inCall";
  useEffect(() => {
    if (!inCall) {
      setKeypad(false);
      setTyped("");
    }
  }, [inCall]);
  const press = (key: string) => {
    if (softphone.sendDtmf(key)) setTyped((text) => (text + key).slice(-20));
  };

  return (
    <div className="flex flex-wrap items-center gap-2" data-testid="call-controls">
      {/* Between calls the panel's state says the registration already; during one it is said here. */}
      {state.call !== "idle" ? (
        <span className="text-xs text-slate-500 dark:text-slate-400" data-testid="registration-state">
          {describeRegistration(state)}
        </span>
      ) : null}
      {inCall && state.answeredAt ? <CallTimer answeredAt={state.answeredAt} /> : null}
      {inCall ? (
        <>
          <button
            type="button"
            className={toggle(state.muted)}
            aria-pressed={state.muted}
            onClick={() => softphone.setMuted(!state.muted)}
            data-testid="mute-button"
          >
            {state.muted ? "Включить микрофон" : "Выключить микрофон"}
          </button>
          <button
            type="button"
            className={toggle(state.held)}
            aria-pressed={state.held}
            onClick={() => softphone.setHeld(!state.held)}
            data-testid="hold-button"
          >
            {state.held ? "Снять с удержания" : "Удержание"}
          </button>
          <button
            type="button"
            className={toggle(keypad)}
            aria-expanded={keypad}
            aria-controls="dtmf-keypad"
            onClick={() => setKeypad((open) => !open)}
            data-testid="keypad-button"
          >
            Клавиатура
          </button>
        </>
      ) : null}
      {!state.lineActive && state.lastDialled && state.lastContactId === contactId ? (
        <button
          type="button"
          className={toggle(false)}
          aria-label={`Повторить вызов ${state.lastDialled}`}
          onClick={softphone.redial}
          data-testid="redial-button"
        >
          Повторить
        </button>
      ) : null}
      {!state.lineActive ? <MicrophonePicker /> : null}
      {inCall && keypad ? (
        <div id="dtmf-keypad" role="group" aria-label="Тональный набор" className="flex w-full flex-col gap-1">
          <output aria-live="polite" className="font-mono text-sm" data-testid="dtmf-typed">
            {typed}
          </output>
          <div className="grid w-40 grid-cols-3 gap-1">
            {DTMF_KEYS.map((key) => (
              <button
                key={key}
                type="button"
                className="rounded border border-slate-300 py-1 font-mono dark:border-slate-600"
                aria-label={`Тон ${key}`}
                onClick={() => press(key)}
                data-testid={`dtmf-${key === "*" ? "star" : key === "#" ? "hash" : key}`}
              >
                {key}
              </button>
            ))}
          </div>
        </div>
      ) : null}
    </div>
  );
}
