import { useEffect, useRef } from "react";
import { CALL_KEY_CODE, isTypingTarget, KeyCap } from "./key-cap";

// The keys every page uses (the phone's C, a key's label) live in key-cap.tsx, in the layout's chunk; the lead
// panel's own handling here, in the panel's; its «Клавиши» dialog in KeysDialog.tsx, fetched after hydration
// (decision 090).
export { CALL_KEY_CODE, isTypingTarget, KeyCap };

/*
 * The lead panel's keys (issue 18). Keys are read by KeyboardEvent.code, the physical key, so they are the same
 * on the Russian and the English layout: the key C is «С» on ЙЦУКЕН, «?» is Shift and the key left of the right
 * Shift (or whatever key gives «?» on the layout in use).
 */

/** Autodial (decision 058): S skips the countdown's call (ЙЦУКЕН: Ы), P pauses or resumes autodial (ЙЦУКЕН: З). */
export const SKIP_KEY_CODE = "KeyS";
export const PAUSE_KEY_CODE = "KeyP";

/** The digit 1 to 9 a key stands for (top row or keypad), or null. */
export function digitOf(event: KeyboardEvent): number | null {
  const match = /^(?:Digit|Numpad)([1-9])$/.exec(event.code);
  return match ? Number(match[1]) : null;
}

export interface LeadPanelKeyHandlers {
  /** 1-based: the n-th status button. */
  status(n: number): void;
  call(): void;
  help(): void;
  /** Autodial's «Пропустить» and «Пауза»: do nothing where the topic has no autodial. */
  skip?(): void;
  pause?(): void;
}

/**
 * Listens for the panel's keys on the whole document. Nothing acts while the focus is in a field, while Ctrl,
 * Alt or Meta is held, while a key is held down (auto-repeat), while a dialog is open (Esc and Enter belong to
 * it), or when another handler already took the key.
 */
export function useLeadPanelKeys(handlers: LeadPanelKeyHandlers) {
  const current = useRef(handlers);
  current.current = handlers;
  useEffect(() => {
    function onKeyDown(event: KeyboardEvent) {
      if (event.defaultPrevented || event.repeat || event.isComposing) return;
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      if (isTypingTarget(document.activeElement) || isTypingTarget(event.target as Element | null)) return;
      if (document.querySelector("[role=dialog], [role=alertdialog]")) return;
      if ((event.code === "Slash" && event.shiftKey) || event.key === "?") {
        event.preventDefault();
        current.current.help();
        return;
      }
      if (event.shiftKey) return;
      const digit = digitOf(event);
      if (digit !== null) {
        event.preventDefault();
        current.current.status(digit);
        return;
      }
      if (event.code === CALL_KEY_CODE) {
        event.preventDefault();
        current.current.call();
      } else if (event.code === SKIP_KEY_CODE && current.current.skip) {
        event.preventDefault();
        current.current.skip();
      } else if (event.code === PAUSE_KEY_CODE && current.current.pause) {
        event.preventDefault();
        current.current.pause();
      }
    }
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, []);
}
