import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";

/**
 * Failures counted per key and client address in login_throttle (decision 021): the login throttle's keys are a
 * login and "" (the address across logins); the telephony secret's is its own (shared-secret.ts). A row's window
 * starts at its first count; a row whose window ran out starts again at 1.
 */
export const THROTTLE_WINDOW_MINUTES = 15;

export interface Counted {
  key: string;
  failures: number;
  /** Whole minutes until the row's window ends (at least 1). */
  minutesLeft: number;
}

const minutesLeft = sql`ceil(extract(epoch from t.window_start + make_interval(mins => ${THROTTLE_WINDOW_MINUTES}) - now()) / 60)::int`;
/** A key's count in its window (login_throttle `t`). */
const COUNT_COLUMNS = { key: sql<string>`t.login`, failures: sql<number>`t.failures`, minutes_left: sql<number>`${minutesLeft}` };
const counted = (row: RowOf<typeof COUNT_COLUMNS>): Counted => ({
  key: row.key,
  failures: Number(row.failures),
  minutesLeft: Math.max(1, Number(row.minutes_left)),
});

/**
 * Adds one to each key's row for this address, in one statement: parallel attempts (on any instance) each see
 * their own count. Answers every row's count after it.
 */
export async function countFailure(db: Db, keys: string[], address: string): Promise<Counted[]> {
  const expired = sql`t.window_start <= now() - make_interval(mins => ${THROTTLE_WINDOW_MINUTES})`;
  const rows = await selectRows(
    db,
    COUNT_COLUMNS,
    (list) => sql`insert into login_throttle as t (login, address, failures, window_start)
        values ${sql.join(
          keys.map((key) => sql`(${key}, ${address}, 1, now())`),
          sql`, `,
        )}
        on conflict (login, address) do update set
          failures = case when ${expired} then 1 else t.failures + 1 end,
          window_start = case when ${expired} then now() else t.window_start end
        returning ${list}`,
  );
  return rows.map(counted);
}

/** The key's count for this address in its running window, without adding to it; null when there is none. */
export async function failuresSoFar(db: Db, key: string, address: string): Promise<Counted | null> {
  const [row] = await selectRows(
    db,
    COUNT_COLUMNS,
    (list) => sql`select ${list} from login_throttle t
        where t.login = ${key} and t.address = ${address}
          and t.window_start > now() - make_interval(mins => ${THROTTLE_WINDOW_MINUTES})`,
  );
  return row ? counted(row) : null;
}
