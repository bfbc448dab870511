import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import Holidays from "date-holidays";
import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";

/**
 * Public holidays of the client's country count as weekends in a topic's calling hours (issue 43, decision 076).
 * The claim is one SQL statement and cannot call a library, so the app writes the holidays of the years around
 * now into public_holidays, one row per zone name the database knows and day, from the `date-holidays` data set
 * (a maintained registry package, read offline): the rule then reads the row of the client's zone and local date.
 *
 * A zone's country is the one the data set lists the zone under. A zone several countries share (Europe/Rome: Italy,
 * San Marino, the Vatican) gets the days all of them rest. Links of one zone (Europe/Kyiv, Europe/Kiev) are the same
 * zone for the runtime's ICU, which names them alike. A fixed offset (Etc/GMT-3, from a base's «UTC+3») has no
 * country, and so no holidays.
 */

const DATA_SET_VERSION: string = (createRequire(import.meta.url)("date-holidays/package.json") as { version: string }).version;

/** The runtime's one name for a zone and its links (null: a name ICU does not know, like posix/…). */
function canonical(zone: string): string | null {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

/**
 * Public holidays ("YYYY-MM-DD") of each zone's country (canonical names), for these years. Two to four seconds
 * of CPU in all: it gives the event loop back after each country, so requests are not held for that long.
 */
export async function holidaysByZone(years: number[]): Promise<Map<string, Set<string>>> {
  const countriesOfZone = new Map<string, Set<string>[]>();
  const all = new Holidays();
  for (const country of Object.keys(all.getCountries())) {
    const data = new Holidays(country);
    const days = new Set<string>();
    for (const year of years) {
      for (const holiday of data.getHolidays(year) || []) if (holiday.type === "public") days.add(holiday.date.slice(0, 10));
    }
    for (const zone of new Set((data.getTimezones() || []).map(canonical))) {
      if (!zone) continue;
      countriesOfZone.set(zone, [...(countriesOfZone.get(zone) ?? []), days]);
    }
    await new Promise((resolve) => setImmediate(resolve));
  }
  const byZone = new Map<string, Set<string>>();
  for (const [zone, countries] of countriesOfZone) {
    // The days every country of the zone rests.
    byZone.set(zone, new Set([...countries[0]].filter((day) => countries.every((c) => c.has(day)))));
  }
  return byZone;
}

/**
 * holidaysByZone through a file in the system's temporary folder, named by the data set's version and the years: the
 * data set is the same for every process of that version, and working it out takes ~3 s of CPU at each start on a
 * new database (each fresh test server paid it). A missing or unreadable file, or one another user wrote (the folder
 * is shared), is worked out again.
 */
export async function cachedHolidaysByZone(years: number[]): Promise<Map<string, Set<string>>> {
  const file = path.join(os.tmpdir(), `leaddesk-holidays-${DATA_SET_VERSION}-${years.join("-")}.json`);
  try {
    if ((await fs.promises.stat(file)).uid !== process.getuid?.()) throw new Error("another user's file");
    const saved = JSON.parse(await fs.promises.readFile(file, "utf8")) as Record<string, string[]>;
    return new Map(Object.entries(saved).map(([zone, days]) => [zone, new Set(days)]));
  } catch {
    const byZone = await holidaysByZone(years);
    const partial = `${file}.${process.pid}`;
    try {
      await fs.promises.writeFile(partial, JSON.stringify(Object.fromEntries([...byZone].map(([zone, days]) => [zone, [...days]]))));
      await fs.promises.rename(partial, file);
    } catch {
      // A read-only or full temporary folder: the next start works it out again.
      await fs.promises.rm(partial, { force: true });
    }
    return byZone;
  }
}

/** The years filled: the one before (a client west of us may still be in it), this one and the next. */
export const holidayYears = (now = new Date()) => [now.getUTCFullYear() - 1, now.getUTCFullYear(), now.getUTCFullYear() + 1];

/**
 * Fills public_holidays for `years` unless it was already filled from this version of the data set for them
 * (settings.holidays_filled): at start and once a day (server/jobs/holidays.ts), so a new year comes in by itself
 * and an `npm update date-holidays` is applied at the next start. Answers whether it wrote.
 */
export async function fillPublicHolidays(db: Db, years = holidayYears()): Promise<boolean> {
  const stamp = `${DATA_SET_VERSION}:${years.join(",")}`;
  // The settings row may not be there yet on a database just migrated (seed makes it the same way).
  await db.execute(sql`insert into settings (id) values (1) on conflict do nothing`);
  const [current] = await selectRows(db, { filled: sql<string>`holidays_filled` }, (list) => sql`select ${list} from settings where id = 1`);
  if (current?.filled === stamp) return false;
  const names = await selectRows(db, { name: sql<string>`name` }, (list) => sql`select ${list} from pg_timezone_names`);
  const byZone = await cachedHolidaysByZone(years);
  const zones: string[] = [];
  const days: string[] = [];
  for (const { name } of names) {
    const zone = canonical(name);
    for (const day of (zone && byZone.get(zone)) || []) {
      zones.push(name);
      days.push(day);
    }
  }
  return db.transaction(async (tx) => {
    // One instance fills; another waiting here finds the stamp written and leaves it.
    const [row] = await selectRows(
      tx as unknown as Db,
      { filled: sql<string>`holidays_filled` },
      (list) => sql`select ${list} from settings where id = 1 for update`,
    );
    if (!row || row.filled === stamp) return false;
    await tx.execute(sql`delete from public_holidays`);
    // Both as text[]: postgres.js would write a date[] parameter from Date objects only.
    await tx.execute(sql`insert into public_holidays (zone, day)
      select z, d::date from unnest(${sql.param(zones)}::text[], ${sql.param(days)}::text[]) as u(z, d) on conflict do nothing`);
    await tx.execute(sql`update settings set holidays_filled = ${stamp} where id = 1`);
    return true;
  });
}
