// One chunk for React, Remix and the toasts' module: as the browser entry does (decision 094).
import "@remix-run/react";
import "../ui/Toasts";
import * as Dialog from "@radix-ui/react-dialog";
import type { CSSProperties, PointerEvent as ReactPointerEvent } from "react";
import { ScriptContent } from "./ScriptViewer";
import type { ViewerData } from "./useScriptViewer";

interface ScriptPanelProps {
  openId: number;
  /** The entry's name, shown until the script is in. */
  title: string;
  width: number;
  minWidth: number;
  /** The viewer's fetcher: its answer and state. */
  data: ViewerData | undefined;
  state: string;
  onClose: () => void;
  resize: {
    start: (event: ReactPointerEvent<HTMLDivElement>) => void;
    move: (event: ReactPointerEvent<HTMLDivElement>) => void;
    end: () => void;
    byKey: (delta: number) => void;
  };
}

/**
 * The script viewer's panel (useScriptViewer.tsx says what it is): Radix's non-modal dialog with the script. A
 * chunk of its own, fetched once the page is interactive (decision 088).
 */
export default function ScriptPanel({ openId, title, width, minWidth, data, state, onClose, resize }: ScriptPanelProps) {
  const loaded = data && data.script?.id === openId ? data : null;
  const keepOpen = (event: Event) => event.preventDefault();
  return (
    <Dialog.Root modal={false} open onOpenChange={(open) => (open ? undefined : onClose())}>
      <Dialog.Portal>
        <Dialog.Content
          className="fixed inset-x-0 bottom-0 z-40 flex h-[55vh] flex-col border-t border-slate-200 bg-white p-4 shadow-2xl dark:border-slate-700 dark:bg-slate-800 desk:inset-x-auto desk:bottom-0 desk:right-0 desk:top-14 desk:h-auto desk:w-[var(--script-panel-width)] desk:border-l desk:border-t-0"
          style={{ "--script-panel-width": `${width}px` } as CSSProperties}
          aria-describedby={undefined}
          data-testid="script-viewer-dialog"
          // Not modal: working in the card or pressing a status leaves the script open.
          onInteractOutside={keepOpen}
          onFocusOutside={keepOpen}
          // The focus stays where the manager was typing; the panel is one Tab away.
          onOpenAutoFocus={keepOpen}
        >
          <div
            role="separator"
            aria-orientation="vertical"
            aria-label="Ширина панели скрипта"
            aria-valuenow={width}
            aria-valuemin={minWidth}
            tabIndex={0}
            className="absolute inset-y-0 left-0 hidden w-2 -translate-x-1/2 cursor-col-resize touch-none rounded bg-transparent hover:bg-blue-400/40 focus-visible:bg-blue-500/50 desk:block"
            onPointerDown={resize.start}
            onPointerMove={resize.move}
            onPointerUp={resize.end}
            onPointerCancel={resize.end}
            onKeyDown={(event) => {
              if (event.key === "ArrowLeft") resize.byKey(40);
              else if (event.key === "ArrowRight") resize.byKey(-40);
              else return;
              event.preventDefault();
            }}
            data-testid="script-panel-resize"
          />
          <div className="mb-3 flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold">{loaded?.script?.name ?? title}</Dialog.Title>
            <Dialog.Close
              className="rounded px-2 text-xl leading-none text-slate-600 hover:text-slate-800 dark:text-slate-400 dark:hover:text-slate-200"
              aria-label="Закрыть скрипт"
              title="Закрыть скрипт"
            >
              ×
            </Dialog.Close>
          </div>
          {loaded?.script ? (
            <ScriptContent html={loaded.script.content} watermark={loaded.watermark} className="min-h-0 flex-1" />
          ) : state === "idle" && data && !data.script ? (
            <p className="text-sm text-slate-600 dark:text-slate-400">Скрипт не найден</p>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">Загрузка…</p>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
