/**
 * Tells the server's call log (/calls) about the softphone's calls: start, answer, "still on" every 30 s, end.
 * Follows the phone's state (`callReport` in machine.ts decides what each change means); a report that fails is
 * dropped, never shown: the call itself matters more, and the server closes a call it stops hearing about.
 */
import { CALL_LOGGED } from "./call-logged";
import { callReport, type PhoneState } from "./machine";
// Loaded with the softphone, after the layout, and shares its modules (machine.ts): one chunk with them (app/layout-chunk.ts, decision 090).
import "../../layout-chunk";

const KEEP_ALIVE_MS = 30_000;
const URL = "/calls";

const logged = (type: "start" | "end") => window.dispatchEvent(new CustomEvent(CALL_LOGGED, { detail: type }));

interface Phone {
  getState(): PhoneState;
  subscribe(listener: (state: PhoneState) => void): () => void;
}

function form(fields: Record<string, string | number | null | undefined>): FormData {
  const body = new FormData();
  for (const [key, value] of Object.entries(fields)) if (value !== null && value !== undefined) body.set(key, String(value));
  return body;
}

async function post(fields: Record<string, string | number | null | undefined>): Promise<Response | null> {
  try {
    return await fetch(URL, { method: "POST", body: form(fields), credentials: "same-origin" });
  } catch {
    return null;
  }
}

/** Starts reporting; the returned function stops it (the softphone stopped). */
export function reportCalls(phone: Phone): () => void {
  let previous = phone.getState();
  /** The open call's id, once the server has answered the start. */
  let callId: Promise<number | null> | null = null;
  let known: number | null = null;
  let keepAlive: ReturnType<typeof setInterval> | undefined;

  const withCall = (send: (id: number) => unknown) => {
    const pending = callId;
    if (pending) void pending.then((id) => (id === null ? undefined : send(id)));
  };

  const unsubscribe = phone.subscribe((state) => {
    const report = callReport(previous, state);
    previous = state;
    if (!report) return;
    if (report.type === "start") {
      known = null;
      callId = post({
        intent: "start",
        number: report.number,
        direction: report.direction,
        contactId: report.contactId,
        sipCallId: report.sipCallId,
      }).then(async (res) => {
        if (!res?.ok) return null;
        known = ((await res.json()) as { id: number }).id;
        logged("start");
        return known;
      });
      clearInterval(keepAlive);
      keepAlive = setInterval(() => withCall((id) => post({ intent: "alive", id })), KEEP_ALIVE_MS);
    } else if (report.type === "answer") {
      withCall((id) => post({ intent: "answer", id }));
    } else {
      clearInterval(keepAlive);
      withCall(async (id) => {
        const res = await post({ intent: "end", id, sipCode: report.sipCode, phrase: report.phrase, cause: report.cause });
        if (res?.ok) logged("end");
      });
      callId = null;
      known = null;
    }
  });

  // A closed or reloaded tab: the softphone sends its BYE, and the log hears of the end by a beacon.
  const onPageHide = () => {
    if (known !== null) navigator.sendBeacon(URL, form({ intent: "end", id: known, cause: "hangup" }));
    known = null;
    callId = null;
    clearInterval(keepAlive);
  };
  window.addEventListener("pagehide", onPageHide);

  return () => {
    onPageHide();
    unsubscribe();
    clearInterval(keepAlive);
    window.removeEventListener("pagehide", onPageHide);
  };
}
