import { useEffect, useRef, useState } from "react";
import { meterHeardAudio } from "../../lib/heard-audio";
import { postListen, type RelayLeg, receiveAudio, sendMicrophone } from "../../lib/supervision";
import { notify } from "../ui/Toasts";

type Phase = "idle" | "starting" | "on";

/**
 * One supervision session of the admin's page: started by `open` (which answers the session's id and the live
 * leg), ended by «Стоп», by the row leaving the "call" state (unmount) or by the page going away (sendBeacon).
 */
function useSupervision(open: () => Promise<{ sessionId: number; leg: RelayLeg }>, failure: string) {
  const [phase, setPhase] = useState<Phase>("idle");
  const live = useRef<{ sessionId: string; leg: RelayLeg } | null>(null);

  const stop = () => {
    const current = live.current;
    live.current = null;
    setPhase("idle");
    if (!current) return;
    current.leg.close();
    void postListen({ intent: "stop", sessionId: current.sessionId }, failure).catch(() => {});
  };

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
    try {
      const { sessionId, leg } = await open();
      live.current = { sessionId: String(sessionId), leg };
      setPhase("on");
    } catch (error) {
      stop();
      notify("error", error instanceof Error ? error.message : failure);
    }
  };
  return { phase, start, stop };
}

/**
 * «Слушать» / «Стоп» on /users for a manager in a call (issue 28): the admin's browser answers rtpengine's
 * send-only offer and plays both parties. Nothing reaches the manager or the client. WebRTC needs JavaScript:
 * without it the button is not shown.
 */
export function ListenButton({ managerId, login }: { managerId: number; login: string }) {
  const failure = "Не удалось начать прослушивание";
  const { phase, start, stop } = useSupervision(async () => {
    const offer = await postListen<{ sessionId: number; sdp: string }>({ intent: "start", managerId: String(managerId) }, failure);
    // Whatever fails after the session opened closes it, so the log never keeps a listening that never was.
    const sessionId = String(offer.sessionId);
    const closeSession = () => postListen({ intent: "stop", sessionId }, failure).catch(() => {});
    const leg = await receiveAudio(offer.sdp, `listening ${login}`).catch(async (error) => {
      await closeSession();
      throw error;
    });
    await postListen({ intent: "answer", sessionId, sdp: leg.answerSdp }, failure).catch(async (error) => {
      leg.close();
      await closeSession();
      throw error;
    });
    // The access log keeps how long the admin really heard it (issue 39), told by the element that plays.
    const heard = meterHeardAudio(leg.pc, leg.audio, sessionId);
    const close = () => {
      heard.stop();
      leg.close();
    };
    return { sessionId: offer.sessionId, leg: { pc: leg.pc, close } };
  }, failure);
  return phase === "on" ? (
    <button type="button" className="btn-secondary py-1" onClick={stop} data-testid="listen-stop">
      Стоп
    </button>
  ) : (
    <button type="button" className="btn-secondary py-1" onClick={() => void start()} disabled={phase === "starting"} data-testid="listen">
      Слушать
    </button>
  );
}

/**
 * «Подсказать» / «Стоп подсказки»: the admin's microphone, heard by the manager only (decision 056). The manager's
 * page is told by the server and plays it (WhisperReceiver).
 */
export function WhisperButton({ managerId }: { managerId: number }) {
  const failure = "Не удалось начать подсказку";
  const { phase, start, stop } = useSupervision(async () => {
    const microphone = await sendMicrophone();
    try {
      const answer = await postListen<{ sessionId: number; sdp: string }>({ intent: "whisper", managerId: String(managerId), sdp: microphone.offerSdp }, failure);
      await microphone.accept(answer.sdp).catch(async (error) => {
        await postListen({ intent: "stop", sessionId: String(answer.sessionId) }, failure).catch(() => {});
        throw error;
      });
      return { sessionId: answer.sessionId, leg: microphone };
    } catch (error) {
      microphone.close();
      throw error;
    }
  }, failure);
  return phase === "on" ? (
    <button type="button" className="btn-secondary py-1" onClick={stop} data-testid="whisper-stop">
      Стоп подсказки
    </button>
  ) : (
    <button type="button" className="btn-secondary py-1" onClick={() => void start()} disabled={phase === "starting"} data-testid="whisper">
      Подсказать
    </button>
  );
}
