import { Form, Link, useSubmit } from "@remix-run/react";
import { ChevronLeftIcon, ChevronRightIcon } from "./Icons";
import { useHydrated } from "./hydrated";

// Re-exported for the pages and components that take the flag from here.
export { useHydrated };

export interface PagerProps {
  page: number;
  pages: number;
  /** The link of a page (at the current size). */
  hrefFor(page: number, size: number): string;
  /** How many numbered pages show at most, around the current one (SPEC §2: search shows up to 5). */
  maxButtons?: number;
  /** «Всего: N» beside the pages. */
  total?: number;
  /** The current page size (passed to hrefFor). */
  size?: number;
  /**
   * The page sizes to choose from, for a table whose size is not already part of a search form: a GET form (its
   * «Показать» button submits it without JavaScript; with it, a change submits at once).
   */
  sizes?: readonly number[];
  /** The rest of the query the size form carries across (search, sort). */
  keep?: Record<string, string>;
}

const step = "btn-secondary px-2 py-1";

/**
 * The one pager of every table (bases, search, do-not-call list, managers, online users, payments): previous,
 * at most `maxButtons` numbered pages around the current one, next; all links, so it works without JavaScript.
 * The arrows keep their place when there is no page that way (shown dimmed), so the numbers never jump.
 */
export function Pager({ page, pages, hrefFor, maxButtons = 5, total, size = 0, sizes, keep }: PagerProps) {
  const submit = useSubmit();
  const hydrated = useHydrated();
  const current = size;
  let first = Math.max(1, page - Math.floor(maxButtons / 2));
  const last = Math.min(pages, first + maxButtons - 1);
  first = Math.max(1, last - maxButtons + 1);
  const numbers = Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
  if (pages <= 1 && total === undefined && !sizes) return null;
  return (
    <div className="mt-3 flex flex-wrap items-center gap-3 text-sm" data-testid="pager-bar">
      {sizes ? (
        <Form
          method="get"
          className="flex items-center gap-2"
          preventScrollReset
          onChange={(event) => submit(event.currentTarget, { preventScrollReset: true })}
        >
          {Object.entries(keep ?? {}).map(([name, value]) => (value ? <input key={name} type="hidden" name={name} value={value} /> : null))}
          <label htmlFor="page-size">Показывать по:</label>
          <select id="page-size" name="size" defaultValue={String(size)} className="input w-20 py-1" data-testid="page-size">
            {sizes.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          {hydrated ? null : (
            <button type="submit" className="btn-secondary py-1">
              Показать
            </button>
          )}
        </Form>
      ) : null}
      {total === undefined ? null : <span className="text-slate-600 dark:text-slate-400">Всего: {total}</span>}
      {pages > 1 ? (
        <nav className="flex flex-wrap items-center gap-1" aria-label="Страницы" data-testid="pager">
          {page > 1 ? (
            <Link to={hrefFor(page - 1, current)} className={step} aria-label="Предыдущая страница" title="Предыдущая страница" preventScrollReset>
              <ChevronLeftIcon />
            </Link>
          ) : (
            <span className={`${step} opacity-40`} aria-hidden="true">
              <ChevronLeftIcon />
            </span>
          )}
          {numbers.map((p) => (
            <Link
              key={p}
              to={hrefFor(p, current)}
              preventScrollReset
              className={`${p === page ? "btn-primary" : "btn-secondary"} min-w-[2.25rem] px-2 py-1 tabular-nums`}
              aria-current={p === page ? "page" : undefined}
            >
              {p}
            </Link>
          ))}
          {page < pages ? (
            <Link to={hrefFor(page + 1, current)} className={step} aria-label="Следующая страница" title="Следующая страница" preventScrollReset>
              <ChevronRightIcon />
            </Link>
          ) : (
            <span className={`${step} opacity-40`} aria-hidden="true">
              <ChevronRightIcon />
            </span>
          )}
        </nav>
      ) : null}
      {/* More pages than buttons: say how many (issue 31: 189 hits showed pages 1-5 and nothing beyond). */}
      {pages > numbers.length ? (
        <span className="text-slate-600 dark:text-slate-400" data-testid="page-of">
          Страница {page} из {pages}
        </span>
      ) : null}
    </div>
  );
}

/** Reads page and size from a query, with the allowed sizes and a default (the page is not capped here). */
export function pageParams(params: URLSearchParams, sizes: readonly number[], defaultSize: number) {
  const size = sizes.includes(Number(params.get("size"))) ? Number(params.get("size")) : defaultSize;
  const page = Math.max(1, Math.floor(Number(params.get("page"))) || 1);
  return { size, page };
}

/** Reads ?size= and ?page= against the allowed sizes and caps the page at the last one. */
export function readPaging(url: URL, sizes: readonly number[], defaultSize: number, total: number) {
  const { size, page } = pageParams(url.searchParams, sizes, defaultSize);
  const pages = Math.max(1, Math.ceil(total / size));
  return { size, page: Math.min(page, pages), pages };
}

/** One page of a list. */
export function paginate<T>(items: T[], page: number, size: number) {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages);
  return { pages, page: current, items: items.slice((current - 1) * size, current * size) };
}
