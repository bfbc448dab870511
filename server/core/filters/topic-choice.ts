import { type SQL, sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type Columns, type RowOf, selectRows } from "../../../db/typed-sql";
import type { Actor } from "../actor";
import { type CallingHours, dayAndDate, hoursLiteral, hoursOfTopic, nextWindowStart, withinCallingHours } from "./calling-hours";
import { chooseFilter, listOpenFilters } from "./filters";
import { claimableCount, loadWorkSet } from "../leads/allocation";

/**
 * Choosing a topic (issue 41, item 12): what /getFilters shows of each topic open to the user (its calling hours,
 * how many of its clients the panel would give him now, and how many new ones wait for their hours), the manager with one topic entering it by himself, and when the
 * calls of a topic whose clients all wait for their hours resume.
 */

const DAY_NAMES = ["Пн", "Вт", "Ср", "Чт", "Пт", "Сб", "Вс"];

/** ISO days as the week reads them: «ежедневно», «Пн–Пт», «Пн, Ср, Пт», «Пн–Ср, Сб». */
export function daysText(days: number[]): string {
  const sorted = [...new Set(days)].filter((d) => d >= 1 && d <= 7).sort((a, b) => a - b);
  if (sorted.length === 7) return "ежедневно";
  const runs: Array<[number, number]> = [];
  for (const day of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[1] === day - 1) last[1] = day;
    else runs.push([day, day]);
  }
  return runs
    .map(([a, b]) =>
      a === b ? DAY_NAMES[a - 1] : b === a + 1 ? `${DAY_NAMES[a - 1]}, ${DAY_NAMES[b - 1]}` : `${DAY_NAMES[a - 1]}–${DAY_NAMES[b - 1]}`,
    )
    .join(", ");
}

const windowText = (from: string, until: string) => (from === until ? "круглосуточно" : `${from}–${until}`);

/**
 * The topic's calling hours as a manager reads them, in the clients' own local time as `withinCallingHours`
 * applies them: «Пн–Пт 09:00–21:00; выходные и праздники 10:00–18:00 · по местному времени клиента».
 */
export function callingHoursText(hours: CallingHours): string {
  const parts = [`${daysText(hours.days)} ${windowText(hours.from, hours.until)}`];
  const callsOnWeekends = hours.days.includes(6) || hours.days.includes(7);
  if (hours.weekendFrom && hours.weekendUntil && callsOnWeekends) {
    parts.push(`выходные и праздники ${windowText(hours.weekendFrom, hours.weekendUntil)}`);
  } else if (!callsOnWeekends) {
    parts.push("в праздники не звоним");
  }
  if ((hours.daysOff ?? []).length > 0) parts.push(`дни без звонков: ${hours.daysOff!.length}`);
  return `${parts.join("; ")} · по местному времени клиента`;
}

/** One topic of /getFilters. */
export interface TopicChoice {
  id: number;
  name: string;
  /** callingHoursText of its window. */
  hours: string;
  /**
   * The clients a turn would hand this user now (claimableCount, by the turn's own rules): never-worked ones,
   * and his due callbacks, retries whose delay has passed, re-worked statuses, abandoned holds.
   */
  callableNow: number;
  /** Never-worked clients nobody holds, off the do-not-call list, with consent where asked, outside their hours now. */
  waitingForHours: number;
}

const FREE_COLUMNS = {
  filterId: sql<number>`f.id`,
  free: sql<number>`coalesce(sum(g.n), 0)::int`,
  freeNow: sql<number>`coalesce(sum(g.n) filter (where ${withinCallingHours(sql`g.tz`, hoursOfTopic("f"))}), 0)::int`,
} satisfies Columns;

/**
 * The free clients of these topics, in one statement: the free contacts of their bases are counted by base, zone
 * and consent first (contacts_free_idx's rows, read once however many topics share a base), and the calling-hours
 * rule is then asked once per topic and zone, not once per client.
 */
async function freeCounts(db: Db, filterIds: number[]): Promise<Map<number, RowOf<typeof FREE_COLUMNS>>> {
  if (filterIds.length === 0) return new Map();
  const ids = sql`${`{${filterIds.join(",")}}`}::int[]`;
  const rows = await selectRows(
    db,
    FREE_COLUMNS,
    (list) => sql`with g as (
        select c.database_id, c.tz, c.consent_at is not null as consented, count(*) as n from contacts c
        where c.database_id in (select database_id from filter_databases where filter_id = any(${ids}))
          and c.status_id is null and c.held_by is null and not c.listed
        group by 1, 2, 3)
      select ${list} from filters f
        join filter_databases fd on fd.filter_id = f.id
        join g on g.database_id = fd.database_id and (g.consented or not f.requires_consent)
      where f.id = any(${ids}) group by f.id`,
  );
  return new Map(rows.map((row) => [Number(row.filterId), { filterId: Number(row.filterId), free: Number(row.free), freeNow: Number(row.freeNow) }]));
}

/**
 * /getFilters: the topics open to this user, each with its hours, the clients the lead panel would give him now
 * (counted by the turn's own rules: claimableCount), and the never-worked ones that wait for their hours.
 */
