import { useEffect, useRef, useState } from "react";
import { candidatesGathered } from "../../lib/ice-candidates";
import { notify } from "../ui/Toasts";

/** The longest the answer waits for ICE candidates. */
const ICE_TIMEOUT_MS = 1_000;

type Phase = "idle" | "starting" | "listening";

async function post(fields: Record<string, string>): Promise<Response> {
  const response = await fetch("/listen", { method: "POST", body: new URLSearchParams(fields) });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { message?: string } | null;
    throw new Error(body?.message ?? "Не удалось начать прослушивание");
  }
  return response;
}

/**
 * «Слушать» / «Стоп» on /users for a manager in a call (issue 28): the admin's browser answers rtpengine's send-only
 * offer and plays both parties (one audio section each; a media element mixes a stream's audio tracks). Nothing
 * reaches the manager or the client. WebRTC needs JavaScript: without it the button is not shown.
 */
export function ListenButton({ managerId, login }: { managerId: number; login: string }) {
  const [phase, setPhase] = useState<Phase>("idle");
  const live = useRef<{ pc: RTCPeerConnection; audio: HTMLAudioElement; sessionId: string } | null>(null);

  const stop = () => {
    const current = live.current;
    live.current = null;
    setPhase("idle");
    if (!current) return;
    current.pc.close();
    current.audio.srcObject = null;
    current.audio.remove();
    void post({ intent: "stop", sessionId: current.sessionId }).catch(() => {});
  };

  // The page going away ends the session too (sendBeacon survives the unload).
  useEffect(() => {
    const onHide = () => {
      const current = live.current;
      if (current) navigator.sendBeacon("/listen", new URLSearchParams({ intent: "stop", sessionId: current.sessionId }));
    };
    window.addEventListener("pagehide", onHide);
    return () => {
      window.removeEventListener("pagehide", onHide);
      stop();
    };
  }, []);

  const start = async () => {
    setPhase("starting");
    let pc: RTCPeerConnection | null = null;
    try {
      const offer = (await (await post({ intent: "start", managerId: String(managerId) })).json()) as { sessionId: number; sdp: string };
      pc = new RTCPeerConnection({ iceServers: [] });
      const audio = document.createElement("audio");
      audio.autoplay = true;
      audio.hidden = true;
      audio.dataset.listening = login;
      document.body.appendChild(audio);
      const stream = new MediaStream();
      audio.srcObject = stream;
      pc.addEventListener("track", (event) => stream.addTrack(event.track));
      live.current = { pc, audio, sessionId: String(offer.sessionId) };
      await pc.setRemoteDescription({ type: "offer", sdp: offer.sdp });
      await pc.setLocalDescription(await pc.createAnswer());
      await candidatesGathered(pc, [], ICE_TIMEOUT_MS);
      await post({ intent: "answer", sessionId: String(offer.sessionId), sdp: pc.localDescription?.sdp ?? "" });
      setPhase("listening");
    } catch (error) {
      stop();
      notify("error", error instanceof Error ? error.message : "Не удалось начать прослушивание");
    }
  };

  return phase === "listening" ? (
    <button type="button" className="btn-secondary py-1" onClick={stop} data-testid="listen-stop">
      Стоп
    </button>
  ) : (
    <button type="button" className="btn-secondary py-1" onClick={() => void start()} disabled={phase === "starting"} data-testid="listen">
      Слушать
    </button>
  );
}
