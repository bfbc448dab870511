import { useEffect } from "react";
import { notify } from "../ui/Toasts";

/** SPEC Layout: F12, Ctrl+Shift+I, Ctrl+Shift+C and Ctrl+U are blocked, and so is the context menu. */
export function isInspectionShortcut(event: Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "shiftKey">): boolean {
  if (event.key === "F12") return true;
  const ctrl = event.ctrlKey || event.metaKey;
  const key = event.key.toLowerCase();
  if (ctrl && event.shiftKey && (key === "i" || key === "c")) return true;
  return ctrl && !event.shiftKey && key === "u";
}

/** Mounted once in the root after hydration; renders nothing. */
export function InspectionGuard() {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!isInspectionShortcut(event)) return;
      event.preventDefault();
      event.stopPropagation();
      notify("warning", "Комбинация клавиш заблокирована");
    };
    const onContextMenu = (event: MouseEvent) => {
      event.preventDefault();
      notify("warning", "Контекстное меню отключено");
    };
    window.addEventListener("keydown", onKeyDown, { capture: true });
    window.addEventListener("contextmenu", onContextMenu, { capture: true });
    return () => {
      window.removeEventListener("keydown", onKeyDown, { capture: true });
      window.removeEventListener("contextmenu", onContextMenu, { capture: true });
    };
  }, []);
  return null;
}
