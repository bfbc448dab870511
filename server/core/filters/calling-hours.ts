import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { badRequest } from "../errors";
import { BUSINESS_TIME_ZONE } from "../../../common/business-time";
import type { filters } from "../../../db/schema";

/**
 * A topic's calling window (issue 29, decision 050): its clients are handed out and called only inside it, in
 * each client's own local time (contacts.tz, from the phone number; the topic's zone when that is unknown).
 */
export interface CallingHours {
  /** "09:00": the first minute calls may start, local time. */
  from: string;
  /**
   * "21:00": calls stop at this minute; before `from` it is an overnight window ("22:00" to "06:00"); equal to
   * `from` ("00:00" to "00:00") the window is around the clock.
   */
  until: string;
  /** ISO days of the week calls are allowed on: 1 Monday … 7 Sunday (the client's local date). */
  days: number[];
  /** The zone for a number whose own zone is unknown (IANA name). */
  timeZone: string;
  /**
   * The window on weekends: Saturday, Sunday, a public holiday of the client's country, a day of `daysOff`
   * (decision 076); null (or absent): the working days' window.
   */
  weekendFrom?: string | null;
  weekendUntil?: string | null;
  /** The topic's own days off, "YYYY-MM-DD" in the client's local calendar: weekends too. */
  daysOff?: string[];
}

export const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7];
export const DEFAULT_CALLING_HOURS: CallingHours = {
  from: "09:00",
  until: "21:00",
  days: ALL_DAYS,
  timeZone: BUSINESS_TIME_ZONE,
  weekendFrom: null,
  weekendUntil: null,
  daysOff: [],
};

// The window's input schema is in common/ (the topic form checks it in the browser too).
export { callingHoursSchema } from "../../../common/schemas/filters";

/**
 * A zone the database knows: every clock is read by the database (`AT TIME ZONE`), and a name it does not know
 * would fail every claim of the topic, so the zone is checked where it is used.
 */
export async function requireKnownZone(db: Pick<Db, "execute">, zone: string) {
  const [row] = await selectRows(
    db as Db,
    { known: sql<boolean>`exists (select 1 from pg_timezone_names where name = ${zone})` },
    (list) => sql`select ${list}`,
  );
  if (!row?.known) throw badRequest(`Неизвестный часовой пояс «${zone.slice(0, 64)}»`, "time_zone_unknown");
}

/** The window as SQL expressions (literals, or reads of a topic row inside a statement). */
export interface HoursSql {
  from: SQL;
  until: SQL;
  days: SQL;
  timeZone: SQL;
  /** time, null: as on working days. */
  weekendFrom: SQL;
  weekendUntil: SQL;
  /** date[] */
  daysOff: SQL;
  /** Each a read of a row inside the statement (a subquery): the rule then reads each once (`withinCallingHours`). */
  readsOfARow?: boolean;
}

export const hoursLiteral = (hours: CallingHours): HoursSql => ({
  from: sql`${hours.from}::time`,
  until: sql`${hours.until}::time`,
  days: sql`${`{${hours.days.join(",")}}`}::int[]`,
  timeZone: sql`${hours.timeZone}::text`,
  weekendFrom: sql`${hours.weekendFrom ?? null}::time`,
  weekendUntil: sql`${hours.weekendUntil ?? null}::time`,
  daysOff: sql`${`{${(hours.daysOff ?? []).join(",")}}`}::date[]`,
});

/** The window of the topic row a statement reads in its CTE `cte` (the turn's `f`: calls_from, call_days …). */
export const hoursOfStatementRow = (cte: string): HoursSql => {
  const read = (name: string, type: string) => sql`(select ${sql.identifier(name)} from ${sql.identifier(cte)})::${sql.raw(type)}`;
  return {
    from: read("calls_from", "time"),
    until: read("calls_until", "time"),
    // Cast, so `= any(…)` reads an array rather than a subquery's rows.
    days: read("call_days", "int[]"),
    timeZone: read("time_zone", "text"),
    weekendFrom: read("weekend_from", "time"),
    weekendUntil: read("weekend_until", "time"),
    daysOff: read("days_off", "date[]"),
    readsOfARow: true,
  };
};

/** The window of the topic row `alias` (filters). */
export const hoursOfTopic = (alias: string): HoursSql => {
  const column = (name: string) => sql`${sql.identifier(alias)}.${sql.identifier(name)}`;
  return {
    from: column("calls_from"),
    until: column("calls_until"),
    days: column("call_days"),
    timeZone: column("time_zone"),
    weekendFrom: column("weekend_from"),
    weekendUntil: column("weekend_until"),
    daysOff: column("days_off"),
  };
};

