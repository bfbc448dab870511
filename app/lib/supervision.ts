/**
 * The browser's side of live listening and whisper (issue 28, decision 056): WebRTC with rtpengine, signalled
 * through POST /listen. Used by the admin's /users (ListenButton, WhisperButton) and the manager's layout
 * (WhisperReceiver).
 */
import { candidatesGathered } from "./ice-candidates";

/** The access log's meter of what a listening or whisper plays: fetched with this module, after hydration. */
export { meterHeardAudio } from "./heard-meter";

/** The longest an offer or answer waits for ICE candidates. */
const ICE_TIMEOUT_MS = 1_000;

/** A refusal of POST /listen: the server's Russian message and its code ("call_not_answered"…). */
export class ListenRefusal extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
  }
}

/** POST /listen; a refusal becomes a ListenRefusal with the server's Russian message, no answer at all a Russian one too. */
export async function postListen<T = void>(fields: Record<string, string>, fallback: string): Promise<T> {
  const response = await fetch("/listen", { method: "POST", body: new URLSearchParams(fields) }).catch(() => {
    throw new ListenRefusal(`${fallback}: сервер недоступен`, null);
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { message?: string; error?: string } | null;
    throw new ListenRefusal(body?.message ?? fallback, body?.error ?? null);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** A live WebRTC leg with rtpengine and what it plays or captures; `close` ends it all. */
export interface RelayLeg {
  pc: RTCPeerConnection;
  close(): void;
}

/** How long the leg may stay disconnected (no packets, no answers to ICE's checks) before it counts as lost. */
const LOST_AFTER_MS = 3_000;

/**
 * Calls `lost` once when the leg's audio stops reaching rtpengine or coming from it for good: its connection
 * failed, or stayed disconnected LOST_AFTER_MS (rtpengine stopped, frozen or unreachable). Answers the unwatch.
 */
export function watchLeg(pc: RTCPeerConnection, lost: () => void): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let done = false;
  const fire = () => {
    if (done) return;
    done = true;
    lost();
  };
  const check = () => {
    const state = pc.connectionState;
    if (state === "failed") fire();
    else if (state === "disconnected") timer ??= setTimeout(fire, LOST_AFTER_MS);
    else if (timer) {
      clearTimeout(timer);
      timer = undefined;
    }
  };
  pc.addEventListener("connectionstatechange", check);
  return () => {
    done = true;
    if (timer) clearTimeout(timer);
    pc.removeEventListener("connectionstatechange", check);
  };
}

/** Answers rtpengine's send-only offer and plays every audio section it carries (a stream's tracks are mixed). */
export async function receiveAudio(offerSdp: string, label: string): Promise<RelayLeg & { answerSdp: string; audio: HTMLAudioElement }> {
  const pc = new RTCPeerConnection({ iceServers: [] });
  const audio = document.createElement("audio");
  audio.autoplay = true;
  audio.hidden = true;
  audio.dataset.relayLeg = label;
  document.body.appendChild(audio);
  const close = () => {
    pc.close();
    audio.srcObject = null;
    audio.remove();
  };
  try {
    await pc.setRemoteDescription({ type: "offer", sdp: offerSdp });
    // The element gets its stream once the tracks exist (DESIGN §13): Chromium leaves an <audio autoplay> given an
    // empty MediaStream paused for good when tracks are added to it later, live as they are.
    audio.srcObject = new MediaStream(
      pc
        .getReceivers()
        .map((receiver) => receiver.track)
        .filter((track) => track.kind === "audio"),
    );
    audio.play().catch((error) => console.warn("[relay] the audio does not play", error));
    await pc.setLocalDescription(await pc.createAnswer());
    await candidatesGathered(pc, [], ICE_TIMEOUT_MS);
    return { pc, close, audio, answerSdp: pc.localDescription?.sdp ?? "" };
  } catch (error) {
    close();
    throw error;
  }
}

/** The microphone as a send-only offer; the answer is applied with `accept`. */
export async function sendMicrophone(): Promise<RelayLeg & { offerSdp: string; accept(answerSdp: string): Promise<void> }> {
  const microphone = await navigator.mediaDevices.getUserMedia({ audio: true });
  const pc = new RTCPeerConnection({ iceServers: [] });
  for (const track of microphone.getAudioTracks()) pc.addTransceiver(track, { direction: "sendonly", streams: [microphone] });
  const close = () => {
    pc.close();
    for (const track of microphone.getTracks()) track.stop();
  };
  try {
    await pc.setLocalDescription(await pc.createOffer());
    await candidatesGathered(pc, [], ICE_TIMEOUT_MS);
    return {
      pc,
      close,
      offerSdp: pc.localDescription?.sdp ?? "",
      accept: (answerSdp) => pc.setRemoteDescription({ type: "answer", sdp: answerSdp }),
    };
  } catch (error) {
    close();
    throw error;
  }
}
