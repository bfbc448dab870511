import crypto from "node:crypto";
import { and, count, desc, eq, inArray, type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { type Db, queryRows } from "../../../db/client";
import { selectRows } from "../../../db/typed-sql";
import { webhookAttempts, webhookDeliveries, webhooks, type Webhook } from "../../../db/schema";
import { type Actor, requireAdmin } from "../actor";
import { conflict, notFound } from "../errors";
import { digitsOrNumber, idSchema, parseInput } from "../validation";
import { type WebhookEvent, webhookInputSchema } from "../../../common/schemas/webhooks";

export { WEBHOOK_EVENTS, WEBHOOK_EVENT_TYPES, webhookInputSchema, type WebhookEvent } from "../../../common/schemas/webhooks";

export const webhookNotFound = () => notFound("Вебхук не найден", "webhook_not_found");

/** A new signing secret in Standard Webhooks' form: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = () => `whsec_${crypto.randomBytes(32).toString("base64")}`;

/** A webhook as the page and the API show it (its secret too: the receiver needs it to check signatures). */
export interface WebhookView {
  id: number;
  url: string;
  events: WebhookEvent[];
  secret: string;
  enabled: boolean;
  failingSince: string | null;
  disabledReason: string | null;
  fromEnv: boolean;
  pending: number;
  failed: number;
  createdAt: string;
}

const view = (row: Webhook, counts?: { pending: number; failed: number }): WebhookView => ({
  id: row.id,
  url: row.url,
  events: row.events as WebhookEvent[],
  secret: row.secret,
  enabled: row.enabled,
  failingSince: row.failingSince?.toISOString() ?? null,
  disabledReason: row.disabledReason,
  fromEnv: row.fromEnv,
  pending: counts?.pending ?? 0,
  failed: counts?.failed ?? 0,
  createdAt: row.createdAt.toISOString(),
});

export async function listWebhooks(db: Db, actor: Actor): Promise<WebhookView[]> {
  requireAdmin(actor);
  const rows = await db.select().from(webhooks).orderBy(webhooks.id);
  if (rows.length === 0) return [];
  // One count per state, each read from that state's partial index (not the day's history of delivered rows).
  const ids = sql.param(rows.map((r) => r.id));
  const countOf = (state: "pending" | "failed") =>
    sql`select webhook_id as id, ${state}::text as state, count(*)::int as n from webhook_deliveries
      where state = ${state} and webhook_id = any(${ids}::int[]) group by webhook_id`;
  const counts = await selectRows(
    db,
    { id: sql<number>`id`, state: sql<string>`state`, n: sql<number>`n` },
    (list) => sql`select ${list} from (${countOf("pending")} union all ${countOf("failed")}) c`,
  );
  const of = (id: number, state: string) => counts.find((c) => c.id === id && c.state === state)?.n ?? 0;
  return rows.map((row) => view(row, { pending: of(row.id, "pending"), failed: of(row.id, "failed") }));
}

export async function getWebhook(db: Db, actor: Actor, rawId: unknown): Promise<WebhookView> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const list = await listWebhooks(db, actor);
  const found = list.find((w) => w.id === id);
  if (!found) throw webhookNotFound();
  return found;
}

export async function createWebhook(db: Db, actor: Actor, rawInput: unknown): Promise<WebhookView> {
  requireAdmin(actor);
  const input = parseInput(webhookInputSchema, rawInput);
  const [row] = await db
    .insert(webhooks)
    .values({ url: input.url, events: input.events, enabled: input.enabled, secret: newWebhookSecret() })
    .returning();
  return view(row);
}

/** What a change of APPLICATION_FORWARD_URL's webhook's address or events is answered: the variable rules them. */
export const FROM_ENV_FIXED =
  "Этот вебхук задан переменной APPLICATION_FORWARD_URL: его адрес и события меняются в ней (при запуске приложение возвращает их к ней). Включить и выключить его можно здесь.";

/**
 * Changes a webhook; switching it on again forgets its failing day (it starts afresh). APPLICATION_FORWARD_URL's
 * keeps its address and events (the app sets them back from the variable at every start): only switched on or off.
 */
