import * as Dialog from "@radix-ui/react-dialog";
import { Link, useFetcher } from "@remix-run/react";
import { useState } from "react";
import { notify } from "../ui/Toasts";
import { ScriptContent } from "./ScriptViewer";

interface ViewerData {
  script: { id: number; name: string; content: string } | null;
  watermark: string;
}

const entryClass =
  "block rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-700";

/**
 * The sidebar's Скрипты entries and the viewer they open: with JavaScript a modal (toast Загружаю скрипт,
 * the script fetched from /scripts/view/:id), without it the link opens that page.
 */
export function useScriptViewer() {
  const fetcher = useFetcher<ViewerData>();
  const [openId, setOpenId] = useState<number | null>(null);
  const [title, setTitle] = useState("");

  const renderScript = (script: { id: number; name: string }) => (
    <Link
      key={script.id}
      to={`/scripts/view/${script.id}`}
      className={entryClass}
      data-testid="sidebar-script"
      onClick={(event) => {
        event.preventDefault();
        notify("success", "Загружаю скрипт");
        setTitle(script.name);
        setOpenId(script.id);
        fetcher.load(`/scripts/view/${script.id}`);
      }}
    >
      {script.name}
    </Link>
  );

  const loaded = fetcher.data && fetcher.data.script?.id === openId ? fetcher.data : null;
  const dialog = (
    <Dialog.Root open={openId !== null} onOpenChange={(open) => (open ? undefined : setOpenId(null))}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-40 bg-black/40" />
        <Dialog.Content
          className="fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[95vw] max-w-4xl -translate-x-1/2 -translate-y-1/2 overflow-hidden rounded-lg bg-white p-5 shadow-xl dark:bg-slate-800"
          aria-describedby={undefined}
          data-testid="script-viewer-dialog"
        >
          <div className="mb-3 flex items-start justify-between gap-4">
            <Dialog.Title className="text-lg font-semibold">{loaded?.script?.name ?? title}</Dialog.Title>
            <Dialog.Close className="text-xl leading-none text-slate-600 dark:text-slate-400 hover:text-slate-800 dark:hover:text-slate-200" aria-label="Закрыть">
              ×
            </Dialog.Close>
          </div>
          {loaded?.script ? (
            <ScriptContent html={loaded.script.content} watermark={loaded.watermark} />
          ) : fetcher.state === "idle" && fetcher.data && !fetcher.data.script ? (
            <p className="text-sm text-slate-600">Скрипт не найден</p>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">Загрузка…</p>
          )}
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );

  return { renderScript, dialog };
}
