/** The /payments table's state lives in the URL, so search, sort and pages work with JavaScript off. */
export const PAGE_SIZES = [5, 10, 20, 50] as const;
export const SORT_KEYS = ["login", "withPassport", "withoutPassport", "totalEarned"] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export interface TableParams {
  q: string;
  sort: SortKey;
  dir: "asc" | "desc";
  size: number;
  page: number;
  /** Workers paid during this visit: their payout and history buttons stay green and disabled. */
  paid: number[];
}

export interface WorkerRow {
  id: number;
  login: string;
  withPassport: number;
  withoutPassport: number;
  totalEarned: number;
}

export function readTableParams(search: URLSearchParams | string): TableParams {
  const p = typeof search === "string" ? new URLSearchParams(search) : search;
  const sort = (SORT_KEYS as readonly string[]).includes(p.get("sort") ?? "") ? (p.get("sort") as SortKey) : "login";
  const size = Number(p.get("size"));
  const page = Number(p.get("page"));
  return {
    q: (p.get("q") ?? "").trim(),
    sort,
    dir: p.get("dir") === "desc" ? "desc" : "asc",
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : PAGE_SIZES[0],
    page: Number.isInteger(page) && page > 0 ? page : 1,
    paid: (p.get("paid") ?? "")
      .split(",")
      .map(Number)
      .filter((n) => Number.isInteger(n) && n > 0),
  };
}

/** The query string for a table state (defaults left out). */
export function tableQuery(params: TableParams, change: Partial<TableParams> = {}): string {
  const next = { ...params, ...change };
  const out = new URLSearchParams();
  if (next.q) out.set("q", next.q);
  if (next.sort !== "login") out.set("sort", next.sort);
  if (next.dir !== "asc") out.set("dir", next.dir);
  if (next.size !== PAGE_SIZES[0]) out.set("size", String(next.size));
  if (next.page !== 1) out.set("page", String(next.page));
  if (next.paid.length) out.set("paid", next.paid.join(","));
  const text = out.toString();
  return text ? `?${text}` : "";
}

/** A click on a column: the same column flips its direction, another one starts ascending (SPEC /payments). */
export function sortChange(params: TableParams, key: SortKey): Partial<TableParams> {
  return { sort: key, dir: params.sort === key && params.dir === "asc" ? "desc" : "asc", page: 1 };
}

/** Search by login, sort, then cut the page. */
export function tablePage(rows: WorkerRow[], params: TableParams) {
  const needle = params.q.toLocaleLowerCase("ru");
  const found = needle ? rows.filter((r) => r.login.toLocaleLowerCase("ru").includes(needle)) : rows;
  const sign = params.dir === "asc" ? 1 : -1;
  const sorted = [...found].sort((a, b) => {
    const key = params.sort;
    const primary = key === "login" ? a.login.localeCompare(b.login, "ru") : a[key] - b[key];
    return sign * primary || a.login.localeCompare(b.login, "ru");
  });
  const pages = Math.max(1, Math.ceil(sorted.length / params.size));
  const page = Math.min(params.page, pages);
  return { rows: sorted.slice((page - 1) * params.size, page * params.size), total: sorted.length, pages, page };
}