export async function updateWebhook(db: Db, actor: Actor, rawId: unknown, rawInput: unknown): Promise<WebhookView> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const input = parseInput(webhookInputSchema, rawInput);
  const [current] = await db
    .select({ url: webhooks.url, events: webhooks.events, fromEnv: webhooks.fromEnv })
    .from(webhooks)
    .where(eq(webhooks.id, id));
  if (!current) throw webhookNotFound();
  if (current.fromEnv && (input.url !== current.url || [...input.events].sort().join() !== [...current.events].sort().join())) {
    throw conflict(FROM_ENV_FIXED, "webhook_from_env");
  }
  const [row] = await db
    .update(webhooks)
    .set({
      url: input.url,
      events: input.events,
      enabled: input.enabled,
      ...(input.enabled ? { failingSince: null, disabledReason: null } : {}),
      updatedAt: new Date(),
    })
    .where(eq(webhooks.id, id))
    .returning();
  if (!row) throw webhookNotFound();
  return getWebhook(db, actor, id);
}

/** «Включить» / «Выключить»: switching on forgets the failing day (it starts afresh). */
export async function setWebhookEnabled(db: Db, actor: Actor, rawId: unknown, enabled: boolean): Promise<void> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db
    .update(webhooks)
    .set({ enabled, ...(enabled ? { failingSince: null, disabledReason: null } : {}), updatedAt: new Date() })
    .where(eq(webhooks.id, id))
    .returning({ id: webhooks.id });
  if (!row) throw webhookNotFound();
}

export async function deleteWebhook(db: Db, actor: Actor, rawId: unknown): Promise<void> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  if ((await deleteWebhooks(db, eq(webhooks.id, id))) === 0) throw webhookNotFound();
}

/**
 * Deletes the webhooks `where` says, with their deliveries (and so their attempts), in one transaction: the deliveries
 * have no foreign key to their webhook (migration 0045), so this is the one place that takes them away with it.
 * Answers how many webhooks went.
 */
async function deleteWebhooks(db: Db, where: SQL): Promise<number> {
  return db.transaction(async (tx) => {
    const gone = await tx.delete(webhooks).where(where).returning({ id: webhooks.id });
    if (gone.length > 0) {
      await tx.delete(webhookDeliveries).where(
        inArray(
          webhookDeliveries.webhookId,
          gone.map((w) => w.id),
        ),
      );
    }
    return gone.length;
  });
}

/** A new secret: the old one stops signing at once. */
export async function rotateWebhookSecret(db: Db, actor: Actor, rawId: unknown): Promise<WebhookView> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const [row] = await db.update(webhooks).set({ secret: newWebhookSecret(), updatedAt: new Date() }).where(eq(webhooks.id, id)).returning();
  if (!row) throw webhookNotFound();
  return getWebhook(db, actor, id);
}

/** One line of a webhook's delivery log: an event and its attempts so far. */
export interface DeliveryView {
  id: number;
  messageId: string;
  eventType: WebhookEvent;
  state: "pending" | "delivered" | "failed";
  createdAt: string;
  nextAttemptAt: string | null;
  attempts: Array<{ at: string; httpStatus: number | null; response: string; durationMs: number }>;
}

/** Which part of a delivery log: `limit` deliveries (50 unless said, at most 200) after skipping `offset`, newest first. */
const logPageSchema = z.object({
  limit: digitsOrNumber("Неверный размер страницы журнала (от 1 до 200)", 1, 200).default(50),
  offset: digitsOrNumber("Неверное смещение в журнале", 0, 100_000_000).default(0),
});

/**
 * One page of the webhook's deliveries (newest first) with each attempt's time, status and answer's first bytes, and
 * how many deliveries the log holds in all.
 */
