/**
 * What a page's audio really played, reported for the access log (issue 39, decision 071) through POST /heard.
 * Runs in the browser only. A listening's "heard" is what the element the person hears played while the relay's
 * packets came: the element not paused, its currentTime moving, and the connection's inbound audio packets
 * growing, checked every second (an element stuck at readyState 0, or a relay that stopped sending, adds nothing).
 * A recording's "played" is the sum of the element's own played ranges. The listening's meter is heard-meter.ts.
 */
import { type RefObject, useEffect, useState } from "react";

/** A live page reports this often (a killed browser loses at most this much of the log). */
const REPORT_EVERY_MS = 5_000;

function post(fields: Record<string, string>, leaving: boolean) {
  const body = new URLSearchParams(fields);
  // A page that goes away can only beacon; a live one fetches (and hears nothing back it needs).
  if (leaving && navigator.sendBeacon("/heard", body)) return;
  void fetch("/heard", { method: "POST", body, keepalive: true }).catch(() => {});
}

/** The seconds an element has played of its media, each part once (its `played` ranges), in ms. */
export function playedMs(audio: HTMLMediaElement): number {
  let total = 0;
  for (let i = 0; i < audio.played.length; i++) total += audio.played.end(i) - audio.played.start(i);
  return Math.round(total * 1000);
}

function newPlayKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * A recording's player on a page: once the page runs its script the player gets a key of its own (its address
 * carries ?play=<key>, so the server logs one play for all its requests), and reports how much it has played at
 * a pause, the end, every few seconds while it plays, and when the page goes away. Without JavaScript the player
 * still plays, and the log says it was not told how much.
 */
export function usePlayReport(audio: RefObject<HTMLAudioElement>): string | null {
  const [key, setKey] = useState<string | null>(null);
  useEffect(() => setKey(newPlayKey()), []);
  useEffect(() => {
    const element = audio.current;
    if (!element || !key) return;
    let reported = 0;
    let reportedAt = 0;
    const report = (leaving: boolean) => {
      const played = playedMs(element);
      if (played <= reported) return;
      reported = played;
      reportedAt = performance.now();
      post({ intent: "recording", playKey: key, playedMs: String(played) }, leaving);
    };
    const onPause = () => report(false);
    const onTime = () => {
      if (performance.now() - reportedAt >= REPORT_EVERY_MS) report(false);
    };
    const onHide = () => report(true);
    element.addEventListener("pause", onPause);
    element.addEventListener("ended", onPause);
    element.addEventListener("timeupdate", onTime);
    window.addEventListener("pagehide", onHide);
    return () => {
      element.removeEventListener("pause", onPause);
      element.removeEventListener("ended", onPause);
      element.removeEventListener("timeupdate", onTime);
      window.removeEventListener("pagehide", onHide);
      report(true);
    };
  }, [audio, key]);
  return key;
}
