import { useEffect, useRef, useState } from "react";
import { getRealtimeClient } from "../../lib/realtime";
import { ListenRefusal, meterHeardAudio, postListen, type RelayLeg, receiveAudio, sendMicrophone, watchLeg } from "../../lib/supervision";
import { notify } from "../ui/Toasts";

type Phase = "idle" | "starting" | "waiting" | "on";

/** How often a «Слушать» pressed on a ringing call asks again, and for how long (a call rings at most a minute). */
const RETRY_MS = 1_000;
const WAIT_MS = 90_000;

/**
 * One supervision session of the admin's page: started by `open` (which answers the session's id and the live
 * leg), ended by «Стоп», by the row leaving the "call" state (unmount), by the page going away (sendBeacon; the
 * server also ends it when the page's realtime socket closes), by the call's end (the server's listenEnded, which
 * says so), or by the leg's audio stopping for good (rtpengine stopped, frozen or unreachable: said here).
 */
function useSupervision(open: () => Promise<{ sessionId: number; leg: RelayLeg }>, failure: string, lost: string) {
  const [phase, setPhase] = useState<Phase>("idle");
  const [since, setSince] = useState<number | null>(null);
  const live = useRef<{ sessionId: string; leg: RelayLeg; unwatch: () => void } | null>(null);
  const waiting = useRef<{ timer?: ReturnType<typeof setTimeout>; cancelled: boolean } | null>(null);

  const release = () => {
    const current = live.current;
    live.current = null;
    setPhase("idle");
    setSince(null);
    if (current) {
      current.unwatch();
      current.leg.close();
    }
    return current;
  };
  const cancelWaiting = () => {
    if (waiting.current?.timer) clearTimeout(waiting.current.timer);
    if (waiting.current) waiting.current.cancelled = true;
    waiting.current = null;
  };
  const stop = () => {
    cancelWaiting();
    const current = release();
    if (!current) return;
    // A stop that finds the call over (the row left the call before the call's end reached this page) says so.
    void postListen<{ callEnded: string } | undefined>({ intent: "stop", sessionId: current.sessionId }, failure)
      .then((answer) => answer?.callEnded && notify("info", answer.callEnded))
      .catch(() => {});
  };

  useEffect(() => {
    const onHide = () => {
      const current = live.current;
      if (current) navigator.sendBeacon("/listen", new URLSearchParams({ intent: "stop", sessionId: current.sessionId }));
    };
    window.addEventListener("pagehide", onHide);
    // The call ended (or the server ended the session otherwise): nothing to tell it back, only to say so.
    const offEnded = getRealtimeClient().on("listenEnded", ({ sessionId, message }) => {
      if (live.current?.sessionId !== String(sessionId)) return;
      release();
      notify("info", message);
    });
    return () => {
      window.removeEventListener("pagehide", onHide);
      offEnded();
      stop();
    };
    // Once for the page's life: stop and release read the refs, never a render's state.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const attempt = async (startedWaiting: number | null): Promise<void> => {
    try {
      const { sessionId, leg } = await open();
      if (waiting.current?.cancelled) {
        leg.close();
        void postListen({ intent: "stop", sessionId: String(sessionId) }, failure).catch(() => {});
        return;
      }
      waiting.current = null;
      const unwatch = watchLeg(leg.pc, () => {
        if (live.current?.leg !== leg) return;
        stop();
        notify("error", lost);
      });
      live.current = { sessionId: String(sessionId), leg, unwatch };
      setPhase("on");
      setSince(Date.now());
    } catch (error) {
      // The call still rings: asked again until it is answered (or the admin cancels, or it never is).
      if (error instanceof ListenRefusal && error.code === "call_not_answered" && !waiting.current?.cancelled) {
        const first = startedWaiting ?? Date.now();
        if (startedWaiting === null) notify("info", `${error.message}: прослушивание начнётся, когда на звонок ответят`);
        if (Date.now() - first < WAIT_MS) {
          setPhase("waiting");
          waiting.current = { cancelled: false, timer: setTimeout(() => void attempt(first), RETRY_MS) };
          return;
        }
      }
      if (waiting.current?.cancelled) return;
      stop();
      notify("error", saidInRussian(error, failure));
    }
  };
  const start = () => {
    cancelWaiting();
    setPhase("starting");
    void attempt(null);
  };
  return { phase, since, start, stop };
}

/** What a failure is called on the page: the server's Russian message, never the browser's English one. */
function saidInRussian(error: unknown, failure: string): string {
  if (error instanceof ListenRefusal) return error.message;
  if (error instanceof DOMException && /NotAllowed|NotFound|NotReadable/.test(error.name)) return `${failure}: нет доступа к микрофону`;
  return `${failure}: браузер не смог принять звук`;
}

/** «Слушаете · 0:42»: how long this page has been listening, a second at a time. */
function Elapsed({ since, label }: { since: number; label: string }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  const seconds = Math.max(0, Math.floor((now - since) / 1000));
  const text = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  return (
    <span
      className="inline-flex items-center whitespace-nowrap rounded bg-emerald-100 px-2 py-0.5 text-xs font-semibold text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100"
      role="status"
      data-testid="listen-timer"
    >
      {label} · {text}
    </span>
  );
}

/**
 * «Слушать» / «Стоп» on /users for a manager in a call (issue 28): the admin's browser answers rtpengine's
 * send-only offer and plays both parties. Nothing reaches the manager or the client. WebRTC needs JavaScript:
 * without it the button is not shown. Pressed while the call still rings, it waits for the answer (issue 39).
 */
export function ListenButton({ managerId, login }: { managerId: number; login: string }) {
  const failure = "Не удалось начать прослушивание";
  const { phase, since, start, stop } = useSupervision(
    async () => {
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
    },
    failure,
    "Прослушивание прервалось: звук звонка перестал приходить (rtpengine не отвечает)",
  );
  if (phase === "on")
    return (
      <>
        {since !== null ? <Elapsed since={since} label="Слушаете" /> : null}
        <button type="button" className="btn-secondary py-1" onClick={stop} data-testid="listen-stop">
          Стоп
        </button>
      </>
    );
  if (phase === "waiting")
    return (
      <>
        <span
          className="inline-flex items-center whitespace-nowrap text-xs text-slate-600 dark:text-slate-300"
          role="status"
          data-testid="listen-waiting"
        >
          Ждём ответа…
        </span>
        <button type="button" className="btn-secondary py-1" onClick={stop} data-testid="listen-cancel">
          Отменить
        </button>
      </>
    );
  return (
    <button type="button" className="btn-secondary py-1" onClick={start} disabled={phase === "starting"} data-testid="listen">
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
  const { phase, start, stop } = useSupervision(
    async () => {
      const microphone = await sendMicrophone();
      try {
        const answer = await postListen<{ sessionId: number; sdp: string }>(
          { intent: "whisper", managerId: String(managerId), sdp: microphone.offerSdp },
          failure,
        );
        await microphone.accept(answer.sdp).catch(async (error) => {
          await postListen({ intent: "stop", sessionId: String(answer.sessionId) }, failure).catch(() => {});
          throw error;
        });
        return { sessionId: answer.sessionId, leg: microphone };
      } catch (error) {
        microphone.close();
        throw error;
      }
    },
    failure,
    "Подсказка прервалась: ваш голос перестал доходить (rtpengine не отвечает)",
  );
  if (phase === "on")
    return (
      <button type="button" className="btn-secondary py-1" onClick={stop} data-testid="whisper-stop">
        Стоп подсказки
      </button>
    );
  if (phase === "waiting")
    return (
      <button type="button" className="btn-secondary py-1" onClick={stop} data-testid="whisper-cancel">
        Отменить подсказку
      </button>
    );
  return (
    <button type="button" className="btn-secondary py-1" onClick={start} disabled={phase === "starting"} data-testid="whisper">
      Подсказать
    </button>
  );
}
