import http from "node:http";
import https from "node:https";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { type Db, queryRows } from "../../../db/client";
import { type RowOf, selectRows } from "../../../db/typed-sql";

/**
 * Sending the queue (issue 44): claims due deliveries (a row waits for every earlier pending row of its webhook and
 * client: in order per client), POSTs each signed as Standard Webhooks says, and records the attempt. A failure is
 * tried again after a growing delay until `retryForMs` after it was queued, then the delivery is failed; a webhook
 * whose deliveries fail for `retryForMs` on end is switched off (the dashboard says so).
 */
export interface DeliveryOptions {
  /** A receiver that has not answered by then counts as failed (so a slow one holds a slot this long at most). */
  timeoutMs: number;
  /** The first retry's delay; each next one doubles it, up to an hour. */
  retryBaseMs: number;
  /** How long a delivery is retried (a day), and how long a webhook may fail before it is switched off. */
  retryForMs: number;
}

export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000, retryBaseMs: 5_000, retryForMs: 24 * 3600_000, concurrency: 8, pollMs: 500 };

/** How much of an answer the log keeps. */
const RESPONSE_HEAD = 500;
const MAX_DELAY_MS = 3600_000;

const CLAIMED_COLUMNS = {
  id: sql<number>`d.id`,
  webhook_id: sql<number>`d.webhook_id`,
  message_id: sql<string>`d.message_id`,
  payload: sql<unknown>`d.payload`,
  attempts: sql<number>`d.attempts`,
  url: sql<string>`w.url`,
  secret: sql<string>`w.secret`,
  from_env: sql<boolean>`w.from_env`,
};
/** A delivery claimed by claimDeliveries: the delivery and its webhook's address and secret. */
export type ClaimedDelivery = RowOf<typeof CLAIMED_COLUMNS>;

/**
 * Takes up to `limit` due deliveries for this worker until the lock runs out (a dead worker's rows come back then).
 * Its numbers are the statement's text, so it has no parameter and Postgres plans it at each poll (db/client.ts
 * prepares only statements with parameters): the queue goes from empty to thousands of rows in seconds, and a plan
 * Postgres had cached while it was empty took 8 s a claim (the leads bench: 96 of 5,200 deliveries sent in a minute).
 */
export async function claimDeliveries(db: Db, limit: number, lockMs: number): Promise<ClaimedDelivery[]> {
  if (limit <= 0) return [];
  const count = sql.raw(String(Math.trunc(limit)));
  const lockSeconds = sql.raw(String(Math.max(1, Math.trunc(lockMs / 1000))));
  return selectRows(
    db,
    CLAIMED_COLUMNS,
    (list) => sql`with picked as (
      select d.id from webhook_deliveries d join webhooks w on w.id = d.webhook_id and w.enabled
      where d.state = 'pending' and d.next_attempt_at <= now() and (d.locked_until is null or d.locked_until < now())
        and not exists (
          select 1 from webhook_deliveries e
          where e.webhook_id = d.webhook_id and e.order_key = d.order_key and e.state = 'pending' and e.id < d.id)
      order by d.id limit ${count}
      for update of d skip locked)
    update webhook_deliveries d set locked_until = now() + make_interval(secs => ${lockSeconds})
    from picked, webhooks w where d.id = picked.id and w.id = d.webhook_id
    returning ${list}`,
  );
}

/**
 * Lets locks go: of the rows `ids` (claimed and not sent when a worker stops), or, without ids, of every row (on the
 * embedded database the app is the only process: a lock left by the last run, killed, is let go at start).
 */
export async function releaseDeliveryLocks(db: Db, ids?: number[]): Promise<void> {
  const which = ids ? sql`and id = any(${sql.param(ids)}::bigint[])` : sql``;
  await queryRows(
    db,
    sql`update webhook_deliveries set locked_until = null where state = 'pending' and locked_until is not null ${which} returning id`,
  );
}

interface ReportPayload {
  type: string;
  timestamp: string;
  data?: {
    applicationId?: number | null;
    user?: { id: number; login: string };
    applicationText?: string;
    client?: { phone?: string };
    withPassport?: boolean;
  };
}

const payloadOf = (delivery: Pick<ClaimedDelivery, "payload">) =>
  (typeof delivery.payload === "string" ? JSON.parse(delivery.payload) : delivery.payload) as ReportPayload;

/**
 * The body a delivery sends: the event as queued. APPLICATION_FORWARD_URL's webhook sends a report in the body that
 * URL has always had (decision 007): `{ date, user {id, login}, applicationText, phone, withPassport }`.
 */
