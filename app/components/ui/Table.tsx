import { formatDateTime } from "../../lib/format";
import { useEffect, useRef, useState, type HTMLAttributes, type ReactNode, type RefObject } from "react";
import { ChevronLeftIcon, ChevronRightIcon } from "./Icons";

/**
 * The frame of every wide table: on a phone the table scrolls sideways inside it (never the page); at desk
 * width a table must fit without it (test/e2e/layout.test.ts measures both, and finds frames by data-scroll-x).
 * A `wide` frame (a column per data item) may scroll at any width, so it says so (`SideScrollCue`).
 */
export function TableFrame({
  children,
  className = "",
  wide = false,
  ...rest
}: HTMLAttributes<HTMLDivElement> & { children: ReactNode; wide?: boolean }) {
  const frame = useRef<HTMLDivElement>(null);
  // `relative`: a visually hidden (absolute) header label stays inside the frame instead of widening the page.
  const box = (
    <div {...rest} ref={frame} className={`relative overflow-x-auto ${className}`} data-scroll-x={wide ? "wide" : ""}>
      {children}
    </div>
  );
  if (!wide) return box;
  return (
    <>
      <SideScrollCue frame={frame} />
      {box}
    </>
  );
}

/**
 * Issue 31: columns waiting to the right of a scrolling table were invisible. Above the frame, a line says how
 * many columns are out of view on each side, with buttons that scroll there; it shows only while some are. The
 * server cannot know the window's width: without JavaScript the line says the table may scroll sideways.
 */
function SideScrollCue({ frame }: { frame: RefObject<HTMLDivElement> }) {
  const [hidden, setHidden] = useState<{ left: number; right: number } | null>(null);
  useEffect(() => {
    const el = frame.current;
    if (!el) return;
    const update = () => {
      const box = el.getBoundingClientRect();
      const heads = Array.from(el.querySelectorAll<HTMLElement>("thead tr:first-child > th"));
      // Sticky first and last columns stay in view: what scrolls is between them.
      const isSticky = (th: HTMLElement) => getComputedStyle(th).position === "sticky";
      const startEdge = box.left + el.clientLeft + (heads[0] && isSticky(heads[0]) ? heads[0].offsetWidth : 0);
      const last = heads[heads.length - 1];
      const endEdge = box.left + el.clientLeft + el.clientWidth - (last && isSticky(last) ? last.offsetWidth : 0);
      let left = 0;
      let right = 0;
      for (const th of heads) {
        if (isSticky(th)) continue;
        const r = th.getBoundingClientRect();
        if (r.right > endEdge + 1) right += 1;
        else if (r.left < startEdge - 1) left += 1;
      }
      setHidden({ left, right });
    };
    update();
    el.addEventListener("scroll", update, { passive: true });
    const resized = new ResizeObserver(update);
    resized.observe(el);
    return () => {
      el.removeEventListener("scroll", update);
      resized.disconnect();
    };
  }, [frame]);
  const scroll = (direction: 1 | -1) => frame.current?.scrollBy({ left: direction * frame.current.clientWidth * 0.7, behavior: "smooth" });
  const cue = "mb-1 flex min-h-[2rem] flex-wrap items-center gap-2 text-sm text-slate-700 dark:text-slate-300";
  if (hidden === null) {
    return (
      <p className={cue} data-testid="scroll-cue">
        Если столбцы не помещаются, таблица прокручивается вбок →
      </p>
    );
  }
  if (hidden.left === 0 && hidden.right === 0) return null;
  return (
    <div className={cue} data-testid="scroll-cue">
      {hidden.left > 0 ? (
        <button
          type="button"
          className="btn-secondary px-2 py-1 text-xs"
          onClick={() => scroll(-1)}
          aria-label={`Прокрутить таблицу влево: ещё ${columns(hidden.left)} слева`}
        >
          <ChevronLeftIcon /> ещё {columns(hidden.left)} слева
        </button>
      ) : null}
      {hidden.right > 0 ? (
        <button
          type="button"
          className="btn-secondary px-2 py-1 text-xs"
          onClick={() => scroll(1)}
          aria-label={`Прокрутить таблицу вправо: ещё ${columns(hidden.right)} справа`}
        >
          ещё {columns(hidden.right)} справа <ChevronRightIcon />
        </button>
      ) : null}
    </div>
  );
}

/** «1 столбец», «3 столбца», «17 столбцов». */
function columns(n: number): string {
  const tens = n % 100;
  const ones = n % 10;
  const word = tens >= 11 && tens <= 14 ? "столбцов" : ones === 1 ? "столбец" : ones >= 2 && ones <= 4 ? "столбца" : "столбцов";
  return `${n} ${word}`;
}

/**
 * The first and last column of a `wide` frame (one whose column count follows the data, e.g. a column per
 * status): they stay in view while the middle scrolls, so a row's name and its actions are always on screen.
 */
export const stickyStart = "sticky left-0 z-10 bg-white dark:bg-slate-800";
export const stickyEnd = "sticky right-0 z-10 bg-white dark:bg-slate-800";

/** A head cell: its label, or the label and the cell's own classes (an alignment) after the head's. */
type HeadColumn = string | { label: string; className: string };

/**
 * The head of a plain table: a label a column, then (unless `actions` is null) the last column of row actions,
 * whose name only a screen reader says.
 */
export function TableHead({
  columns,
  actions = "Действия",
  row = "bg-slate-50 text-left text-slate-600 dark:bg-slate-900 dark:text-slate-400",
  cell = "px-3 py-2",
}: {
  columns: HeadColumn[];
  actions?: string | null;
  row?: string;
  cell?: string;
}) {
  return (
    <thead>
      <tr className={row}>
        {columns.map((column) =>
          typeof column === "string" ? (
            <th key={column} className={cell}>
              {column}
            </th>
          ) : (
            <th key={column.label} className={`${cell} ${column.className}`}>
              {column.label}
            </th>
          ),
        )}
        {actions === null ? null : (
          <th className={cell}>
            <span className="sr-only">{actions}</span>
          </th>
        )}
      </tr>
    </thead>
  );
}

/** A cell text kept to one line: cut with an ellipsis, the whole of it on hover. */
export function OneLine({ text, className = "max-w-[14rem]" }: { text: string; className?: string }) {
  return (
    <span className={`block truncate ${className}`} title={text}>
      {text}
    </span>
  );
}

/** A date and time that may break between the two (never inside either), to keep table columns narrow. */
export function DateTime({ at }: { at: Date | string | number }) {
  const [date, time] = formatDateTime(at).split(", ");
  return (
    <>
      <span className="whitespace-nowrap">{time === undefined ? date : `${date},`}</span>
      {time === undefined ? null : (
        <>
          {" "}
          <span className="whitespace-nowrap">{time}</span>
        </>
      )}
    </>
  );
}
