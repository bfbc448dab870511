import * as Dialog from "@radix-ui/react-dialog";
import { Link, useNavigate } from "@remix-run/react";
import { useEffect, useState, type ReactNode } from "react";
import { CloseIcon } from "../ui/Icons";

interface MoneyDialogProps {
  title: string;
  /** Where closing leads (the page under the dialog, with its query). */
  closeTo: string;
  children: ReactNode;
  testId?: string;
}

/**
 * A dialog that is a route: with JavaScript it is a Radix modal over the table; without it, the same content
 * renders inline in the page (a portal cannot render on the server), with a link back.
 */
/** Once the app has hydrated, dialogs opened by client navigation render as modals from their first frame. */
let appHydrated = false;

export function MoneyDialog({ title, closeTo, children, testId }: MoneyDialogProps) {
  const [hydrated, setHydrated] = useState(appHydrated);
  const navigate = useNavigate();
  useEffect(() => {
    appHydrated = true;
    setHydrated(true);
  }, []);
  if (!hydrated) {
    return (
      <section className="card mt-6" aria-labelledby="money-dialog-title" data-testid={testId}>
        <div className="mb-4 flex items-center justify-between gap-4">
          <h2 id="money-dialog-title" className="text-lg font-semibold">
            {title}
          </h2>
          <Link to={closeTo} className="btn-secondary">
            Закрыть
          </Link>
        </div>
        {children}
      </section>
    );
  }
  return (
    <Dialog.Root open onOpenChange={(open) => (open ? undefined : navigate(closeTo, { preventScrollReset: true }))}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          className="fixed left-1/2 top-1/2 z-50 max-h-[85vh] w-[95vw] max-w-2xl -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-lg bg-white p-6 shadow-xl dark:bg-slate-800"
          data-testid={testId}
          aria-describedby={undefined}
        >
          <div className="mb-4 flex items-center justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold">{title}</Dialog.Title>
            <Dialog.Close className="btn-secondary px-2 py-1" aria-label="Закрыть" title="Закрыть">
              <CloseIcon />
            </Dialog.Close>
          </div>
          {children}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
