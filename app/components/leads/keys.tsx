import { Modal, ModalClose } from "../ui/Modal";
import { useEffect, useRef } from "react";

/**
 * The lead panel's keys (issue 18). Keys are read by KeyboardEvent.code, the physical key, so they are the same
 * on the Russian and the English layout: the key C is «С» on ЙЦУКЕН, «?» is Shift and the key left of the right
 * Shift (or whatever key gives «?» on the layout in use).
 */
export const CALL_KEY_CODE = "KeyC";
/** Autodial (decision 058): S skips the countdown's call (ЙЦУКЕН: Ы), P pauses or resumes autodial (ЙЦУКЕН: З). */
export const SKIP_KEY_CODE = "KeyS";
export const PAUSE_KEY_CODE = "KeyP";

/** What the «Клавиши» dialog lists, in this order. */
export const LEAD_PANEL_KEYS: Array<{ keys: string[]; what: string }> = [
  { keys: ["1", "…", "9"], what: "Нажать кнопку статуса с этой цифрой" },
  { keys: ["C"], what: "Позвонить клиенту, а во время звонка — завершить его (русская раскладка: С)" },
  { keys: ["S"], what: "Автонабор: не звонить этому клиенту по таймеру (русская раскладка: Ы)" },
  { keys: ["P"], what: "Автонабор: пауза и продолжение (русская раскладка: З)" },
  { keys: ["Enter"], what: "Подтвердить заявку; в окне перезвона — выбрать время, на котором стоит курсор" },
  { keys: ["Esc"], what: "Закрыть окно" },
  { keys: ["Enter", "или", "C"], what: "Входящий звонок: ответить (русская раскладка: С)" },
  { keys: ["Esc"], what: "Входящий звонок: отклонить" },
  { keys: ["?"], what: "Показать этот список" },
];

/** The focus is where typing goes: a text field, a list, or editable text (the script editor). */
export function isTypingTarget(element: Element | null): boolean {
  if (!element || !(element instanceof HTMLElement)) return false;
  if (element.isContentEditable) return true;
  const tag = element.tagName;
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

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

/** A key's label on a button: small, in the button's own text colour, so it reads on any status colour and theme. */
export function KeyCap({ children }: { children: string }) {
  return (
    <kbd
      aria-hidden="true"
      className="ml-1.5 inline-flex h-[1.15rem] min-w-[1.15rem] items-center justify-center rounded border border-current px-1 font-mono text-[0.7rem] font-semibold leading-none"
      data-testid="keycap"
    >
      {children}
    </kbd>
  );
}

/** «Клавиши»: the list of the panel's keys (opened with «?» or its button). */
export function KeysDialog({ open, onOpenChange, autodial = false }: { open: boolean; onOpenChange: (open: boolean) => void; autodial?: boolean }) {
  // Autodial's keys are listed where the topic has autodial.
  const rows = LEAD_PANEL_KEYS.filter((row) => autodial || !row.what.startsWith("Автонабор"));
  return (
    <Modal
      open={open}
      onClose={() => onOpenChange(false)}
      title="Клавиши"
      description="Работают в любой раскладке, пока курсор не стоит в поле ввода."
      descriptionClassName="mb-3 text-sm text-slate-600 dark:text-slate-300"
      width="max-w-lg"
      testId="keys-dialog"
    >
      <table className="w-full text-sm">
        <tbody>
          {rows.map((row) => (
            <tr key={row.what} className="border-t border-slate-200 dark:border-slate-700">
              <th scope="row" className="whitespace-nowrap py-1.5 pr-3 text-left font-normal">
                {row.keys.map((key, i) =>
                  key === "…" || key === "или" ? (
                    <span key={i} className="mx-0.5">
                      {key === "или" ? ` ${key} ` : key}
                    </span>
                  ) : (
                    <kbd
                      key={i}
                      className="inline-block rounded border border-slate-400 bg-slate-50 px-1.5 font-mono text-xs text-slate-900 dark:border-slate-500 dark:bg-slate-900 dark:text-slate-100"
                    >
                      {key}
                    </kbd>
                  ),
                )}
              </th>
              <td className="py-1.5">{row.what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="mt-4 flex justify-end">
        <ModalClose />
      </div>
    </Modal>
  );
}
