import { type SQL, sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { type Db, queryRows } from "./client";

/**
 * A raw query's columns declared once: each output name with its SQL expression and the type of its value
 * (`sql<T>`). The SELECT list is made from the declaration (`selectList`) and its readers' type from the same one
 * (`RowOf`), so a column renamed or dropped fails `tsc` in its readers, not in a 50-minute suite (issue 40).
 */
export type Columns = Record<string, SQL<unknown>>;

/** The row a `selectList(columns)` yields, by column name. */
export type RowOf<C extends Columns> = { [K in keyof C]: C[K] extends SQL<infer T> ? T : never };

/** `expr as "name", …` for each declared column, in the declaration's order. */
export function selectList(columns: Columns): SQL {
  return sql.join(
    Object.entries(columns).map(([name, expr]) => sql`${expr} as ${sql.identifier(name)}`),
    sql`, `,
  );
}

/**
 * The same columns read from a subquery or CTE `alias` that selected them (`select ${columnsOf("shown", C)}` over
 * `(select ${selectList(C)} …) shown`): each `alias."name"`, typed as declared.
 */
export function columnsOf<C extends Columns>(alias: string, columns: C): { [K in keyof C]: SQL<RowOf<C>[K]> } {
  return Object.fromEntries(Object.keys(columns).map((name) => [name, sql`${sql.identifier(alias)}.${sql.identifier(name)}`])) as {
    [K in keyof C]: SQL<RowOf<C>[K]>;
  };
}

/** Whether `list` is one of the chunks of `query`, at any depth. */
function holds(query: SQL, list: SQL): boolean {
  return query.queryChunks.some((chunk) => chunk === list || (chunk instanceof Object && "queryChunks" in chunk && holds(chunk as SQL, list)));
}

/**
 * The rows of a raw query typed from its columns: `query` is given the SELECT (or RETURNING) list made from
 * `columns` (selectList) and must put it in its outermost answer; the rows are `RowOf<columns>`. The one way core
 * reads a raw query's rows (queryRows with a type argument is refused outside db/: eslint.config.js), so no row
 * type is stated apart from its SELECT. A query that leaves the list out throws at once, in any test that runs it.
 */
export async function selectRows<C extends Columns>(db: Db, columns: C, query: (list: SQL) => SQL): Promise<RowOf<C>[]> {
  const list = selectList(columns);
  const statement = query(list);
  if (!holds(statement, list)) throw new Error("selectRows: the query does not select its declared columns");
  return queryRows<RowOf<C>>(db, statement);
}

/**
 * A constant list of the code's own strings as a text[] literal in the statement's text, not a parameter: for a
 * fragment a statement repeats (the contact limits in each tier of the lead turn), where a parameter at each use
 * would count against the prepared statements' limit (db/client.ts). Never for input from outside.
 */
export function textArrayLiteral(values: readonly string[]): SQL<string[]> {
  return sql.raw(`array[${values.map((v) => `'${v.replaceAll("'", "''")}'`).join(", ")}]::text[]`) as SQL<string[]>;
}

const dialect = new PgDialect();

/**
 * A statement part whose text never changes, rendered to text once, at its first use, and reused as it is: for a
 * large part that would otherwise be rendered at each run (the lead turn's, 59 KB). It must hold no parameter
 * (values come from rows the statement reads): one would be rendered once and then repeated at every run, so a
 * part that has one throws.
 */
export function renderedOnce(build: () => SQL): () => SQL {
  let text: SQL | null = null;
  return () => {
    if (!text) {
      const rendered = dialect.sqlToQuery(build());
      if (rendered.params.length > 0)
        throw new Error(`renderedOnce: the part has ${rendered.params.length} parameters: ${rendered.sql.slice(0, 200)}`);
      text = sql.raw(rendered.sql);
    }
    return text;
  };
}
