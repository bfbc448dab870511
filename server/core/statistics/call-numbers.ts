import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { type RowOf, selectList, selectRows } from "../../../db/typed-sql";
import { OWN_POLICY_REASONS } from "../calls/sip-reasons";
import { kyivDate, kyivDay } from "../../../common/business-time";

export const NO_TOPIC = "Без тематики";
export const UNKNOWN_CALLER = "Неизвестно";

/** The four numbers of issue 29 over one group of the day's attempts (decision 060 says what each counts). */
export interface CallNumbers {
  /** Calls out started this Kyiv day, less those our own call check refused. */
  attempts: number;
  /** Of them, the ones answered (the other side's 200 OK: the call reached talking). */
  answered: number;
  /** answered / attempts in percent, one decimal; null when there was no attempt. */
  answeredPercent: number | null;
  /** Talk time of the answered ones that have ended, in whole seconds (a call still on adds it when it ends). */
  talkSeconds: number;
  /** Distinct clients called (attempts made from a lead, with its contact). */
  contacts: number;
  /** Attempts on a client / distinct clients, two decimals; null when no client was called. */
  attemptsPerContact: number | null;
}

export interface ManagerCallNumbers extends CallNumbers {
  /** null: a deleted manager's calls (shown as Неизвестно). */
  userId: number | null;
  login: string;
  displayName: string;
  /** The name the dashboard shows everywhere: the display name, else the login, else Неизвестно. */
  manager: string;
}

export interface TopicCallNumbers extends CallNumbers {
  /** null: calls made outside any topic (or whose topic was deleted), shown as Без тематики. */
  filterId: number | null;
  topic: string;
}

/** The day's calls in (issue 42), one per SIP call however many managers it rang. */
export interface InboundNumbers {
  /** Clients' calls in from the carrier, started this Kyiv day. */
  calls: number;
  /** Of them, answered by a manager. */
  answered: number;
  /** Ended without anyone answering (nobody free, nobody answered, or the client hung up while it rang). */
  missed: number;
  /** Missed calls whose client has been called back since (a call out to him after it). */
  calledBack: number;
  /** The median time from a missed call to its call back, in whole seconds; null when none was called back. */
  callBackSeconds: number | null;
}

export interface CallDayNumbers {
  /** The Kyiv calendar day counted, YYYY-MM-DD. */
  day: string;
  inbound: InboundNumbers;
  total: CallNumbers;
  managers: ManagerCallNumbers[];
  topics: TopicCallNumbers[];
}

/** A row of callNumbersStatement: one manager's, one topic's or the total's numbers (`level`), with their names. */
const CALL_NUMBER_COLUMNS = {
  level: sql<number>`g.level`,
  user_id: sql<number | null>`g.user_id`,
  filter_id: sql<number | null>`g.filter_id`,
  attempts: sql<number>`g.attempts`,
  answered: sql<number>`g.answered`,
  talk_seconds: sql<number>`g.talk_seconds`,
  contact_attempts: sql<number>`g.contact_attempts`,
  contacts: sql<number>`g.contacts`,
  login: sql<string | null>`u.login`,
  display_name: sql<string | null>`u.display_name`,
  manager: sql<string | null>`coalesce(nullif(u.display_name, ''), u.login)`,
  topic: sql<string | null>`f.name`,
};
type Row = RowOf<typeof CALL_NUMBER_COLUMNS>;

/** The day's calls in (inboundStatement). */
const INBOUND_COLUMNS = {
  calls: sql<number>`(select count(*) from ins)::int`,
  answered: sql<number>`(select count(*) from ins where answered)::int`,
  missed: sql<number>`(select count(*) from missed)::int`,
  called_back: sql<number>`(select count(back_at) from missed)::int`,
  call_back_seconds: sql<number | string | null>`(select percentile_cont(0.5) within group (order by extract(epoch from back_at - at)) from missed
        where back_at is not null)`,
};

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

function numbersOf(row: Row): CallNumbers {
  const attempts = Number(row.attempts);
  const answered = Number(row.answered);
  const contacts = Number(row.contacts);
  return {
    attempts,
    answered,
    answeredPercent: attempts > 0 ? round((answered * 100) / attempts, 1) : null,
    talkSeconds: Number(row.talk_seconds),
    contacts,
    attemptsPerContact: contacts > 0 ? round(Number(row.contact_attempts) / contacts, 2) : null,
  };
}

const EMPTY: Row = {
  level: 3,
  user_id: null,
  login: null,
  display_name: null,
  manager: null,
  filter_id: null,
  topic: null,
  attempts: 0,
  answered: 0,
  talk_seconds: 0,
  contact_attempts: 0,
  contacts: 0,
};

