import { Link } from "@remix-run/react";

/** Page links: previous, at most `maxButtons` numbered pages around the current one, next. */
export function Pager({
  page,
  pages,
  hrefFor,
  maxButtons = 5,
}: {
  page: number;
  pages: number;
  hrefFor: (page: number) => string;
  maxButtons?: number;
}) {
  if (pages <= 1) return null;
  let first = Math.max(1, page - Math.floor(maxButtons / 2));
  const last = Math.min(pages, first + maxButtons - 1);
  first = Math.max(1, last - maxButtons + 1);
  const numbers = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  return (
    <nav className="flex items-center gap-1" aria-label="Страницы" data-testid="pager">
      {page > 1 ? (
        <Link to={hrefFor(page - 1)} className="btn-secondary px-2 py-1" aria-label="Предыдущая страница" preventScrollReset>
          ‹
        </Link>
      ) : null}
      {numbers.map((p) => (
        <Link
          key={p}
          to={hrefFor(p)}
          preventScrollReset
          className={p === page ? "btn-primary px-2 py-1" : "btn-secondary px-2 py-1"}
          aria-current={p === page ? "page" : undefined}
        >
          {p}
        </Link>
      ))}
      {page < pages ? (
        <Link to={hrefFor(page + 1)} className="btn-secondary px-2 py-1" aria-label="Следующая страница" preventScrollReset>
          ›
        </Link>
      ) : null}
    </nav>
  );
}

/** Reads page and size from a query, with the allowed sizes and a default. */
export function pageParams(params: URLSearchParams, sizes: readonly number[], defaultSize: number) {
  const size = sizes.includes(Number(params.get("size"))) ? Number(params.get("size")) : defaultSize;
  const page = Math.max(1, Math.floor(Number(params.get("page"))) || 1);
  return { size, page };
}

export function paginate<T>(items: T[], page: number, size: number) {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const current = Math.min(page, pages);
  return { pages, page: current, items: items.slice((current - 1) * size, current * size) };
}
