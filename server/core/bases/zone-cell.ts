import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";

/**
 * A spreadsheet cell mapped to «Часовой пояс» (issue 29, decision 062), read as the client's zone. Readable forms:
 * - an IANA name the database knows, in any letter case: «Europe/Moscow», «asia/vladivostok», «UTC»;
 * - a whole-hour UTC offset from −12 to +14, with or without «UTC» or «GMT» before it: «UTC+5», «GMT+3»,
 *   «+05:00», «+5», «UTC-3», «UTC−3» (a typographic minus), «UTC+05:00»; stored as the database's fixed zone
 *   Etc/GMT∓N (POSIX names turn the sign: UTC+5 is Etc/GMT-5), so it never moves to summer time.
 * Anything else (a half-hour offset, a city name, «МСК+2») is unreadable: the caller falls back to the phone's zone
 * and counts it. Names come from pg_timezone_names, since the database reads every clock (`AT TIME ZONE`) and a
 * name it does not know would fail every claim of the topic.
 */
export type ZoneReader = (cell: string) => string | null;

const OFFSET = /^(?:(?:utc|gmt)\s*)?([+\-\u2212])\s*(\d{1,2})(?::?(\d{2}))?$/i;

export async function zoneCellReader(db: Db): Promise<ZoneReader> {
  const rows = await selectRows(db, { name: sql<string>`name` }, (list) => sql`select ${list} from pg_timezone_names`);
  const known = new Map<string, string>();
  for (const { name } of rows) known.set(name.toLowerCase(), name);
  return (cell) => {
    const text = cell.trim();
    if (!text) return null;
    const named = known.get(text.toLowerCase());
    if (named) return named;
    const offset = OFFSET.exec(text.replace(/\s+/g, ""));
    if (!offset) return null;
    const hours = Number(offset[2]);
    if (offset[3] && offset[3] !== "00") return null;
    const east = offset[1] === "+";
    if (hours === 0) return known.get("etc/utc") ?? null;
    if (east ? hours > 14 : hours > 12) return null;
    return known.get(`etc/gmt${east ? "-" : "+"}${hours}`) ?? null;
  };
}
