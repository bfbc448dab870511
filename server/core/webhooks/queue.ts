import crypto from "node:crypto";
import { type SQL, sql } from "drizzle-orm";
import { type Db, queryRows } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import type { WebhookEvent } from "../../../common/schemas/webhooks";

/**
 * The delivery queue's writes (issue 44). An event is queued in the transaction, or the statement, that makes it
 * happen: one row per enabled webhook that wants it, none when no webhook does (then it costs one probe of the small
 * webhooks table). The worker (server/core/webhooks/deliver.ts) sends them.
 */

/** The body every delivery carries: Standard Webhooks' `{ type, timestamp, data }`. */
export const eventBody = (type: SQL, data: SQL) => sql`jsonb_build_object('type', ${type}, 'timestamp', now(), 'data', ${data})`;

/**
 * SQL: an INSERT of deliveries for the rows of `source` (a FROM clause and its WHERE, with `kind`, `data`, `mid`,
 * `client` and `n` columns): each row joined with the enabled webhooks that want its kind, in `n` order. For a CTE
 * of a larger statement (the status press's turn). An event queued again (a callback's, each sweep) is one delivery
 * per webhook; `newIds`: the message ids are made from rows this very statement writes (the press's lead event), so
 * none can be queued already and the insert skips ON CONFLICT's check (its speculative insertion: 0.43-0.48 ms of
 * Postgres CPU for a press's three deliveries with it, 0.14-0.32 without, bench/tools/webhook-enqueue, issue 44).
 */
export function enqueueFrom(source: SQL, { newIds = false }: { newIds?: boolean } = {}): SQL {
  return sql`insert into webhook_deliveries (webhook_id, message_id, event_type, payload, order_key)
    select w.id, e.mid, e.kind, ${eventBody(sql`e.kind`, sql`e.data`)}, e.client
    from (${source}) e join webhooks w on w.enabled and e.kind = any(w.events)
    order by e.n, w.id
    ${newIds ? sql`` : sql`on conflict (webhook_id, message_id) do nothing`}`;
}

/** What an enqueue answers: a row per delivery queued. */
const QUEUED = { id: sql<number>`id` };

/** The client a webhook event is about (contacts row `alias`), as every event that carries one writes him. */
export const clientJson = (alias: string): SQL => {
  const k = (column: string) => sql`${sql.identifier(alias)}.${sql.identifier(column)}`;
  return sql`jsonb_build_object('id', ${k("id")}, 'baseId', ${k("database_id")}, 'name', ${k("name")}, 'phone', ${k("phone")},
    'city', ${k("city")}, 'address', ${k("address")}, 'additionalInfo1', ${k("additional_info1")}, 'additionalInfo2', ${k("additional_info2")},
    'additionalInfo3', ${k("additional_info3")}, 'additionalInfo4', ${k("additional_info4")})`;
};

/**
 * Queues `client.do_not_call` for the clients whose numbers an admin just put on the list (the rows `listedIds` of
 * do_not_call), in the caller's transaction: one event per client and webhook that wants it. A number no client has
 * is no event (the event is about a client). A status press queues its own in its statement.
 */
export async function enqueueListedClients(db: Db, by: { id: number; login: string }, listedIds: number[]): Promise<void> {
  if (listedIds.length === 0) return;
  await db.execute(
    enqueueFrom(sql`
      select 'client.do_not_call'::text as kind, 'msg_client_do_not_call_list_' || d.id || '_' || k.id as mid, k.id as client, k.id as n,
        jsonb_build_object('client', ${clientJson("k")}, 'phone', d.phone, 'source', 'list', 'addedAt', d.added_at,
          'addedBy', jsonb_build_object('id', ${by.id}::int, 'login', ${by.login}::text)) as data
      from do_not_call d join contacts k on k.phone_key = d.phone_key
      where d.id = any(${sql.param(listedIds)}::int[]) and exists (select 1 from webhooks w where w.enabled and 'client.do_not_call' = any(w.events))`),
  );
}

/** A new message id (`webhook-id`): the same for every webhook the event goes to, and on every attempt. */
export const newMessageId = () => `msg_${crypto.randomUUID().replaceAll("-", "")}`;

/** Queues one event (in the caller's transaction when `db` is one). `client`: the contact it is about, for order. */
export async function enqueueEvent(db: Db, type: WebhookEvent, data: unknown, client: number | null = null): Promise<number> {
  const rows = await selectRows(
    db,
    QUEUED,
    (list) =>
      sql`${enqueueFrom(
        sql`select ${type}::text as kind, ${JSON.stringify(data)}::jsonb as data, ${newMessageId()}::text as mid, ${client}::bigint as client, 1 as n`,
      )} returning ${list}`,
  );
  return rows.length;
}

/**
 * Callbacks are not written when they fall due or are missed: the sender queues `callback.due` (its time came, not
 * handed out yet) and `callback.missed` (still not handed out past the grace time, when any manager may get it) on
 * each pass, once per callback and webhook (the message id's unique index), for callbacks due within the last day.
 */
export async function enqueueCallbackEvents(db: Db): Promise<number> {
  const grace = sql`make_interval(mins => coalesce((select callback_grace_minutes from settings where id = 1), 15))`;
  const source = (kind: string, after: SQL) => sql`
    select ${kind}::text as kind, ${`msg_${kind.replace(".", "_")}_`}::text || cb.id as mid, cb.contact_id as client, cb.id as n,
      jsonb_build_object('callbackId', cb.id, 'clientId', cb.contact_id, 'name', c.name, 'phone', c.phone, 'userId', cb.user_id,
        'filterId', cb.filter_id, 'statusText', cb.status_text, 'dueAt', cb.due_at, 'note', cb.note) as data
    from callbacks cb join contacts c on c.id = cb.contact_id
    where cb.handed_at is null and cb.due_at + ${after} <= now() and cb.due_at > now() - interval '1 day'
      and exists (select 1 from webhooks w where w.enabled and ${kind} = any(w.events))`;
  const due = await selectRows(db, QUEUED, (list) => sql`${enqueueFrom(source("callback.due", sql`interval '0'`))} returning ${list}`);
  const missed = await selectRows(db, QUEUED, (list) => sql`${enqueueFrom(source("callback.missed", grace))} returning ${list}`);
  return due.length + missed.length;
}

/**
 * The log is kept KEEP_DAYS: older delivered and failed events (and their attempts) go, and so do the deliveries of a
 * webhook deleted while a press queued them (no foreign key: webhooks.ts deleteWebhooks; never claimed).
 */
export const KEEP_DAYS = 30;
export async function pruneDeliveries(db: Db): Promise<void> {
  await queryRows(
    db,
    sql`delete from webhook_deliveries d
      where (d.state <> 'pending' and d.created_at < now() - make_interval(days => ${KEEP_DAYS}))
        or not exists (select 1 from webhooks w where w.id = d.webhook_id)
      returning d.id`,
  );
}
