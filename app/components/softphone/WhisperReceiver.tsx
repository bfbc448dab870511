import { useEffect, useRef, useState } from "react";
import { getRealtimeClient } from "../../lib/realtime";
import { lazyModule, useLoadAfterHydration } from "../../lib/lazy-module";
import type { RelayLeg } from "../../lib/supervision";
import { notify } from "../ui/Toasts";

/** The WebRTC side of listening in (supervision.ts) and its access-log meter: fetched after hydration, a whisper needs them only once it starts (decisions 090, 091). */
const supervision = lazyModule(() => import("../../lib/supervision"));
const isRefusal = (error: unknown): error is Error => supervision.loaded !== null && error instanceof supervision.loaded.ListenRefusal;

/**
 * The manager's side of a whisper (issue 28): told by the server that an admin whispers into his call, his page
 * subscribes to the admin's voice and plays it (the client never hears it), and says so while it lasts.
 */
export function WhisperReceiver() {
  const [on, setOn] = useState(false);
  const live = useRef<{ sessionId: number; leg: RelayLeg; unwatch: () => void } | null>(null);
  useLoadAfterHydration(supervision);

  useEffect(() => {
    const client = getRealtimeClient();
    const end = () => {
      live.current?.unwatch();
      live.current?.leg.close();
      live.current = null;
      setOn(false);
    };
    const offStart = client.on("whisper", async ({ sessionId, sdp: offered }) => {
      end();
      try {
        const { meterHeardAudio, postListen, receiveAudio, watchLeg } = await supervision.load();
        const failure = "Не удалось принять подсказку";
        // The server pushes the offer with the news (issue 39); asked for only when it could not.
        const sdp = offered ?? (await postListen<{ sdp: string }>({ intent: "hear", sessionId: String(sessionId) }, failure)).sdp;
        const leg = await receiveAudio(sdp, "whisper");
        // The admin's voice stops coming for good (rtpengine stopped, frozen): said, not left as a silent banner.
        const unwatch = watchLeg(leg.pc, () => {
          if (live.current?.leg.pc !== leg.pc) return;
          end();
          notify("error", "Подсказка прервалась: голос администратора перестал приходить");
        });
        live.current = { sessionId, leg, unwatch };
        await postListen({ intent: "heard", sessionId: String(sessionId), sdp: leg.answerSdp }, failure);
        // The access log keeps how long the manager really heard the whisper (issue 39).
        const heard = meterHeardAudio(leg.pc, leg.audio, sessionId);
        const close = () => {
          heard.stop();
          leg.close();
        };
        if (live.current?.leg === leg) live.current = { sessionId, leg: { pc: leg.pc, close }, unwatch };
        else heard.stop();
        setOn(true);
      } catch (error) {
        end();
        notify("error", isRefusal(error) ? error.message : "Не удалось принять подсказку: браузер не смог принять звук");
      }
    });
    const offEnd = client.on("whisperEnded", ({ sessionId }) => {
      if (live.current?.sessionId === sessionId) end();
    });
    return () => {
      offStart();
      offEnd();
      end();
    };
  }, []);

  // A bar under the header, in the page's flow (sticky under it as the page scrolls), not over it: fixed in the top
  // corner it covered the header's controls at 390 px (issue 39). The layout places it after the header.
  return on ? (
    <p
      role="status"
      className="sticky top-14 z-10 border-b border-amber-300 bg-amber-100 px-4 py-1 text-center text-sm font-semibold text-amber-900 dark:border-amber-700 dark:bg-amber-900 dark:text-amber-100"
      data-testid="whisper-on"
    >
      Подсказывает администратор
    </p>
  ) : null;
}
