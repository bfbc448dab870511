import { useEffect, useRef, useState } from "react";
import type { HistoryEntry } from "../../calls.server";
import { CALL_LOGGED, type CallLogged } from "../../lib/softphone/call-logged";

/** How many times, a second apart, the panel looks again for the end of a call the phone has hung up. */
const END_LOOKS = 5;

interface Followed {
  contactId: number;
  readAt: number;
  history: HistoryEntry[];
}

/** The client's history from /history/:id, or null when it could not be read (the page then stays as it is). */
async function readHistory(contactId: number): Promise<Followed | null> {
  try {
    const res = await fetch(`/history/${contactId}`, { headers: { Accept: "application/json" }, cache: "no-store" });
    if (!res.ok) return null;
    const body = (await res.json()) as { readAt: number; history: HistoryEntry[] };
    return { contactId, readAt: body.readAt, history: body.history };
  } catch {
    return null;
  }
}

/**
 * Issue 41 §14: the client's history said «Звонок: идёт» until the page's next refresh (every 15 s) after the
 * hang-up. The panel reads the lead's history again as soon as the call log has taken a call's start or end
 * (call-logged.ts's CALL_LOGGED, sent by call-log.ts only for a report the server took). A call the SIP proxy admitted is closed by
 * the proxy's own report (decision 049), which may come a moment after the browser's: while the phone is idle and the
 * history still shows a call going on, it looks again each second, a few times, after a call ended here.
 *
 * The read is a plain fetch of /history/:id, not a revalidation of the page: a read that fails (the server or its
 * database away, a 500) leaves the page as it is, where a failed revalidation put the error page in place of the
 * panel and its ringing call (87dd0ff). Returns the history to show: the newer of the page's own (`shown`, read at
 * `readAt`) and the last one read here for the same client.
 */
export function useHistoryFollowsCalls(contactId: number | null, shown: HistoryEntry[], readAt: number, phoneIdle: boolean): HistoryEntry[] {
  const [followed, setFollowed] = useState<Followed | null>(null);
  const [looks, setLooks] = useState(END_LOOKS);
  const lead = useRef(contactId);
  lead.current = contactId;
  const read = useRef(async () => {
    const id = lead.current;
    if (id === null) return;
    const fresh = await readHistory(id);
    if (fresh) setFollowed((last) => (last && last.contactId === fresh.contactId && last.readAt > fresh.readAt ? last : fresh));
  });

  useEffect(() => {
    const onLogged = (event: Event) => {
      if ((event as CallLogged).detail === "end") setLooks(0);
      void read.current();
    };
    window.addEventListener(CALL_LOGGED, onLogged);
    return () => window.removeEventListener(CALL_LOGGED, onLogged);
  }, []);

  const history = followed && followed.contactId === contactId && followed.readAt > readAt ? followed.history : shown;
  const callGoingOn = history.some((entry) => entry.kind === "call" && entry.outcome === null);
  useEffect(() => {
    if (!phoneIdle || !callGoingOn || looks >= END_LOOKS) return;
    const timer = setTimeout(() => {
      setLooks((n) => n + 1);
      void read.current();
    }, 1000);
    return () => clearTimeout(timer);
  }, [phoneIdle, callGoingOn, looks]);
  return history;
}
