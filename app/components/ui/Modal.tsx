import { createContext, lazy, Suspense, useContext } from "react";
import { lazyModule, useLoadAfterHydration } from "../../lib/lazy-module";
import type { ModalProps } from "./ModalDialog";

/**
 * Radix's dialog (~15 KB compressed) is not part of the page's first load (decision 088): it is fetched once the
 * page is interactive, and a dialog opened before it is in shows as soon as it is.
 */
const dialog = lazyModule(() => import("./ModalDialog"));
const ModalDialog = lazy(() => dialog.load());

/** The centred dialog of the lead panel's questions and lists: overlay, card, title and description. */
export function Modal(props: ModalProps) {
  useLoadAfterHydration(dialog);
  if (!props.open) return null;
  return (
    <Suspense fallback={null}>
      <ModalDialog {...props} />
    </Suspense>
  );
}

/** Closes the Modal it is in (as a Radix Dialog.Close: the dialog's onClose). */
export const ModalClosing = createContext<() => void>(() => {});

/** The close button of a Modal, labelled as everywhere. */
export function ModalClose({ className = "btn-secondary" }: { className?: string }) {
  const close = useContext(ModalClosing);
  return (
    <button type="button" className={className} onClick={close}>
      Закрыть
    </button>
  );
}
