import { Form, Link, useSubmit } from "@remix-run/react";
// Core's row type only (erased from the bundle): the table shows what listBases answers.
import type { BaseRow } from "../../../server/core/bases/bases";
import { ConfirmDelete } from "../ui/ConfirmAction";
import { useHydrated } from "../ui/DialogOrSection";
import { SortIcon } from "../ui/Icons";
import { Pager } from "../ui/Pager";
import { DateTime, stickyEnd, stickyStart, TableFrame } from "../ui/Table";
import { shortStatusLabel } from "../../lib/short-label";

/** A cell's padding: narrow at the sides, so a centre's seven statuses fit beside the rest at 1440 and 1280 (issue 41 §14). */
const cell = "px-1 py-2 min-[1440px]:px-1.5";

export const BASE_PAGE_SIZES = [5, 10, 20, 50] as const;
export type BaseSort = "name" | "createdAt" | "contactsCount";

export interface BaseTableProps {
  rows: BaseRow[];
  statusColumns: string[];
  total: number;
  query: { q: string; sort: BaseSort; dir: "asc" | "desc"; size: number; page: number; pages: number };
  confirm: { id: number; name: string } | null;
}

/**
 * Активные базы: search by name, sortable name / creation date / contacts count, one column per status button,
 * delete with confirmation, page sizes 5/10/20/50, at most 500 px high. Everything is in the query string, so it
 * all works without JavaScript (links and GET forms); with it, the same URLs navigate without a reload.
 */
