/**
 * The browser's side of live listening and whisper (issue 28, decision 056): WebRTC with rtpengine, signalled
 * through POST /listen. Used by the admin's /users (ListenButton, WhisperButton) and the manager's layout
 * (WhisperReceiver).
 */
import { candidatesGathered } from "./ice-candidates";

/** The longest an offer or answer waits for ICE candidates. */
const ICE_TIMEOUT_MS = 1_000;

/** POST /listen; a refusal becomes an Error with the server's Russian message. */
export async function postListen<T = void>(fields: Record<string, string>, fallback: string): Promise<T> {
  const response = await fetch("/listen", { method: "POST", body: new URLSearchParams(fields) });
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { message?: string } | null;
    throw new Error(body?.message ?? fallback);
  }
  return (response.status === 204 ? undefined : await response.json()) as T;
}

/** A live WebRTC leg with rtpengine and what it plays or captures; `close` ends it all. */
export interface RelayLeg {
  pc: RTCPeerConnection;
  close(): void;
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
    audio.srcObject = new MediaStream(pc.getReceivers().map((receiver) => receiver.track).filter((track) => track.kind === "audio"));
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
