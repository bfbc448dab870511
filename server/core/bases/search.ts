import { sql } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { CONTACT_FIELDS } from "./contact-fields";
import { type Actor, requireAdmin } from "../actor";
import { badRequest } from "../errors";
import { digitsOrNumber, parseInput } from "../validation";
import { extraFieldLabel } from "./mapping";
import { displayPhone, looksLikePhone, phoneKey } from "./phone";
import { visibleBase } from "./visible";

/** At most this many hits per search (the page paginates them). */
export const SEARCH_LIMIT = 200;

export const SEARCH_TERM_REQUIRED = "Введите телефон или часть имени для поиска";
export const NOTHING_FOUND = "Ничего не найдено";

export const searchSchema = z.object({
  term: z.string({ error: SEARCH_TERM_REQUIRED }).trim().min(1, { error: SEARCH_TERM_REQUIRED }).max(200, {
    error: "Слишком длинный запрос (не более 200 символов)",
  }),
  /** A base id, or 0 (or nothing) for every base. */
  database: digitsOrNumber("Неверный идентификатор базы", 0, 2147483647).optional().default(0),
});

export interface SearchHit {
  databaseName: string;
  /** The headers mapped to Доп. поле 1-4 when the base was imported ("" when none). */
  extraLabels: string[];
  data: {
    id: number;
    name: string;
    phone: string;
    city: string;
    address: string;
    age: string;
    additionalInfo1: string;
    additionalInfo2: string;
    additionalInfo3: string;
    additionalInfo4: string;
    status: string;
    /** The number is on the do-not-call list. */
    doNotCall: boolean;
  };
}

/** A hit's row: the contact, its base and status, and whether its number is on the do-not-call list. */
const HIT_COLUMNS = {
  ...CONTACT_FIELDS,
  database_name: sql<string>`d.name`,
  extra_labels: sql<string[] | null>`d.extra_labels`,
  status: sql<string | null>`s.text`,
  do_not_call: sql<boolean>`exists (select 1 from do_not_call dnc where dnc.phone_key = c.phone_key)`,
};

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * Finds contacts by phone (any common way of writing it: the normalised key, contacts_phone_key_idx) or by a part
 * of the name (lower(name) LIKE, served by the contacts_name_trgm_idx trigram index), in one base or in all.
 */
export async function searchContacts(
  db: Db,
  actor: Actor,
  input: { term?: unknown; database?: unknown },
  options: { phoneRegion: string },
): Promise<SearchHit[]> {
  requireAdmin(actor);
  const { term, database } = parseInput(searchSchema, {
    term: input.term ?? "",
    database: input.database === "" || input.database === null ? undefined : input.database,
  });
  let where;
  // Phone hits are few: sort them. Name hits can be tens of thousands: an ORDER BY would fetch and sort them all
  // before the LIMIT; the trigram bitmap scan already returns rows in storage order (import order) and stops at
  // the LIMIT.
  let order = sql``;
  if (looksLikePhone(term)) {
    where = sql`c.phone_key = ${phoneKey(term, options.phoneRegion)}`;
    order = sql`order by c.id`;
  } else {
    if ([...term].length < 3) throw badRequest("Для поиска по имени введите не менее 3 символов", "term_too_short");
    where = sql`lower(c.name) like ${`%${escapeLike(term.toLowerCase())}%`}`;
  }
  const inBase = database ? sql` and c.database_id = ${database}` : sql``;
  const rows = await selectRows(
    db,
    HIT_COLUMNS,
    (list) => sql`select ${list}
        from contacts c
        join databases d on d.id = c.database_id and ${visibleBase("d")}
        left join statuses s on s.id = c.status_id
        where ${where}${inBase}
        ${order}
        limit ${SEARCH_LIMIT}`,
  );
  return rows.map((r) => ({
    databaseName: r.database_name,
    extraLabels: r.extra_labels ?? [],
    data: {
      id: Number(r.id),
      name: r.name,
      phone: r.phone,
      city: r.city,
      address: r.address,
      age: r.age,
      additionalInfo1: r.additional_info1,
      additionalInfo2: r.additional_info2,
      additionalInfo3: r.additional_info3,
      additionalInfo4: r.additional_info4,
      status: r.status ?? "",
      doNotCall: Boolean(r.do_not_call),
    },
  }));
}

/** A hit as the search page's table row shows it: the readable phone, the extra fields that have a value. */
export function searchRowView(hit: SearchHit, phoneRegion: string) {
  const { data } = hit;
  const extras = ([1, 2, 3, 4] as const)
    .map((n) => ({ label: hit.extraLabels[n - 1]?.trim() || extraFieldLabel(n), value: data[`additionalInfo${n}`] }))
    .filter((extra) => extra.value.trim() !== "");
  return {
    id: data.id,
    databaseName: hit.databaseName,
    name: data.name,
    phone: displayPhone(data.phone, phoneRegion),
    city: data.city,
    address: data.address,
    age: data.age,
    status: data.status,
    doNotCall: data.doNotCall,
    extras,
  };
}