/** `local` (a timestamp without zone) inside [from, until): overnight when until < from, around the clock when equal. */
const inWindow = (local: SQL, from: SQL, until: SQL): SQL => sql`case
      when ${from} = ${until} then true
      when ${from} < ${until} then ${local}::time >= ${from} and ${local}::time < ${until}
      else ${local}::time >= ${from} or ${local}::time < ${until} end`;

/** What the rule reads: the client's zone and local time, and the topic's window (`weekendFrom`/`Until` as stored). */
interface RuleInputs extends Omit<HoursSql, "timeZone" | "readsOfARow"> {
  zone: SQL;
  local: SQL;
}

/**
 * The rule, as one SQL predicate: at the instant `at` (now() unless a test fixes it), the local time in the
 * client's zone (`zone`, null when unknown: the topic's zone) is inside the window of his local day, on an allowed
 * day. His day is a weekend (decision 076) on a Saturday or Sunday, on a public holiday of his zone's country
 * (public_holidays) and on a day off of the topic: then the weekend window applies (the working days' when the
 * topic has none), and a holiday or day off on a working day is open only when the topic calls on Saturday or
 * Sunday. The holiday table is read only on a working day where the two answers differ (one probe of its key).
 */
export function withinCallingHours(zone: SQL, hours: HoursSql, at: SQL = sql`now()`): SQL {
  if (!hours.readsOfARow) {
    const clientZone = sql`coalesce(${zone}, ${hours.timeZone})`;
    return hoursRule({ ...hours, zone: clientZone, local: sql`(${at} at time zone ${clientZone})` });
  }
  // The rule names its inputs a dozen times; reads of a statement's row (the turn's `f`) written out at each name
  // made each reading of the rule ~20 init plans, and the lead turn's statement, which reads it ~50 times, 82 KB and
  // ~1,900 init plans, planned at every press on PGlite (then: decision 084 prepares it now): 19 → 67 ms a turn in the paint
  // bench. Here each input is read once, in subqueries the planner keeps as they are (offset 0), and the rule reads
  // their columns.
  const rule = hoursRule({
    zone: sql`h.zone`,
    local: sql`h.local`,
    from: sql`h.calls_from`,
    until: sql`h.calls_until`,
    days: sql`h.call_days`,
    weekendFrom: sql`h.weekend_from`,
    weekendUntil: sql`h.weekend_until`,
    daysOff: sql`h.days_off`,
  });
  return sql`(select ${rule} from (select z.zone, (${at}) at time zone z.zone as local, ${hours.from} as calls_from,
      ${hours.until} as calls_until, ${hours.days} as call_days, ${hours.weekendFrom} as weekend_from,
      ${hours.weekendUntil} as weekend_until, ${hours.daysOff} as days_off
    from (select coalesce(${zone}, ${hours.timeZone}) as zone offset 0) z offset 0) h)`;
}

function hoursRule(v: RuleInputs): SQL {
  const dow = sql`extract(isodow from ${v.local})::int`;
  const workday = sql`(${dow} = any(${v.days}) and ${inWindow(v.local, v.from, v.until)})`;
  const weekendWindow = inWindow(v.local, sql`coalesce(${v.weekendFrom}, ${v.from})`, sql`coalesce(${v.weekendUntil}, ${v.until})`);
  const offDay = sql`(${v.local}::date = any(${v.daysOff})
      or exists (select 1 from public_holidays ph where ph.zone = ${v.zone} and ph.day = ${v.local}::date))`;
  // Inside coalesce, so the planner takes the rule for what it is, a condition it cannot estimate (one half),
  // rather than multiplying guesses for each comparison down to "hardly a row passes", which made it sort every
  // due row of the retry tier instead of walking its index in order and stopping at the first.
  return sql`coalesce(case
      when ${dow} >= 6 then ${dow} = any(${v.days}) and ${weekendWindow}
      when ${workday} = (${v.days} && '{6,7}'::int[] and ${weekendWindow}) then ${workday}
      when ${offDay} then ${v.days} && '{6,7}'::int[] and ${weekendWindow}
      else ${workday} end, false)`;
}

/**
 * The client's zone, the one rule the turn, the callbacks, the autodial and the proxy's call check read (issue 43):
 * the contact's own `contacts.tz`, which the import set from the base's «Часовой пояс» column when it read one and
 * from his number otherwise (decision 062: the file outranks the phone); else, for a call by hand to a number no
 * contact of the topic has, the zone of the number dialled; else the topic's zone (`withinCallingHours`).
 */
