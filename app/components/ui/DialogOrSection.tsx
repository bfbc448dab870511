import * as Dialog from "@radix-ui/react-dialog";
import { useEffect, useState, type ReactNode } from "react";
import { CloseIcon } from "./Icons";

/** False on the server and in the first browser render, true once React has hydrated. */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

interface DialogOrSectionProps {
  open: boolean;
  title: string;
  /** Called when the dialog asks to close (Esc, overlay click, the close button). */
  onClose: () => void;
  /** Where "Закрыть" leads without JavaScript. */
  closeHref: string;
  children: ReactNode;
  wide?: boolean;
  testId?: string;
}

/**
 * A modal with JavaScript (Radix Dialog), the same content as an inline section without it: the page that
 * opens it puts the state in the URL, so a plain link opens it and a plain redirect closes it.
 */
export function DialogOrSection({ open, title, onClose, closeHref, children, wide, testId }: DialogOrSectionProps) {
  const hydrated = useHydrated();
  if (!open) return null;
  if (!hydrated) {
    return (
      <section className="card my-4" aria-label={title} data-testid={testId}>
        <div className="mb-3 flex items-start justify-between gap-4">
          <h2 className="text-lg font-semibold">{title}</h2>
          <a href={closeHref} className="text-sm text-slate-600 dark:text-slate-400 hover:underline">
            Закрыть
          </a>
        </div>
        {children}
      </section>
    );
  }
  return (
    <Dialog.Root open onOpenChange={(next) => (next ? undefined : onClose())}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          className={`fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[95vw] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-5 shadow-xl dark:bg-slate-800 ${
            wide ? "max-w-4xl" : "max-w-lg"
          }`}
          data-testid={testId}
          aria-describedby={undefined}
        >
          <div className="mb-3 flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold">{title}</Dialog.Title>
            <Dialog.Close className="text-xl leading-none text-slate-600 dark:text-slate-400 hover:text-slate-800 dark:hover:text-slate-200" aria-label="Закрыть" title="Закрыть">
              <CloseIcon />
            </Dialog.Close>
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