export function deliveryBody(delivery: Pick<ClaimedDelivery, "payload" | "from_env">): string {
  const payload = payloadOf(delivery);
  if (delivery.from_env && payload.type === "report.sent" && payload.data) {
    const { user, applicationText, client, withPassport } = payload.data;
    return JSON.stringify({ date: payload.timestamp, user, applicationText, phone: client?.phone ?? "", withPassport });
  }
  return JSON.stringify(payload);
}

/** APPLICATION_FORWARD_URL's report: the application it carries (null: another delivery). */
const forwardedApplication = (delivery: ClaimedDelivery) => (delivery.from_env ? (payloadOf(delivery).data?.applicationId ?? null) : null);

/**
 * Connections kept open to receivers, one pool per protocol (node:http's agents, not fetch: undici's fetch took ~300
 * µs of the app's CPU a POST against ~50 for http.request on the same kept-alive connection, and at three webhooks a
 * press that came out of the presses: the leads bench, issue 44).
 */
const AGENTS = { "http:": new http.Agent({ keepAlive: true }), "https:": new https.Agent({ keepAlive: true }) };

/** The receiver's answer: its status and at most RESPONSE_HEAD characters of its body (the rest is let go). */
function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ status: number; head: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === "https:" ? https : http;
    const signal = AbortSignal.timeout(timeoutMs);
    const request = client.request(
      target,
      {
        method: "POST",
        agent: AGENTS[target.protocol as keyof typeof AGENTS],
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        signal,
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          resolve({
            status: response.statusCode ?? 0,
            head: Buffer.concat(chunks).toString("utf8").replaceAll("\u0000", "").slice(0, RESPONSE_HEAD),
          });
        response.on("data", (chunk: Buffer) => {
          if (size >= RESPONSE_HEAD * 4) return;
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on("end", done);
        // The answer cut short (the timeout, a reset) after its status: what came is what is kept.
        response.on("error", done);
      },
    );
    request.on("error", (error) => reject(signal.aborted ? signal.reason : error));
    request.end(body);
  });
}

/** What the log says of the network errors node:http reports in their code: what the admin can act on. */
const NETWORK_ERRORS: Array<[RegExp, string]> = [
  [/^ECONNREFUSED$/, "получатель не принимает соединения"],
  [/^(ENOTFOUND|EAI_AGAIN)$/, "адрес получателя не найден"],
  [/^(ECONNRESET|EPIPE)$/, "получатель разорвал соединение"],
  [/^(EHOSTUNREACH|ENETUNREACH)$/, "сеть получателя недоступна"],
  [/CERT|SELF_SIGNED|ERR_TLS|SSL/, "сертификат HTTPS получателя не прошёл проверку"],
];

/** A failed POST's line in the delivery log, in Russian; the system's code and the address follow as data. */
export function unsentText(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && error.name === "TimeoutError") return `Нет ответа за ${timeoutMs} мс`;
  const cause = (error instanceof Error ? (error.cause ?? error) : {}) as { code?: string; address?: string; port?: number };
  const code = typeof cause.code === "string" ? cause.code : "";
  const said = NETWORK_ERRORS.find(([pattern]) => pattern.test(code))?.[1] ?? "запрос не отправлен";
  const where = cause.address ? `, ${cause.address}${cause.port ? `:${cause.port}` : ""}` : "";
  return `Ошибка соединения: ${said}${code ? ` (${code}${where})` : ""}`;
}

/** One attempt's outcome, to be written by recordAttempts. */
export interface Attempt {
  delivery: ClaimedDelivery;
  ok: boolean;
  status: number | null;
  /** The answer's first bytes, or what went wrong, in Russian. */
  answer: string;
  durationMs: number;
}