export const clientZone = (contactTz: SQL, dialledZone: string | null = null): SQL =>
  dialledZone === null ? contactTz : sql`coalesce(${contactTz}, ${dialledZone}::text)`;

/** Inside the topic's window in the client's own local time (`clientZone`), at `at` (now() unless a test fixes it). */
export const clientInHours = (contactTz: SQL, hours: HoursSql, dialledZone: string | null = null, at?: SQL): SQL =>
  withinCallingHours(clientZone(contactTz, dialledZone), hours, at);

/** How far ahead the next window is looked for (a topic's days off may run for weeks). */
export const WINDOW_HORIZON_DAYS = 62;

/**
 * SQL (timestamptz, null when none within WINDOW_HORIZON_DAYS): the first instant after `at` when the window opens
 * for a client in `zone` (resolved: not null), by `withinCallingHours` itself. The rule changes its answer only at
 * a window's start, its end or a local midnight, so the candidates are the starts of the working days' and the
 * weekend window and each local midnight of the coming days; the first the rule opens is the answer.
 */
export function nextWindowStart(zone: SQL, hours: HoursSql, at: SQL = sql`now()`): SQL {
  return sql`(select s.at
      from generate_series(0, ${WINDOW_HORIZON_DAYS}) d(n)
        cross join (values (${hours.from}), (coalesce(${hours.weekendFrom}, ${hours.from})), ('00:00'::time)) t(start)
        cross join lateral (select ((((${at}) at time zone ${zone})::date + d.n) + t.start) at time zone ${zone} as at) s
      where s.at > ${at} and ${withinCallingHours(zone, hours, sql`s.at`)}
      order by s.at limit 1)`;
}

/** SQL (text): `nextWindowStart` on the client's wall clock, "YYYY-MM-DD HH24:MI", with his local date now first. */
export function nextWindowLocal(zone: SQL, hours: HoursSql, at: SQL = sql`now()`): SQL<string | null> {
  return sql<string | null>`(to_char((${at}) at time zone ${zone}, 'YYYY-MM-DD') || ' ' ||
    to_char(${nextWindowStart(zone, hours, at)} at time zone ${zone}, 'YYYY-MM-DD HH24:MI'))`;
}

const WEEKDAYS = ["пн", "вт", "ср", "чт", "пт", "сб", "вс"];

/** «пн 18.01» for "2027-01-18". */
export function dayAndDate(isoDate: string): string {
  const [y, m, d] = isoDate.split("-").map(Number);
  const dow = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return `${WEEKDAYS[(dow + 6) % 7]} ${String(d).padStart(2, "0")}.${String(m).padStart(2, "0")}`;
}

/**
 * What the manager reads beside a callback that waits for its client's hours, from `nextWindowLocal`: «(с 09:00 по
 * его времени)» today, «(с пн 18.01 10:00 по его времени)» on another day (a weekend window, a holiday, days off).
 */
export function waitsForHoursNote(nextLocal: string | null): string {
  const [today, day, time] = (nextLocal ?? "").split(" ");
  if (!day || !time) return "ждёт рабочего времени клиента";
  return `ждёт рабочего времени клиента (с ${day === today ? time : `${dayAndDate(day)} ${time}`} по его времени)`;
}

/** The topic row's columns of the window (`daysOff` read as text[], the same strings on either driver). */
export const hoursColumnsOf = (table: typeof filters) => ({
  callsFrom: table.callsFrom,
  callsUntil: table.callsUntil,
  callDays: table.callDays,
  timeZone: table.timeZone,
  weekendFrom: table.weekendFrom,
  weekendUntil: table.weekendUntil,
  daysOff: sql<string[]>`${table.daysOff}::text[]`,
});

/** The topic row's window as the API and the form show it. */
export function presentHours(row: {
  callsFrom: string;
  callsUntil: string;
  callDays: number[];
  timeZone: string;
  weekendFrom: string | null;
  weekendUntil: string | null;
  daysOff: string[];
}): Required<CallingHours> {
  return {
    from: row.callsFrom.slice(0, 5),
    until: row.callsUntil.slice(0, 5),
    days: row.callDays,
    timeZone: row.timeZone,
    weekendFrom: row.weekendFrom?.slice(0, 5) ?? null,
    weekendUntil: row.weekendUntil?.slice(0, 5) ?? null,
    daysOff: row.daysOff,
  };
}