export async function webhookLog(
  db: Db,
  actor: Actor,
  rawId: unknown,
  rawPage: unknown = {},
): Promise<{ total: number; deliveries: DeliveryView[] }> {
  requireAdmin(actor);
  const id = parseInput(idSchema, rawId);
  const { limit, offset } = parseInput(logPageSchema, rawPage ?? {});
  const [hook] = await db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.id, id));
  if (!hook) throw webhookNotFound();
  const [[{ total }], rows] = await Promise.all([
    db.select({ total: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id)),
    db.select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, id)).orderBy(desc(webhookDeliveries.id)).limit(limit).offset(offset),
  ]);
  if (rows.length === 0) return { total, deliveries: [] };
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.deliveryId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(webhookAttempts.id);
  const deliveries = rows.map((row) => ({
    id: row.id,
    messageId: row.messageId,
    eventType: row.eventType as WebhookEvent,
    state: row.state as DeliveryView["state"],
    createdAt: row.createdAt.toISOString(),
    nextAttemptAt: row.state === "pending" ? row.nextAttemptAt.toISOString() : null,
    attempts: [
      ...attempts
        .filter((a) => a.deliveryId === row.id)
        .map((a) => ({ at: a.at.toISOString(), httpStatus: a.httpStatus, response: a.response, durationMs: a.durationMs })),
      // The accepted attempt, last, kept on the delivery (deliver.ts: recordAccepted).
      ...(row.deliveredAt && row.acceptedStatus !== null
        ? [
            {
              at: row.deliveredAt.toISOString(),
              httpStatus: row.acceptedStatus,
              response: row.acceptedResponse ?? "",
              durationMs: row.acceptedDurationMs ?? 0,
            },
          ]
        : []),
    ],
  }));
  return { total, deliveries };
}

/**
 * «Отправить ещё раз»: the delivery goes back in the queue now, with its own webhook-id (a receiver that has it
 * already knows it by that id). Its webhook is switched on again if the failing day had switched it off.
 */
export async function resendDelivery(db: Db, actor: Actor, rawWebhookId: unknown, rawDeliveryId: unknown): Promise<void> {
  requireAdmin(actor);
  const webhookId = parseInput(idSchema, rawWebhookId);
  const deliveryId = parseInput(idSchema, rawDeliveryId);
  await db.transaction(async (tx) => {
    // An accepted attempt kept on the row goes into the log rows first: the row's next acceptance would overwrite it.
    await queryRows(
      tx as unknown as Db,
      sql`insert into webhook_attempts (delivery_id, webhook_id, at, http_status, response, duration_ms)
        select id, webhook_id, delivered_at, accepted_status, coalesce(accepted_response, ''), coalesce(accepted_duration_ms, 0)
        from webhook_deliveries where id = ${deliveryId} and webhook_id = ${webhookId} and delivered_at is not null and accepted_status is not null
        returning id`,
    );
    const [row] = await tx
      .update(webhookDeliveries)
      .set({
        state: "pending",
        nextAttemptAt: new Date(),
        createdAt: new Date(),
        lockedUntil: null,
        acceptedStatus: null,
        acceptedResponse: null,
        acceptedDurationMs: null,
      })
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
      .returning({ id: webhookDeliveries.id });
    if (!row) throw notFound("Отправка не найдена", "delivery_not_found");
    await tx
      .update(webhooks)
      .set({ enabled: true, failingSince: null, disabledReason: null, updatedAt: new Date() })
      .where(and(eq(webhooks.id, webhookId), eq(webhooks.enabled, false), sql`${webhooks.disabledReason} is not null`));
  });
}

/** What the dashboard says: the webhooks switched off after failing for a day. */
export async function webhooksSwitchedOff(db: Db, actor: Actor): Promise<Array<{ id: number; url: string; reason: string }>> {
  requireAdmin(actor);
  const rows = await db
    .select({ id: webhooks.id, url: webhooks.url, reason: webhooks.disabledReason })
    .from(webhooks)
    .where(and(eq(webhooks.enabled, false), sql`${webhooks.disabledReason} is not null`));
  return rows.map((r) => ({ id: r.id, url: r.url, reason: r.reason ?? "" }));
}

/**
 * APPLICATION_FORWARD_URL as a webhook (issue 44): at start the app keeps one webhook in step with the variable, for
 * `report.sent`, sent in that URL's old body (deliver.ts) from the queue, signed, retried and logged like any other.
 * An admin may switch it off; without the variable it is removed.
 */
export async function syncForwardWebhook(db: Db, url: string): Promise<void> {
  const [row] = await db.select().from(webhooks).where(eq(webhooks.fromEnv, true)).orderBy(webhooks.id).limit(1);
  if (!url) {
    if (row) await deleteWebhooks(db, eq(webhooks.fromEnv, true));
    return;
  }
  if (!row) {
    await db.insert(webhooks).values({ url, events: ["report.sent"], secret: newWebhookSecret(), fromEnv: true });
    return;
  }
  if (row.url !== url || row.events.join() !== "report.sent") {
    await db
      .update(webhooks)
      .set({ url, events: ["report.sent"], updatedAt: new Date() })
      .where(eq(webhooks.id, row.id));
  }
}
