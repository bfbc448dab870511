import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigation, useSubmit } from "@remix-run/react";
import { actorOf, requireAdminUser } from "../auth.server";
import { baseOptions, searchForPage } from "../bases.server";
import { historiesOf } from "../calls.server";
import { ClientHistory } from "../components/calls/ClientHistory";
import { pageParams, paginate, Pager } from "../components/bases/Pager";
import { useHydrated } from "../components/ui/DialogOrSection";
import { notify } from "../components/ui/Toasts";

export const meta: MetaFunction = () => [{ title: "Поиск клиента" }];

const SIZES = [5, 10, 20] as const;

const LABELS: Record<string, string> = {
  name: "ФИО",
  phone: "Телефон",
  city: "Город",
  address: "Адрес",
  age: "Возраст",
  additionalInfo1: "Доп. поле 1",
  additionalInfo2: "Доп. поле 2",
  additionalInfo3: "Доп. поле 3",
  additionalInfo4: "Доп. поле 4",
  status: "Статус",
};

/** A GET form: the query string is the whole state, so it works without JavaScript. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const params = new URL(request.url).searchParams;
  const term = params.get("term");
  const database = params.get("database") ?? "0";
  const bases = await baseOptions(context.deps.db, actorOf(user));
  const { size, page: asked } = pageParams(params, SIZES, 5);
  if (term === null) return { bases, term: "", database, searched: false, error: null, hits: [], total: 0, size, page: 1, pages: 1 };
  const result = await searchForPage(context, actorOf(user), { term, database });
  const { items, page, pages } = paginate(result.hits, asked, size);
  // The history of the hits on this page only (two queries for all of them).
  const histories = await historiesOf(context.deps.db, actorOf(user), items.map((hit) => hit.data.id));
  const hits = items.map((hit) => ({ ...hit, history: histories.get(hit.data.id) ?? [] }));
  return { bases, term, database, searched: true, error: result.error, hits, total: result.hits.length, size, page, pages };
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
        <div>
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
        <div role="alert" className="rounded-md border border-red-300 bg-red-50 px-4 py-2 text-sm text-red-800">
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
            <p className="text-sm text-slate-600 dark:text-slate-400">Найдено: {data.total}</p>
            {data.hits.map((hit) => (
              <article key={hit.data.id} className="card" data-testid="search-hit">
                <h2 className="mb-2 font-semibold">{hit.databaseName}</h2>
                <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
                  {Object.entries(hit.data)
                    .filter(([key, value]) => key !== "id" && value !== "")
                    .map(([key, value]) => (
                      <div key={key} className="contents">
                        <dt className="text-slate-600 dark:text-slate-400">{LABELS[key] ?? key}</dt>
                        <dd className="whitespace-pre-wrap">{String(value)}</dd>
                      </div>
                    ))}
                </dl>
                <details className="mt-3" data-testid="hit-history">
                  <summary className="cursor-pointer text-sm font-medium">{`История клиента (${hit.history.length})`}</summary>
                  <div className="mt-2">
                    <ClientHistory entries={hit.history} />
                  </div>
                </details>
              </article>
            ))}
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
