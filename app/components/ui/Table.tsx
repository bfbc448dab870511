import { formatDateTime } from "../../lib/format";
import type { HTMLAttributes, ReactNode } from "react";

/**
 * The frame of every wide table: on a phone the table scrolls sideways inside it (never the page); at desk
 * width a table must fit without it (test/e2e/layout.test.ts measures both, and finds frames by data-scroll-x).
 */
export function TableFrame({
  children,
  className = "",
  wide = false,
  ...rest
}: HTMLAttributes<HTMLDivElement> & { children: ReactNode; wide?: boolean }) {
  // `relative`: a visually hidden (absolute) header label stays inside the frame instead of widening the page.
  return (
    <div {...rest} className={`relative overflow-x-auto ${className}`} data-scroll-x={wide ? "wide" : ""}>
      {children}
    </div>
  );
}

/**
 * The first and last column of a `wide` frame (one whose column count follows the data, e.g. a column per
 * status): they stay in view while the middle scrolls, so a row's name and its actions are always on screen.
 */
export const stickyStart = "sticky left-0 z-10 bg-white dark:bg-slate-800";
export const stickyEnd = "sticky right-0 z-10 bg-white dark:bg-slate-800";

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