export async function topicChoices(db: Db, actor: Actor): Promise<TopicChoice[]> {
  const open = await listOpenFilters(db, actor.id);
  const [counts, callable] = await Promise.all([
    freeCounts(
      db,
      open.map((f) => f.id),
    ),
    Promise.all(open.map(async (f) => claimableCount(db, actor.id, await loadWorkSet(db, f.id)))),
  ]);
  return open.map((f, i) => {
    const free = counts.get(f.id);
    return {
      id: f.id,
      name: f.name,
      hours: callingHoursText(f.callingHours),
      callableNow: callable[i],
      waitingForHours: (free?.free ?? 0) - (free?.freeNow ?? 0),
    };
  });
}

/**
 * A user without a topic who has exactly one open to him enters it by himself (there is nothing to choose):
 * answers its id, or null when he has none or several. Chosen as /getFilters' button would (chooseFilter).
 */
export async function enterOnlyTopic(db: Db, actor: Actor, login: string): Promise<number | null> {
  const open = await listOpenFilters(db, actor.id);
  if (open.length !== 1) return null;
  await chooseFilter(db, actor, { filterId: open[0].id, userId: actor.id, login });
  return open[0].id;
}

/** How many topics are open to this user now (the panel offers «Сменить тематику» only with a choice). */
export async function openTopicCount(db: Db, userId: number): Promise<number> {
  const [row] = await selectRows(
    db,
    { n: sql<number>`count(*)::int` },
    (list) => sql`select ${list} from filters f join filter_managers fm on fm.filter_id = f.id where fm.user_id = ${userId} and f.is_active`,
  );
  return Number(row?.n ?? 0);
}

/** When calls of a topic resume: the instant, and the local wall clock then in that client's zone. */
export interface CallsResume {
  /** ISO instant. */
  at: string;
  /** "09:00" in the zone of the client who is first. */
  localTime: string;
  /** "2027-01-18", that client's local date then. */
  localDate: string;
  /** Whole minutes from now (rounded up: «через 1 мин» while less than one is left). */
  minutes: number;
}

const RESUME_COLUMNS = {
  atMs: sql<number>`(extract(epoch from s.at) * 1000)::float8`,
  localTime: sql<string>`to_char(s.at at time zone s.zone, 'HH24:MI')`,
  localDate: sql<string>`to_char(s.at at time zone s.zone, 'YYYY-MM-DD')`,
  minutes: sql<number>`ceil(extract(epoch from s.at - s.now) / 60)::int`,
} satisfies Columns;

/**
 * The earliest instant after `at` (now unless a test fixes it) when one of the topic's never-worked free clients
 * who wait for their hours now comes inside them: `nextWindowStart` (the rule the turn applies) in each waiting
 * zone, the first of them. Null: nobody waits, or no window opens within WINDOW_HORIZON_DAYS.
 */
export async function callsResume(db: Db, topic: { databaseIds: number[]; hours: CallingHours }, at?: Date): Promise<CallsResume | null> {
  if (topic.databaseIds.length === 0) return null;
  const hours = hoursLiteral(topic.hours);
  const now: SQL = at ? sql`${at.toISOString()}::timestamptz` : sql`now()`;
  const zone = sql`coalesce(z.tz, ${hours.timeZone})`;
  const [row] = await selectRows(
    db,
    RESUME_COLUMNS,
    (list) => sql`with z as (
        select distinct c.tz from contacts c
        where c.database_id = any(${sql.param(topic.databaseIds)}::int[]) and c.status_id is null and c.held_by is null and not c.listed),
      waiting as (select ${zone} as zone from z where not ${withinCallingHours(sql`z.tz`, hours, now)}),
      s as (select w.zone, ${now} as now, ${nextWindowStart(sql`w.zone`, hours, now)} as at from waiting w)
      select ${list} from s where s.at is not null
      order by s.at limit 1`,
  );
  if (!row) return null;
  return { at: new Date(Number(row.atMs)).toISOString(), localTime: row.localTime, localDate: row.localDate, minutes: Number(row.minutes) };
}

/** «5 ч 57 мин», «2 дн 3 ч», «12 мин». */
export function durationText(minutes: number): string {
  const m = Math.max(1, minutes);
  const days = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  if (days > 0) return h > 0 ? `${days} дн ${h} ч` : `${days} дн`;
  if (h > 0) return min > 0 ? `${h} ч ${min} мин` : `${h} ч`;
  return `${min} мин`;
}

/**
 * What the panel says of it: «звонки продолжатся в 09:00 по их времени, через 5 ч 57 мин»; a day further than
 * tomorrow is named («в пн 18.01 в 09:00 …»).
 */
export function callsResumeText(resume: CallsResume): string {
  const when = resume.minutes >= 24 * 60 ? `${dateName(resume.localDate)} в ${resume.localTime}` : `в ${resume.localTime}`;
  return `звонки продолжатся ${when} по их времени, через ${durationText(resume.minutes)}`;
}

const dateName = (isoDate: string) => `в ${dayAndDate(isoDate)}`;