export function BaseTable({ rows, statusColumns, total, query, confirm }: BaseTableProps) {
  const hydrated = useHydrated();
  const submit = useSubmit();
  const href = (change: Partial<Record<"q" | "sort" | "dir" | "size" | "page" | "deleteBase", string | number | null>>) => {
    const params = new URLSearchParams();
    const merged = { q: query.q, sort: query.sort, dir: query.dir, size: query.size, page: query.page, ...change };
    for (const [key, value] of Object.entries(merged)) {
      if (value === null || value === undefined || value === "") continue;
      if (key === "sort" && value === "createdAt" && merged.dir === "desc") continue;
      if (key === "dir" && value === "desc" && merged.sort === "createdAt") continue;
      if (key === "size" && Number(value) === 5) continue;
      if (key === "page" && Number(value) === 1) continue;
      params.set(key, String(value));
    }
    const search = params.toString();
    return `/loadedbases${search ? `?${search}` : ""}`;
  };
  const sortLink = (column: BaseSort, label: string) => {
    const active = query.sort === column;
    const dir = active ? (query.dir === "asc" ? "desc" : "asc") : column === "name" ? "asc" : "desc";
    return (
      <Link
        to={href({ sort: column, dir, page: 1 })}
        preventScrollReset
        className="inline-flex items-center gap-1 hover:underline"
        data-testid={`sort-${column}`}
      >
        {label}
        <span aria-hidden="true" className={active ? "" : "opacity-50"}>
          <SortIcon dir={active ? query.dir : null} />
        </span>
      </Link>
    );
  };
  const closeHref = href({ deleteBase: null });

  return (
    <section className="card" data-testid="bases">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <h2 className="text-xl font-semibold">Активные базы</h2>
        <Link to="/importbase" className="btn-primary">
          Добавить базу
        </Link>
      </div>

      <Form method="get" action="/loadedbases" className="mb-3 flex flex-wrap items-end gap-2" role="search">
        <input type="hidden" name="sort" value={query.sort} />
        <input type="hidden" name="dir" value={query.dir} />
        <div>
          <label className="label" htmlFor="bases-q">
            Поиск по названию
          </label>
          <input
            id="bases-q"
            name="q"
            defaultValue={query.q}
            className="input w-64"
            placeholder="Название базы"
            onChange={hydrated ? (event) => submit(event.currentTarget.form, { replace: true, preventScrollReset: true }) : undefined}
          />
        </div>
        <div>
          <label className="label" htmlFor="bases-size">
            Показывать по:
          </label>
          <select
            id="bases-size"
            name="size"
            defaultValue={String(query.size)}
            className="input w-20"
            onChange={hydrated ? (event) => submit(event.currentTarget.form, { preventScrollReset: true }) : undefined}
            data-testid="bases-size"
          >
            {BASE_PAGE_SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        {hydrated ? null : (
          <button type="submit" className="btn-secondary">
            Показать
          </button>
        )}
      </Form>

      <TableFrame wide className="max-h-[500px] overflow-y-auto rounded-md border border-slate-200 dark:border-slate-700" data-testid="bases-scroll">
        <table className="min-w-full text-sm" data-testid="bases-table">
          <thead className="sticky top-0 bg-slate-50 text-left dark:bg-slate-900">
            <tr>
              <th className={`${cell} ${stickyStart} bg-slate-50 dark:bg-slate-900`}>{sortLink("name", "Название")}</th>
              <th className={cell}>{sortLink("createdAt", "Создана")}</th>
              <th className={cell}>{sortLink("contactsCount", "Контактов")}</th>
              <th className={cell}>Свободных</th>
              {statusColumns.map((label) => (
                // Issue 31: a long status name took a line a word in a 156 px header. At most two lines of
                // 8rem, cut with an ellipsis, the whole name on hover. Issue 41 §14: under 1440 px (1280 with the
                // menu open) seven statuses did not fit: there the header is as narrow as its longest word, in
                // smaller type, each long word drawn abbreviated («Перезв.»); the
                // whole name stays the header's text (for screen readers) and its title.
                <th key={label} className={`${cell} align-bottom`} data-testid="status-column">
                  <span className="line-clamp-2 max-w-[8rem] break-words max-[1439px]:w-min max-[1439px]:text-xs" title={label}>
                    {shortStatusLabel(label) === label ? (
                      label
                    ) : (
                      <>
                        {/* The page's text is the whole name (read aloud, found by search); the short one is drawn. */}
                        <span className="max-[1439px]:sr-only">{label}</span>
                        <span
                          aria-hidden="true"
                          data-short={shortStatusLabel(label)}
                          className="before:content-[attr(data-short)] min-[1440px]:hidden"
                        />
                      </>
                    )}
                  </span>
                </th>
              ))}
              <th className={`${cell} ${stickyEnd} bg-slate-50 dark:bg-slate-900`}>
                <span className="sr-only">Действия</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 ? (
              <tr>
                <td colSpan={5 + statusColumns.length} className="p-4 text-center text-slate-600 dark:text-slate-400">
                  {query.q ? "Ничего не найдено" : "Баз пока нет: добавьте первую"}
                </td>
              </tr>
            ) : (
              rows.map((row) => (
                <tr key={row.id} className="border-t border-slate-100 dark:border-slate-700" data-testid="base-row">
                  <td className={`${cell} font-medium ${stickyStart}`}>
                    {/*
                      On a phone the sticky name keeps to one line (cut, the whole name on hover). At desk width it
                      wraps instead (issue 41 §14: cut there, it took the room the statuses' columns needed at 1440),
                      between 9rem (8rem under 1440 px) and 16rem wide: the column that gives way when the statuses are many.
                    */}
                    <span
                      className="block max-w-[6.5rem] truncate sm:max-w-[9rem] desk:min-w-[8rem] desk:max-w-[16rem] min-[1440px]:min-w-[9rem] desk:whitespace-normal desk:[overflow-wrap:anywhere]"
                      title={row.name}
                    >
                      {row.name}
                    </span>
                  </td>
                  <td className={cell}>
                    <DateTime at={row.createdAt} />
                  </td>
                  <td className={cell}>{row.contactsCount}</td>
                  <td className={cell}>{row.freeCount}</td>
                  {statusColumns.map((label) => (
                    <td key={label} className={cell}>
                      {row.statusCounts[label] ?? 0}
                    </td>
                  ))}
                  <td className={`whitespace-nowrap ${cell} text-right ${stickyEnd}`}>
                    <Link
                      to={href({ deleteBase: row.id })}
                      preventScrollReset
                      className="text-red-600 hover:underline dark:text-red-400"
                      aria-label={`Удалить базу ${row.name}`}
                    >
                      Удалить
                    </Link>
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableFrame>

      <Pager page={query.page} pages={query.pages} total={total} hrefFor={(page) => href({ page })} />

      <ConfirmDelete row={confirm} title="Удалить базу?" closeHref={closeHref} intent="delete-base" testId="delete-base">
        База «{confirm?.name}» будет удалена вместе со всеми её контактами. История звонков и статистика сохранятся. Отменить это нельзя.
      </ConfirmDelete>
    </section>
  );
}
