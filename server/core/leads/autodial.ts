import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";
import { mayBeCalled } from "../dnc/dnc";
import { clientInHours, hoursOfTopic } from "../filters/calling-hours";

/**
 * What the lead panel needs to dial a lead by itself (issue 29, decision 058): the topic's «Автонабор через N с»,
 * and whether the server would refuse this lead's call right now. The page never even tries a call the proxy
 * refuses anyway (decision 049): a number on the do-not-call list, a client outside his calling hours.
 */
export interface Autodial {
  seconds: number;
  /** Why this lead is not dialled by itself (the manager may still press Позвонить and hear the proxy's reason). */
  block: "do_not_call" | "outside_hours" | null;
}

/**
 * The autodial columns (`autodial_seconds`, `listed`, `within`) of contact `c` in topic `f`: autodialFor's, and
 * the lead panel's view (lead-view.ts).
 */
export const AUTODIAL_COLUMNS = {
  autodial_seconds: sql<number | null>`f.autodial_seconds`,
  listed: sql<boolean>`not ${mayBeCalled("c")}`,
  within: sql<boolean>`${clientInHours(sql`c.tz`, hoursOfTopic("f"))}`,
};

/** The autodial the AUTODIAL_COLUMNS of a row say; null when the topic has it off. */
export function autodialOf(row: RowOf<typeof AUTODIAL_COLUMNS>): Autodial | null {
  if (row.autodial_seconds === null) return null;
  return { seconds: Number(row.autodial_seconds), block: row.listed ? "do_not_call" : row.within ? null : "outside_hours" };
}

/** The autodial of `userId`'s chosen topic for his lead `contactId`; null when the topic has it off. */
export async function autodialFor(db: Db, userId: number, contactId: number): Promise<Autodial | null> {
  const [row] = await selectRows(
    db,
    AUTODIAL_COLUMNS,
    (list) => sql`select ${list}
      from users u join filters f on f.id = u.getting_filter join contacts c on c.id = ${contactId}
      where u.id = ${userId}`,
  );
  return row ? autodialOf(row) : null;
}
