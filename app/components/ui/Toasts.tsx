import { lazy, Suspense, useEffect, useRef, useState } from "react";
import { lazyModule } from "../../lib/lazy-module";
import { useHydrated } from "./hydrated";

export type ToastKind = "default" | "success" | "info" | "warning" | "error";

/** A notice with an `id` is shown once however often it is said; a `sticky` one stays until dismissNotice(id). */
export interface NoticeOptions {
  id?: string;
  sticky?: boolean;
}

/** react-hot-toast and the toast area: fetched once the page is interactive (decision 088). */
const area = lazyModule(() => import("./ToastArea"));
const ToastArea = lazy(() => area.load());

/** What is said before the toasts' code is in is said, in order, once it is. */
function whenLoaded(act: (module: typeof area.loaded & {}) => void) {
  if (area.loaded) act(area.loaded);
  else area.load().then(act, () => {});
}

/**
 * One call for every kind SPEC §9 names (react-hot-toast has no info/warning of its own). A notice with an `id` is
 * shown once however often it is said; a `sticky` one stays until dismissNotice(id) (or a click, or leaving the page).
 */
export function notify(kind: ToastKind, message: string, options: NoticeOptions = {}) {
  whenLoaded((module) => module.show(kind, message, options));
}

export const dismissNotice = (id: string) => whenLoaded((module) => module.dismiss(id));

/** Drops every message on screen: a form sent again answers afresh (issue 31: a stale «Укажите логин» stood beside the server's answer). */
export const clearNotices = () => whenLoaded((module) => module.removeAll());

/**
 * SPEC §9's toasts: top-center, 2000 ms, pause on hover, close on click (ToastArea.tsx). Drawn once the page has
 * hydrated, from a chunk fetched then.
 */
export function Toasts() {
  const hydrated = useHydrated();
  return hydrated ? (
    <Suspense fallback={null}>
      <ToastArea />
    </Suspense>
  ) : null;
}

/**
 * A key that changes once per server answer, not once per render: `<ServerMessage key={useAnswerKey(answer)}>`
 * speaks once for each answer (a key from Date.now() re-sent the old message on every re-render, issue 17).
 */
export function useAnswerKey(answer: unknown): number {
  const last = useRef(answer);
  const count = useRef(0);
  if (answer !== last.current) {
    last.current = answer;
    count.current += 1;
  }
  return count.current;
}

/** The banner class of each kind (tailwind.css: one set of colours for both themes). */
export const bannerClass: Record<ToastKind, string> = {
  default: "banner-default",
  success: "banner-success",
  info: "banner-info",
  warning: "banner-warning",
  error: "banner-error",
};

/**
 * A message from the server (a flash after a redirect, or an action's answer): rendered as a banner in the
 * HTML, so it shows with JavaScript off; once hydrated it becomes a toast and the banner goes.
 */
export function ServerMessage({ kind, message }: { kind: ToastKind; message: string }) {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => {
    setHydrated(true);
    notify(kind, message);
  }, [kind, message]);
  if (hydrated) return null;
  return (
    <div role={kind === "error" ? "alert" : "status"} className={`mb-4 ${bannerClass[kind]}`}>
      {message}
    </div>
  );
}
