import * as Dialog from "@radix-ui/react-dialog";
import type { ReactNode, RefObject } from "react";
import { ModalClosing } from "./Modal";
// Loaded after the layout, and shares its modules: one chunk with them (app/layout-chunk.ts, decision 090).
import "../../layout-chunk";

export interface ModalProps {
  open: boolean;
  /** Called when the dialog asks to close (Esc, a click on the overlay, a Dialog.Close inside). */
  onClose: () => void;
  title: ReactNode;
  description: ReactNode;
  descriptionClassName?: string;
  /** Where the focus goes on opening (Enter then acts on it); Radix's first focusable element otherwise. */
  initialFocus?: RefObject<HTMLElement>;
  width?: "max-w-md" | "max-w-lg";
  testId?: string;
  children: ReactNode;
}

/**
 * The centred dialog of the lead panel's questions and lists: overlay, card, title and description (Radix). A
 * chunk of its own, fetched after the page is interactive (Modal.tsx, decision 088).
 */
export default function ModalDialog(props: ModalProps) {
  const { open, onClose, title, description, descriptionClassName = "mb-4 text-sm", initialFocus, width = "max-w-md", testId, children } = props;
  return (
    <Dialog.Root open={open} onOpenChange={(next) => (next ? undefined : onClose())}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          className={`fixed left-1/2 top-1/2 z-50 w-[95vw] ${width} -translate-x-1/2 -translate-y-1/2 rounded-lg bg-white p-5 shadow-xl dark:bg-slate-800`}
          data-testid={testId}
          onOpenAutoFocus={
            initialFocus
              ? (event) => {
                  event.preventDefault();
                  initialFocus.current?.focus();
                }
              : undefined
          }
        >
          <Dialog.Title className="mb-2 text-lg font-semibold">{title}</Dialog.Title>
          <Dialog.Description className={descriptionClassName}>{description}</Dialog.Description>
          <ModalClosing.Provider value={onClose}>{children}</ModalClosing.Provider>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
