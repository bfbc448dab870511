import * as Dialog from "@radix-ui/react-dialog";
import { useNavigate } from "@remix-run/react";
import type { ReactNode } from "react";
import { CloseIcon } from "./Icons";
import { useHydrated } from "./hydrated";

// Re-exported for the files that take the flag from here.
export { useHydrated };

/** The dialog's largest width: a question, a form, a form with a table, an editor. */
const WIDTHS = { narrow: "max-w-lg", medium: "max-w-2xl", large: "max-w-3xl", wide: "max-w-4xl" } as const;

interface DialogOrSectionProps {
  open: boolean;
  title: string;
  /** Where "Закрыть" leads without JavaScript, and closing leads with it unless `onClose` says otherwise. */
  closeHref: string;
  /** Called when the dialog asks to close (Esc, overlay click, the close button); by default, go to `closeHref`. */
  onClose?: () => void;
  children: ReactNode;
  width?: keyof typeof WIDTHS;
  testId?: string;
  /** alertdialog for a question that must be answered (a confirmation). */
  role?: "dialog" | "alertdialog";
}

/**
 * A modal with JavaScript (Radix Dialog), the same content as an inline section without it: the page that
 * opens it puts the state in the URL, so a plain link opens it and a plain redirect closes it.
 */
export function DialogOrSection({ open, title, onClose, closeHref, children, width = "narrow", testId, role = "dialog" }: DialogOrSectionProps) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  if (!open) return null;
  if (!hydrated && role === "alertdialog") {
    // A question without JavaScript (issue 41: an inline section rendered below the fold, so «Удалить» seemed to do
    // nothing): it stands over the page where the window is, as the dialog does, with nothing to scroll to.
    return (
      <div className="fixed inset-0 z-40 flex items-center justify-center bg-black/40 p-3" data-testid={testId ? `${testId}-backdrop` : undefined}>
        <section
          className={`max-h-[90vh] w-full overflow-y-auto rounded-lg bg-white p-5 shadow-xl dark:bg-slate-800 ${WIDTHS[width]}`}
          role="alertdialog"
          aria-modal="true"
          aria-label={title}
          data-testid={testId}
        >
          <ServerHead title={title} closeHref={closeHref} />
          {children}
        </section>
      </div>
    );
  }
  if (!hydrated) {
    return (
      <section className="card my-4" aria-label={title} data-testid={testId}>
        <ServerHead title={title} closeHref={closeHref} />
        {children}
      </section>
    );
  }
  const close = onClose ?? (() => navigate(closeHref, { preventScrollReset: true }));
  return (
    <Dialog.Root open onOpenChange={(next) => (next ? undefined : close())}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          className={`fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[95vw] -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-5 shadow-xl dark:bg-slate-800 ${WIDTHS[width]}`}
          role={role}
          data-testid={testId}
          aria-describedby={undefined}
        >
          <div className="mb-3 flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold">{title}</Dialog.Title>
            <Dialog.Close
              className="text-xl leading-none text-slate-600 dark:text-slate-400 hover:text-slate-800 dark:hover:text-slate-200"
              aria-label="Закрыть"
              title="Закрыть"
            >
              <CloseIcon />
            </Dialog.Close>
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}

/** Without JavaScript: the title and a link that closes (the page without the query that opened it). */
function ServerHead({ title, closeHref }: { title: string; closeHref: string }) {
  return (
    <div className="mb-3 flex items-start justify-between gap-4">
      <h2 className="text-lg font-semibold">{title}</h2>
      <a href={closeHref} className="text-sm text-slate-600 dark:text-slate-400 hover:underline">
        Закрыть
      </a>
    </div>
  );
}
