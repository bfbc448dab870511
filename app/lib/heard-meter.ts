/**
 * A listening's (or whisper's) "heard" for the access log (issue 39, decision 071), reported through POST /heard:
 * what the element the person hears played while the relay's packets came (heard-audio.ts says how). Apart from
 * heard-audio.ts (a recording's player, drawn on the busy pages) so that it comes with the WebRTC side of listening
 * (supervision.ts re-exports it), after hydration, not on the pages' path to interactive (decision 091).
 */
const TICK_MS = 1_000;
/** A live page reports this often (a killed browser loses at most this much of the log). */
const REPORT_EVERY_MS = 5_000;

/** As heard-audio.ts posts (a copy of five lines: importing it would tie this module to the layout's chunk). */
function post(fields: Record<string, string>, leaving: boolean) {
  const body = new URLSearchParams(fields);
  // A page that goes away can only beacon; a live one fetches (and hears nothing back it needs).
  if (leaving && navigator.sendBeacon("/heard", body)) return;
  void fetch("/heard", { method: "POST", body, keepalive: true }).catch(() => {});
}

async function inboundAudioPackets(pc: RTCPeerConnection): Promise<number> {
  let packets = 0;
  const stats = await pc.getStats().catch(() => null);
  stats?.forEach((report: { type?: string; kind?: string; packetsReceived?: number }) => {
    if (report.type === "inbound-rtp" && report.kind === "audio") packets += report.packetsReceived ?? 0;
  });
  return packets;
}

/**
 * Measures what `audio` plays of `pc`'s inbound audio for the listening (or whisper) session `sessionId`, reports
 * it at once (nothing heard yet), when audio is first heard, every few seconds while it changes, and a last time at
 * `stop()` or when the page goes away.
 */
export function meterHeardAudio(pc: RTCPeerConnection, audio: HTMLAudioElement, sessionId: string | number): { stop(): void } {
  let heardMs = 0;
  let firstAt: number | null = null;
  let lastAt: number | null = null;
  let lastTime = audio.currentTime;
  let lastPackets = 0;
  let lastWall = performance.now();
  let reported = -1;
  let reportedAt = 0;
  let stopped = false;

  const report = (leaving = false) => {
    const now = performance.now();
    reported = heardMs;
    reportedAt = now;
    post(
      {
        intent: "listen",
        sessionId: String(sessionId),
        heardMs: String(Math.round(heardMs)),
        firstAgoMs: String(Math.round(firstAt === null ? 0 : now - firstAt)),
        lastAgoMs: String(Math.round(lastAt === null ? 0 : now - lastAt)),
      },
      leaving,
    );
  };

  const tick = async () => {
    const packets = await inboundAudioPackets(pc);
    if (stopped) return;
    const now = performance.now();
    const time = audio.currentTime;
    const playing = !audio.paused && audio.readyState >= 2 && time > lastTime && packets > lastPackets;
    if (playing) {
      heardMs += Math.min(now - lastWall, (time - lastTime) * 1000);
      firstAt ??= lastWall;
      lastAt = now;
    }
    lastTime = time;
    lastPackets = packets;
    lastWall = now;
    if (heardMs !== reported && (reported <= 0 || now - reportedAt >= REPORT_EVERY_MS)) report();
  };

  const timer = setInterval(() => void tick(), TICK_MS);
  const onHide = () => {
    if (!stopped) report(true);
  };
  window.addEventListener("pagehide", onHide);
  void inboundAudioPackets(pc).then((packets) => {
    lastPackets = packets;
  });
  report();
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      window.removeEventListener("pagehide", onHide);
      report(true);
    },
  };
}
