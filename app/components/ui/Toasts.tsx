import { useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import toast, { ToastBar, Toaster } from "react-hot-toast";
import { InfoIcon, WarningIcon } from "./Icons";

export type ToastKind = "default" | "success" | "info" | "warning" | "error";

/**
 * The icons of the two kinds react-hot-toast has none for: our SVGs, not emoji (a system without a colour emoji
 * font, Debian's Chromium among them, shows ⚠️ as an empty box), coloured for each theme.
 */
const toastIcon = {
  warning: (
    <span className="flex shrink-0 text-amber-600 dark:text-amber-400" data-toast-icon="warning">
      <WarningIcon />
    </span>
  ),
  info: (
    <span className="flex shrink-0 text-blue-600 dark:text-blue-400" data-toast-icon="info">
      <InfoIcon />
    </span>
  ),
};

/**
 * One call for every kind SPEC §9 names (react-hot-toast has no info/warning of its own). A notice with an `id` is
 * shown once however often it is said; a `sticky` one stays until dismissNotice(id) (or a click, or leaving the page).
 */
export function notify(kind: ToastKind, message: string, options: { id?: string; sticky?: boolean } = {}) {
  const shown = { id: options.id, duration: options.sticky ? Infinity : undefined };
  if (kind === "success") return toast.success(message, shown);
  if (kind === "error") return toast.error(message, shown);
  if (kind === "warning") return toast(message, { ...shown, icon: toastIcon.warning });
  if (kind === "info") return toast(message, { ...shown, icon: toastIcon.info });
  return toast(message, shown);
}

export const dismissNotice = (id: string) => toast.dismiss(id);

/** Drops every message on screen: a form sent again answers afresh (issue 31: a stale «Укажите логин» stood beside the server's answer). */
export const clearNotices = () => toast.remove();

/**
 * SPEC §9: top-center, 2000 ms, pause on hover, close on click. Narrower than 1280 px the header's controls reach
 * the middle (on a phone it is all controls): messages sit under it (its h-14 and a gap), so a notice that stays,
 * such as «Нет связи с сервером», never covers ☰ or Перерыв.
 */
export function Toasts() {
  // Old messages do not outlive their page (issue 17): leaving it drops what is still on screen, so a stale
  // "Неверный логин или пароль" never stands beside the next page's "Авторизирован".
  const navigation = useNavigation();
  const { pathname } = useLocation();
  const leaving = navigation.location && navigation.location.pathname !== pathname;
  useEffect(() => {
    if (leaving) toast.remove();
  }, [leaving]);
  return (
    <Toaster
      position="top-center"
      containerClassName="toaster max-xl:!top-16"
      toastOptions={{
        duration: 2000,
        style: { background: "var(--toast-bg)", color: "var(--toast-fg)", border: "1px solid rgb(100 116 139 / 0.3)" },
      }}
    >
      {(t) => (
        <ToastBar toast={t}>
          {({ icon, message }) => (
            <button type="button" className="flex items-center text-left" onClick={() => toast.dismiss(t.id)}>
              {icon}
              {message}
            </button>
          )}
        </ToastBar>
      )}
    </Toaster>
  );
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
