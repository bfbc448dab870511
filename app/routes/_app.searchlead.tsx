import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { baseOptions, SEARCH_LIMIT, searchForPage } from "../bases.server";
import { historiesOf } from "../calls.server";
import { ClientHistory } from "../components/calls/ClientHistory";
import { BanIcon } from "../components/ui/Icons";
import { pageParams, paginate, Pager } from "../components/ui/Pager";
import { TableFrame } from "../components/ui/Table";
import { useHydrated } from "../components/ui/DialogOrSection";
import { notify } from "../components/ui/Toasts";
// Every route under the layout: its shared modules are one chunk (app/layout-chunk.ts, decision 090).
import "../layout-chunk";
// It draws a table, the score numbers or the donut: one chunk of them (app/tables-chunk.ts, decision 090).
import "../tables-chunk";

export const meta: MetaFunction = () => [{ title: "Поиск клиента" }];

const SIZES = [5, 10, 20] as const;

/** A GET form: the query string is the whole state, so it works without JavaScript. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const params = new URL(request.url).searchParams;
  const term = params.get("term");
  const database = params.get("database") ?? "0";
  const bases = await baseOptions(context.deps.db, actorOf(user));
  const { size, page: asked } = pageParams(params, SIZES, 5);
  if (term === null) return { bases, term: "", database, searched: false, error: null, hits: [], total: 0, limited: false, size, page: 1, pages: 1 };
  const result = await searchForPage(context, actorOf(user), { term, database });
  const { items, page, pages } = paginate(result.hits, asked, size);
  // The history of the hits on this page only (two queries for all of them).
  const histories = await historiesOf(
    context.deps.db,
    actorOf(user),
    items.map((hit) => hit.id),
  );
  const hits = items.map((hit) => ({ ...hit, history: histories.get(hit.id) ?? [] }));
  // The search stops at SEARCH_LIMIT hits: then there may be more than it shows.
  const limited = result.hits.length >= SEARCH_LIMIT;
  return { bases, term, database, searched: true, error: result.error, hits, total: result.hits.length, limited, size, page, pages };
}

export default function SearchLeadPage() {
  const data = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const hydrated = useHydrated();
  const submit = useSubmit();
  const busy = navigation.state === "loading" && navigation.location?.pathname === "/searchlead";
  const href = (page: number) => {
    const params = new URLSearchParams({ term: data.term, database: data.database });
    if (data.size !== 5) params.set("size", String(data.size));
    if (page > 1) params.set("page", String(page));
    return `/searchlead?${params}`;
  };

  return (
    <section className="space-y-4">
      <h1 className="page-title">Поиск клиента</h1>
      <Form
        method="get"
        className="card flex flex-wrap items-end gap-3"
        role="search"
        onSubmit={(event) => {
          const term = String(new FormData(event.currentTarget).get("term") ?? "");
          if (!term.trim()) {
            event.preventDefault();
            notify("error", "Введите телефон или часть имени для поиска");
          }
        }}
      >
        <div className="min-w-[16rem] flex-1">
          <label className="label" htmlFor="term">
            Телефон или имя
          </label>
          <input id="term" name="term" className="input" defaultValue={data.term} placeholder="0501234567 или Иванов" />
        </div>
        <div className="min-w-0 max-w-full sm:max-w-[20rem]">
          <label className="label" htmlFor="database">
            База
          </label>
          <select id="database" name="database" className="input" defaultValue={data.database}>
            {data.bases.map((base) => (
              <option key={base.id} value={base.id}>
                {base.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label className="label" htmlFor="size">
            Показывать по:
          </label>
          <select
            id="size"
            name="size"
            className="input w-20"
            defaultValue={String(data.size)}
            onChange={hydrated && data.searched ? (event) => submit(event.currentTarget.form) : undefined}
          >
            {SIZES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="btn-primary" disabled={busy}>
          Найти
        </button>
      </Form>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Телефон можно писать как угодно: 050 123-45-67, +380501234567. Имя — от 3 букв. Без выбранной базы ищем во всех.
      </p>

      {data.error ? (
        <div role="alert" className="banner-error">
          {data.error}
        </div>
      ) : null}

      {data.searched && !data.error ? (
        data.total === 0 ? (
          <div className="card text-center text-slate-600 dark:text-slate-400" data-testid="nothing-found">
            Ничего не найдено
          </div>
        ) : (
          <div className="space-y-3" data-testid="search-results">
            <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="found-count">
              {data.limited ? `Найдено ${data.total} или больше: показаны первые ${data.total}, уточните поиск` : `Найдено: ${data.total}`}
            </p>
            {/*
              One compact row per hit (issue 17): the fields that have a value; history unfolds under its cell. On a
              phone (below md) the table is one card per hit, each cell labelled (.stack-table): no sideways scroll.
            */}
            <TableFrame className="card p-0">
              <table className="stack-table min-w-full text-sm" data-testid="search-table">
                <thead className="bg-slate-50 text-left dark:bg-slate-900">
                  <tr>
                    <th className="p-2 font-medium">ФИО</th>
                    <th className="p-2 font-medium">Телефон</th>
                    <th className="p-2 font-medium">Статус</th>
                    <th className="p-2 font-medium">База</th>
                    <th className="p-2 font-medium">Город, адрес</th>
                    <th className="p-2 font-medium">Другое</th>
                    <th className="p-2 font-medium">История</th>
                  </tr>
                </thead>
                <tbody>
                  {data.hits.map((hit) => {
                    const extras = Boolean(hit.age) || hit.extras.length > 0;
                    return (
                      <tr key={hit.id} className="border-t border-slate-100 align-top dark:border-slate-700" data-testid="search-hit">
                        <td className="font-medium md:p-2" data-label="ФИО">
                          <div className="md:min-w-[7rem]">{hit.name || "—"}</div>
                        </td>
                        <td className="tabular-nums md:p-2" data-label="Телефон">
                          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                            <span className="whitespace-nowrap">{hit.phone || "—"}</span>
                            {hit.doNotCall ? (
                              <span
                                className="inline-flex items-center gap-1 whitespace-nowrap rounded bg-red-100 px-2 py-0.5 text-xs font-semibold text-red-800 dark:bg-red-900/50 dark:text-red-200"
                                data-testid="do-not-call-mark"
                                title="Номер в списке «Не звонить»: клиент не выдаётся менеджерам"
                              >
                                <BanIcon />
                                Не звонить
                              </span>
                            ) : null}
                          </div>
                        </td>
                        <td className="md:p-2" data-label="Статус">
                          <div>{hit.status || "Без статуса"}</div>
                        </td>
                        <td className="md:p-2" data-label="База">
                          <div className="md:min-w-[8rem]">{hit.databaseName}</div>
                        </td>
                        <td className="md:p-2" data-label="Город, адрес">
                          <div>{[hit.city, hit.address].filter(Boolean).join(", ") || "—"}</div>
                        </td>
                        <td className="text-xs md:p-2" data-label="Другое" data-testid="hit-extras" data-empty={extras ? undefined : ""}>
                          <div className="space-y-0.5 md:min-w-[9rem]">
                            {hit.age ? <div>Возраст: {hit.age}</div> : null}
                            {hit.extras.map((extra, i) => (
                              <div key={i} className="whitespace-pre-wrap break-words">
                                <span className="text-slate-600 dark:text-slate-400">{extra.label}:</span> {extra.value}
                              </div>
                            ))}
                          </div>
                        </td>
                        <td className="md:p-2" data-label="История">
                          <details data-testid="hit-history">
                            <summary className="cursor-pointer text-sm font-medium md:whitespace-nowrap">{`История клиента (${hit.history.length})`}</summary>
                            <div className="mt-2 md:min-w-[20rem]">
                              <ClientHistory entries={hit.history} />
                            </div>
                          </details>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableFrame>
            <Pager page={data.page} pages={data.pages} hrefFor={href} maxButtons={5} />
          </div>
        )
      ) : null}
      {!data.searched ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Нужна база?{" "}
          <Link to="/importbase" className="text-blue-600 dark:text-blue-400 hover:underline">
            Импортируйте её
          </Link>
          .
        </p>
      ) : null}
    </section>
  );
}
