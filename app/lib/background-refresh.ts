import { useFetchers, useNavigation, useRevalidator } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { dismissNotice, notify } from "../components/ui/Toasts";

/** Said while the server or its database does not answer a background refresh's check. */
export const SERVER_UNREACHABLE = "Нет связи с сервером. Данные на странице обновятся, когда связь восстановится.";
const UNREACHABLE_NOTICE = "server-unreachable";

/** Whether the server and its database answer now: its readiness check (one `select 1`, a few bytes). */
async function serverAnswers(): Promise<boolean> {
  try {
    const answer = await fetch("/api/v1/health/ready", { cache: "no-store" });
    // Read to its end: an unread body keeps the request open, and its connection taken, until garbage collection.
    await answer.arrayBuffer();
    return answer.ok;
  } catch {
    return false;
  }
}

/**
 * The page's loaders read again in the background every `everyMs` (and once after `firstMs`; none while `everyMs`
 * is null): SPEC §9's polls, the lead panel's look for a lead, an export's progress. Only while the tab is visible
 * and the router idle, and only once the server and its database answer: a refresh that failed would put the
 * error page in place of the page, and a manager would lose the card he was typing (or an admin an open dialog)
 * to a database restart or a dropped network. Meanwhile one notice says so, until the server answers again.
 */
export function useBackgroundRefresh(everyMs: number | null, firstMs?: number) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const fetchers = useFetchers();
  // Idle means nothing on its way: the revalidator's state alone stays "idle" during a form's post and its
  // redirect's load, and a revalidate() then restarts that load, whose first try had already read the redirect's
  // one-time message: the «Удалено экспортов: 1» toast never showed (CI, stop 49, /exportbase polling each second).
  const idle = () => revalidator.state === "idle" && navigation.state === "idle" && fetchers.every((f) => f.state === "idle");
  const current = useRef({ idle, revalidate: revalidator.revalidate });
  current.current = { idle, revalidate: revalidator.revalidate };
  useEffect(() => {
    if (everyMs === null) return;
    let stopped = false;
    let checking = false;
    const refresh = async () => {
      if (checking || document.visibilityState !== "visible" || !current.current.idle()) return;
      checking = true;
      const answers = await serverAnswers();
      checking = false;
      if (stopped) return;
      if (!answers) {
        notify("warning", SERVER_UNREACHABLE, { id: UNREACHABLE_NOTICE, sticky: true });
        return;
      }
      dismissNotice(UNREACHABLE_NOTICE);
      if (current.current.idle()) current.current.revalidate();
    };
    const first = firstMs === undefined ? undefined : setTimeout(refresh, firstMs);
    const timer = setInterval(refresh, everyMs);
    return () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [everyMs, firstMs]);
}
