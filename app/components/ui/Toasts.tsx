import { useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import toast, { ToastBar, Toaster } from "react-hot-toast";

export type ToastKind = "default" | "success" | "info" | "warning" | "error";

/** One call for every kind SPEC §9 names (react-hot-toast has no info/warning of its own). */
export function notify(kind: ToastKind, message: string) {
  if (kind === "success") return toast.success(message);
  if (kind === "error") return toast.error(message);
  if (kind === "warning") return toast(message, { icon: "⚠️" });
  if (kind === "info") return toast(message, { icon: "ℹ️" });
  return toast(message);
}

/** SPEC §9: top-center, 2000 ms, pause on hover, close on click. */
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
    <Toaster position="top-center" toastOptions={{ duration: 2000 }}>
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

const bannerColors: Record<ToastKind, string> = {
  default: "border-slate-300 bg-slate-50 text-slate-800",
  success: "border-green-300 bg-green-50 text-green-800",
  info: "border-blue-300 bg-blue-50 text-blue-800",
  warning: "border-amber-300 bg-amber-50 text-amber-900",
  error: "border-red-300 bg-red-50 text-red-800",
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
    <div role={kind === "error" ? "alert" : "status"} className={`mb-4 rounded-md border px-4 py-2 text-sm ${bannerColors[kind]}`}>
      {message}
    </div>
  );
}
