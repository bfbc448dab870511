import { sql } from "drizzle-orm";
import type { Db } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { CALL_SILENCE_SECONDS, PROXY_CALL_MAX_SECONDS } from "../calls/calls";

/**
 * What a manager is doing now, for /users (issue 18, decision 038), from what the server already knows:
 * - `call`  (Разговор): a call of his is open in the call log. A call the SIP proxy logs (by_proxy, decision 049)
 *   follows the proxy's facts alone: from its answer until its end (a ringing call is not a talk, and the browser's
 *   keep-alives, which never write such a row, decide nothing; issue 39). A call only the softphone reports
 *   (decision 026) is on since it started, until its end or CALL_SILENCE_SECONDS without a keep-alive;
 * - `break` (Перерыв): his break is open, since it began;
 * - `lead`  (Работает с лидом): he holds a contact whose hold is live, since he got it (contacts.held_since);
 * - `idle`  (Ожидает): none of these, since the last of: his login, a status press, a call's end, a break's end.
 * A call wins over a break (he is talking whatever the toggle says), a break over a held lead.
 * An admin who is a manager of no topic does not work leads: no state (null).
 */
export const AGENT_STATES = ["call", "break", "lead", "idle"] as const;
export type AgentState = (typeof AGENT_STATES)[number];

export interface AgentStateView {
  state: AgentState | null;
  /** When the state began (ISO 8601), null when unknown. */
  since: string | null;
  /** In a call: the call's id in the log (/users links it to its scoring, issue 39); otherwise null. */
  callId: number | null;
  /**
   * A call of his that the proxy logs is ringing (not answered yet): /users offers «Слушать» already, which waits
   * for the answer and starts then (issue 39). The state stays what it was (a ringing call is not a talk).
   */
  ringing: boolean;
}

/** How long a call can ring before it is no longer counted as ringing (carriers give up after a minute or two). */
const RINGS_AT_MOST_SECONDS = 180;

const iso = (value: Date | string | null) => (value == null ? null : new Date(value).toISOString());

/** The state of each of these users (a few index probes per user: the list is the online users). */
export async function agentStates(db: Db, userIds: number[]): Promise<Map<number, AgentStateView>> {
  const states = new Map<number, AgentStateView>();
  if (userIds.length === 0) return states;
  const ids = sql.join(
    userIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await selectRows(
    db,
    {
      id: sql<number>`u.id`,
      works_leads: sql<boolean>`not u.is_admin or exists (select 1 from filter_managers fm where fm.user_id = u.id)`,
      call_id: sql<number | string | null>`talk.call_id`,
      call_since: sql<Date | string | null>`talk.call_since`,
      ringing: sql<
        boolean | null
      >`exists (select 1 from calls c where c.user_id = u.id and c.by_proxy and c.ended_at is null and c.answered_at is null
          and c.started_at > now() - make_interval(secs => ${RINGS_AT_MOST_SECONDS}))`,
      break_since: sql<Date | string | null>`(select b.started_at from manager_breaks b where b.user_id = u.id and b.ended_at is null)`,
      holds: sql<boolean | null>`h.holds`,
      held_since: sql<Date | string | null>`h.held_since`,
      idle_since: sql<Date | string | null>`greatest(
          (select max(s.created_at) from sessions s where s.user_id = u.id),
          (select e.created_at from lead_events e where e.user_id = u.id order by e.created_at desc limit 1),
          (select c.ended_at from calls c where c.user_id = u.id order by c.started_at desc limit 1),
          (select b.ended_at from manager_breaks b where b.user_id = u.id order by b.started_at desc limit 1)
        )`,
    },
    (list) => sql`select ${list}
      from users u
      left join lateral (
        select c.id as call_id, case when c.by_proxy then c.answered_at else c.started_at end as call_since from calls c
          where c.user_id = u.id and c.ended_at is null and case when c.by_proxy
            then c.answered_at is not null and c.started_at > now() - make_interval(secs => ${PROXY_CALL_MAX_SECONDS})
            else c.last_seen_at > now() - make_interval(secs => ${CALL_SILENCE_SECONDS}) end
          order by c.started_at desc limit 1) talk on true
      left join lateral (
        select true as holds, ct.held_since from contacts ct
        where ct.held_by = u.id and ct.held_until > now() order by ct.id limit 1) h on true
      where u.id in (${ids})`,
  );
  for (const row of rows) {
    let view: Omit<AgentStateView, "ringing">;
    if (!row.works_leads) view = { state: null, since: null, callId: null };
    else if (row.call_since != null) view = { state: "call", since: iso(row.call_since), callId: Number(row.call_id) };
    else if (row.break_since != null) view = { state: "break", since: iso(row.break_since), callId: null };
    else if (row.holds) view = { state: "lead", since: iso(row.held_since), callId: null };
    else view = { state: "idle", since: iso(row.idle_since), callId: null };
    states.set(row.id, { ...view, ringing: !!row.ringing && view.state !== "call" });
  }
  return states;
}