/**
 * The one statement behind the numbers: the Kyiv day's calls out in [start, end), grouped per manager, per topic
 * and in all at once (grouping sets). The day's range reads calls_started_at_idx (bench/statistics.ts prints the
 * plan on 100,000 calls).
 */
export function callNumbersStatement(start: Date, end: Date, list: SQL = selectList(CALL_NUMBER_COLUMNS)): SQL {
  // Grouped first, named after: the names join the few grouped rows, not every call (the sort stays narrow).
  return sql`select ${list}
    from (
      select grouping(c.user_id, c.filter_id)::int as level, c.user_id, c.filter_id,
        count(*)::int as attempts,
        count(c.answered_at)::int as answered,
        coalesce(sum(c.talk_seconds) filter (where c.answered_at is not null), 0)::int as talk_seconds,
        count(c.contact_id)::int as contact_attempts,
        count(distinct c.contact_id)::int as contacts
      from calls c
      where c.started_at >= ${start.toISOString()}::timestamptz and c.started_at < ${end.toISOString()}::timestamptz
        and c.direction = 'out'
        -- coalesce: a null code or reason (most calls) must not make the whole test null.
        and not coalesce(c.sip_code = 403 and c.answered_at is null and c.reason in (${sql.join(
          OWN_POLICY_REASONS.map((reason) => sql`${reason}`),
          sql`, `,
        )}), false)
      group by grouping sets ((c.user_id), (c.filter_id), ())
    ) g
    left join users u on u.id = g.user_id
    left join filters f on f.id = g.filter_id`;
}

/**
 * The day's calls in (issue 42): the proxy's rows of one SIP call (a row per manager rung, and the app's own row of a
 * call that rang nobody) make one call; missed when all ended unanswered; called back when a call out to its client
 * started after it.
 */
function inboundStatement(start: Date, end: Date, list: SQL): SQL {
  return sql`with ins as (
      select c.sip_call_id, min(c.started_at) as at, max(c.contact_id) as contact_id,
        bool_or(c.answered_at is not null) as answered, bool_and(c.ended_at is not null) as ended
      from calls c
      where c.started_at >= ${start.toISOString()}::timestamptz and c.started_at < ${end.toISOString()}::timestamptz
        and c.direction = 'in' and c.by_proxy and c.sip_call_id is not null
      group by c.sip_call_id),
    missed as (
      select m.at, (select min(o.started_at) from calls o
        where o.contact_id = m.contact_id and o.direction = 'out' and o.started_at > m.at) as back_at
      from ins m where not m.answered and m.ended)
    select ${list}`;
}

/**
 * Attempts, answered, talk time and attempts per client for the Kyiv day containing `now`: per manager, per
 * topic and in all. The dashboard and GET /api/v1/statistics (and /calls/today) all read this. Callers check the
 * role.
 */
export async function callNumbersOfDay(db: Db, now: Date = new Date()): Promise<CallDayNumbers> {
  const { start, end } = kyivDay(now);
  const [rows, [inbound]] = await Promise.all([
    selectRows(db, CALL_NUMBER_COLUMNS, (list) => callNumbersStatement(start, end, list)),
    selectRows(db, INBOUND_COLUMNS, (list) => inboundStatement(start, end, list)),
  ]);
  // grouping(user_id, filter_id): 1 = a manager's row (filter_id rolled up), 2 = a topic's row, 3 = the total.
  const managers = rows
    .filter((row) => Number(row.level) === 1)
    .map((row) => ({
      userId: row.user_id === null ? null : Number(row.user_id),
      login: row.login ?? "",
      displayName: row.display_name ?? "",
      manager: row.manager ?? UNKNOWN_CALLER,
      ...numbersOf(row),
    }))
    .sort((a, b) => (a.userId === null ? 1 : 0) - (b.userId === null ? 1 : 0) || a.manager.localeCompare(b.manager, "ru"));
  const topics = rows
    .filter((row) => Number(row.level) === 2)
    .map((row) => ({ filterId: row.filter_id === null ? null : Number(row.filter_id), topic: row.topic ?? NO_TOPIC, ...numbersOf(row) }))
    .sort((a, b) => (a.filterId === null ? 1 : 0) - (b.filterId === null ? 1 : 0) || a.topic.localeCompare(b.topic, "ru"));
  const total = rows.find((row) => Number(row.level) === 3) ?? EMPTY;
  return {
    day: kyivDate(now),
    inbound: {
      calls: Number(inbound.calls),
      answered: Number(inbound.answered),
      missed: Number(inbound.missed),
      calledBack: Number(inbound.called_back),
      callBackSeconds: inbound.call_back_seconds === null ? null : Math.round(Number(inbound.call_back_seconds)),
    },
    total: numbersOf(total),
    managers,
    topics,
  };
}
