import { type SQL, sql } from "drizzle-orm";

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