/** One attempt: the signed POST (the attempt is written by recordAttempts, with others sent meanwhile). */
export async function attemptDelivery(db: Db, delivery: ClaimedDelivery, options: DeliveryOptions): Promise<Attempt> {
  const applicationId = forwardedApplication(delivery);
  if (applicationId != null) {
    // Sent already by POST /status/proxy-application (an older client asks for it after the press): not twice.
    const [done] = await selectRows(
      db,
      { id: sql<number>`id` },
      (list) => sql`select ${list} from applications where id = ${applicationId}::int and forwarded_at is not null`,
    );
    if (done) return { delivery, ok: true, status: null, answer: "Заявка уже отправлена (POST /status/proxy-application)", durationMs: 0 };
  }
  const body = deliveryBody(delivery);
  const now = new Date();
  const signature = new Webhook(delivery.secret).sign(delivery.message_id, now, body);
  const started = performance.now();
  let status: number | null = null;
  let answer = "";
  try {
    // A redirect is an answer like any other (3xx: not accepted); node:http follows none.
    const response = await post(
      delivery.url,
      {
        "content-type": "application/json",
        "user-agent": "leaddesk-webhooks/1",
        "webhook-id": delivery.message_id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
      options.timeoutMs,
    );
    status = response.status;
    answer = response.head;
  } catch (error) {
    answer = unsentText(error, options.timeoutMs);
  }
  const ok = status != null && status >= 200 && status < 300;
  const durationMs = Math.round(performance.now() - started);
  if (applicationId != null) {
    // The application's own record of its forward, as the synchronous forward kept it.
    await queryRows(
      db,
      sql`update applications set updated_at = now(),
            forwarded_at = case when ${ok}::boolean then coalesce(forwarded_at, now()) else forwarded_at end,
            forward_error = case when ${ok}::boolean then null else ${(status != null ? `HTTP ${status}` : answer).slice(0, 500)}::text end
          where id = ${applicationId}::int returning id`,
    );
  }
  return { delivery, ok, status, answer, durationMs };
}

/**
 * Writes attempts: each one's log entry and its delivery's and webhook's new state. The accepted ones (nearly all) in
 * one statement however many they are, each kept on its delivery's row (no webhook_attempts row): at hundreds of
 * deliveries a second a statement each took a core of the database's time from the presses (the leads bench, issue
 * 44). A failure takes its own log row and statement, with the switch-off rule.
 */
export async function recordAttempts(db: Db, attempts: Attempt[], options: DeliveryOptions): Promise<void> {
  const accepted = attempts.filter((a) => a.ok);
  if (accepted.length > 0) await recordAccepted(db, accepted);
  for (const attempt of attempts) if (!attempt.ok) await recordFailure(db, attempt, options);
}

async function recordAccepted(db: Db, attempts: Attempt[]): Promise<void> {
  const column = <T>(read: (a: Attempt) => T) => sql.param(attempts.map(read));
  await queryRows(
    db,
    sql`with v as (
      select * from unnest(${column((a) => a.delivery.id)}::bigint[], ${column((a) => a.delivery.webhook_id)}::int[],
        ${column((a) => a.status)}::int[], ${column((a) => a.answer)}::text[], ${column((a) => a.durationMs)}::int[])
        as v(delivery_id, webhook_id, http_status, response, duration_ms)),
    d as (
      update webhook_deliveries d set attempts = d.attempts + 1, locked_until = null, state = 'delivered', delivered_at = now(),
        accepted_status = v.http_status, accepted_response = v.response, accepted_duration_ms = v.duration_ms
      from v where d.id = v.delivery_id returning d.id)
    update webhooks set failing_since = null
    where id in (select webhook_id from v) and failing_since is not null
    returning id`,
  );
}

/** A failed attempt's log row, the delivery's next try (or its end), and the webhook's failing day, in one statement. */
async function recordFailure(db: Db, { delivery, status, answer, durationMs }: Attempt, options: DeliveryOptions): Promise<void> {
  const delayMs = Math.min(options.retryBaseMs * 2 ** delivery.attempts, MAX_DELAY_MS);
  const retryFor = sql`make_interval(secs => ${options.retryForMs / 1000}::float8)`;
  await queryRows(
    db,
    sql`with att as (
      insert into webhook_attempts (delivery_id, webhook_id, http_status, response, duration_ms)
      values (${delivery.id}::bigint, ${delivery.webhook_id}::int, ${status}::int, ${answer}::text, ${durationMs}::int) returning id),
    d as (
      update webhook_deliveries set attempts = attempts + 1, locked_until = null,
        state = case when created_at + ${retryFor} <= now() then 'failed' else 'pending' end,
        next_attempt_at = now() + make_interval(secs => ${delayMs / 1000}::float8)
      where id = ${delivery.id}::bigint returning state),
    -- Switched off: failing for a day, or this event's day of retries ended with nothing accepted since its first
    -- attempt (the event's day starts when it was queued, the webhook's at its first failure: without the second
    -- condition the last event of a receiver that went down stayed «Не доставлено» with its webhook on).
    off as (select (coalesce(w.failing_since, now()) + ${retryFor} <= now()
        or ((select state from d) = 'failed' and coalesce(w.failing_since, now())
          <= coalesce((select min(a.at) from webhook_attempts a where a.delivery_id = ${delivery.id}::bigint), now()))) as now_off
      from webhooks w where w.id = ${delivery.webhook_id}::int)
    update webhooks set
      failing_since = coalesce(failing_since, now()),
      enabled = enabled and not (select now_off from off),
      disabled_reason = case when (select now_off from off)
        then 'Выключен: не принимает события с ' || to_char(coalesce(failing_since, now()) at time zone 'Europe/Kyiv', 'DD.MM.YYYY HH24:MI')
        else disabled_reason end
    where id = ${delivery.webhook_id}::int
    returning id`,
  );
}
