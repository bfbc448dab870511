// One chunk for React, Remix and the toasts' module: as the browser entry does (decision 094).
import "./Toasts";
import { useLocation, useNavigation } from "@remix-run/react";
import { useEffect } from "react";
import toast, { ToastBar, Toaster } from "react-hot-toast";
import type { NoticeOptions, ToastKind } from "./Toasts";

/**
 * The toasts' own icons, drawn as Icons.tsx draws its icons: here, not there, so the toast chunk (fetched after
 * hydration, on every page) shares no module with the layout's first chunks (decision 090).
 */
const base = {
  width: 16,
  height: 16,
  viewBox: "0 0 24 24",
  fill: "none",
  stroke: "currentColor",
  strokeWidth: 2,
  strokeLinecap: "round",
  strokeLinejoin: "round",
  "aria-hidden": true,
} as const;

/** A triangle with "!": warnings (toasts, banners). */
const WarningIcon = () => (
  <svg {...base}>
    <path d="M10.3 3.9L1.8 18a2 2 0 0 0 1.7 3h17a2 2 0 0 0 1.7-3L13.7 3.9a2 2 0 0 0-3.4 0z" />
    <path d="M12 9v4M12 17h.01" />
  </svg>
);

/** A circle with "i": information (toasts). */
const InfoIcon = () => (
  <svg {...base}>
    <circle cx="12" cy="12" r="10" />
    <path d="M12 16v-4M12 8h.01" />
  </svg>
);

/**
 * react-hot-toast and the app's toast area (Toasts.tsx says what they are): a chunk of its own, fetched once the page
 * is interactive (decision 088); what is said before it is in shows as soon as it is.
 *
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
export function show(kind: ToastKind, message: string, options: NoticeOptions = {}) {
  const shown = { id: options.id, duration: options.sticky ? Infinity : undefined };
  if (kind === "success") return toast.success(message, shown);
  if (kind === "error") return toast.error(message, shown);
  if (kind === "warning") return toast(message, { ...shown, icon: toastIcon.warning });
  if (kind === "info") return toast(message, { ...shown, icon: toastIcon.info });
  return toast(message, shown);
}

export const dismiss = (id: string) => toast.dismiss(id);

/** Drops every message on screen: a form sent again answers afresh (issue 31: a stale «Укажите логин» stood beside the server's answer). */
export const removeAll = () => toast.remove();

/**
 * SPEC §9: top-center, 2000 ms, pause on hover, close on click. Narrower than 1280 px the header's controls reach
 * the middle (on a phone it is all controls): messages sit under it (its h-14 and a gap), so a notice that stays,
 * such as «Нет связи с сервером», never covers ☰ or Перерыв.
 */
export default function ToastArea() {
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
