import { Form, Link, useSubmit } from "@remix-run/react";
import { useEffect, useState } from "react";

/** True once React has hydrated the page (JavaScript on). */
export function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

interface PaginationProps {
  page: number;
  pages: number;
  size: number;
  sizes: readonly number[];
  total: number;
  /** Builds the link of a page with this size. */
  hrefFor(page: number, size: number): string;
}

/** Page-size selector (a GET form: works without JavaScript, submits on change with it) and page links. */
export function Pagination({ page, pages, size, sizes, total, hrefFor }: PaginationProps) {
  const submit = useSubmit();
  const hydrated = useHydrated();
  return (
    <div className="mt-4 flex flex-wrap items-center gap-3 text-sm">
      <Form method="get" className="flex items-center gap-2" onChange={(event) => submit(event.currentTarget)}>
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
      <span className="text-slate-600 dark:text-slate-400">Всего: {total}</span>
      {pages > 1 ? (
        <nav className="flex items-center gap-1" aria-label="Страницы">
          {page > 1 ? (
            <Link to={hrefFor(page - 1, size)} className="btn-secondary px-2 py-1" aria-label="Предыдущая страница">
              ‹
            </Link>
          ) : null}
          {Array.from({ length: pages }, (_, i) => i + 1).map((p) => (
            <Link
              key={p}
              to={hrefFor(p, size)}
              className={p === page ? "btn-primary px-2 py-1" : "btn-secondary px-2 py-1"}
              aria-current={p === page ? "page" : undefined}
            >
              {p}
            </Link>
          ))}
          {page < pages ? (
            <Link to={hrefFor(page + 1, size)} className="btn-secondary px-2 py-1" aria-label="Следующая страница">
              ›
            </Link>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}

/** Reads ?size= and ?page= against the allowed sizes. */
export function readPaging(url: URL, sizes: readonly number[], defaultSize: number, total: number) {
  const askedSize = Number(url.searchParams.get("size"));
  const size = sizes.includes(askedSize) ? askedSize : defaultSize;
  const pages = Math.max(1, Math.ceil(total / size));
  const askedPage = Math.trunc(Number(url.searchParams.get("page")));
  const page = Number.isFinite(askedPage) && askedPage >= 1 ? Math.min(askedPage, pages) : 1;
  return { size, page, pages };
}
