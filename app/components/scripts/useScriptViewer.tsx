import { Link, useFetcher } from "@remix-run/react";
import { lazy, Suspense, useEffect, useRef, useState, type PointerEvent as ReactPointerEvent } from "react";
import { lazyModule, useLoadAfterHydration } from "../../lib/lazy-module";
import { notify } from "../ui/Toasts";

/** The panel (Radix's dialog and the script's content): fetched once the page is interactive (decision 088). */
const panel = lazyModule(() => import("./ScriptPanel"));
const ScriptPanel = lazy(() => panel.load());

export interface ViewerData {
  script: { id: number; name: string; content: string } | null;
  watermark: string;
}

const entryClass = "block rounded-md px-3 py-1.5 text-sm text-slate-700 hover:bg-slate-200 dark:text-slate-300 dark:hover:bg-slate-700";

/** The side panel's width on a wide screen: dragged by its left edge, remembered in this browser. */
const WIDTH_KEY = "scriptPanelWidth";
const DEFAULT_WIDTH = 480;
const MIN_WIDTH = 320;
/** The panel leaves at least this much of the window to the page (the card and the status buttons). */
const MIN_PAGE = 420;
/** Same breakpoint as tailwind's `desk`: below it the panel is a drawer over the lower part of the screen. */
const WIDE = "(min-width: 1100px)";

const clampWidth = (width: number) => Math.round(Math.max(MIN_WIDTH, Math.min(width, window.innerWidth - MIN_PAGE)));

/**
 * The sidebar's Скрипты entries and the viewer they open. With JavaScript the script opens in a panel beside the
 * page, not over it (issue 17): on a wide screen a resizable column on the right, and the page's content makes
 * room for it; on a phone a drawer over the lower part of the screen. It is not modal: the client card and the
 * status buttons stay usable while it is open, and a click on them does not close it. The watermark and the copy
 * blocking are the viewer's own (ScriptContent). Without JavaScript the entry opens the viewer page.
 */
export function useScriptViewer() {
  useLoadAfterHydration(panel);
  const fetcher = useFetcher<ViewerData>();
  const [openId, setOpenId] = useState<number | null>(null);
  const [title, setTitle] = useState("");
  const [width, setWidth] = useState(DEFAULT_WIDTH);
  const drag = useRef<{ startX: number; startWidth: number } | null>(null);

  useEffect(() => {
    const saved = Number(window.localStorage.getItem(WIDTH_KEY));
    if (saved) setWidth(clampWidth(saved));
  }, []);

  // The page's content makes room for the open panel (beside it on a wide screen, above the drawer on a phone),
  // so nothing of the card sits under it.
  useEffect(() => {
    const content = document.getElementById("content");
    if (!content || openId === null) return;
    const wide = window.matchMedia(WIDE);
    const apply = () => {
      content.style.paddingRight = wide.matches ? `${width + 24}px` : "";
      content.style.paddingBottom = wide.matches ? "" : "calc(55vh + 1rem)";
    };
    apply();
    wide.addEventListener("change", apply);
    return () => {
      wide.removeEventListener("change", apply);
      content.style.paddingRight = "";
      content.style.paddingBottom = "";
    };
  }, [openId, width]);

  const startResize = (event: ReactPointerEvent<HTMLDivElement>) => {
    event.preventDefault();
    event.currentTarget.setPointerCapture(event.pointerId);
    drag.current = { startX: event.clientX, startWidth: width };
  };
  const resize = (event: ReactPointerEvent<HTMLDivElement>) => {
    if (!drag.current) return;
    setWidth(clampWidth(drag.current.startWidth + drag.current.startX - event.clientX));
  };
  const endResize = () => {
    if (!drag.current) return;
    drag.current = null;
    window.localStorage.setItem(WIDTH_KEY, String(width));
  };
  const resizeByKey = (delta: number) => {
    const next = clampWidth(width + delta);
    setWidth(next);
    window.localStorage.setItem(WIDTH_KEY, String(next));
  };

  const renderScript = (script: { id: number; name: string }) => (
    <Link
      key={script.id}
      to={`/scripts/view/${script.id}`}
      className={entryClass}
      data-testid="sidebar-script"
      onClick={(event) => {
        event.preventDefault();
        // On a phone the menu covers the page: close it so the card shows above the script drawer (on a wide
        // screen an unchecked toggle is the menu shown, so this changes nothing there).
        const menu = document.getElementById("menu-toggle");
        if (menu instanceof HTMLInputElement) menu.checked = false;
        notify("success", "Загружаю скрипт");
        setTitle(script.name);
        setOpenId(script.id);
        fetcher.load(`/scripts/view/${script.id}`);
      }}
    >
      {script.name}
    </Link>
  );

  const dialog =
    openId === null ? null : (
      <Suspense fallback={null}>
        <ScriptPanel
          openId={openId}
          title={title}
          width={width}
          minWidth={MIN_WIDTH}
          data={fetcher.data}
          state={fetcher.state}
          onClose={() => setOpenId(null)}
          resize={{ start: startResize, move: resize, end: endResize, byKey: resizeByKey }}
        />
      </Suspense>
    );

  return { renderScript, dialog };
}
