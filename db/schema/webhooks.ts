import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { timestamps, users } from "./users";

/**
 * An admin's webhook (issue 44): where events are POSTed, which ones, and the secret they are signed with (Standard
 * Webhooks, `whsec_…`). One that fails for a day is switched off (`enabled` false, `disabledReason` says why).
 */
export const webhooks = pgTable("webhooks", {
  id: serial("id").primaryKey(),
  url: text("url").notNull(),
  /** Event types it receives (server/core/webhooks/events.ts, WEBHOOK_EVENTS). */
  events: text("events").array().notNull(),
  /** The signing secret, `whsec_` and base64: the receiver needs it to check the signature, so it is kept as is. */
  secret: text("secret").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  /** Set by the first failed delivery since the last one that got through; a day of it switches the webhook off. */
  failingSince: timestamp("failing_since", { withTimezone: true }),
  disabledReason: text("disabled_reason"),
  /** APPLICATION_FORWARD_URL's webhook (reports only, the old body unsigned-compatible): kept in step with the env. */
  fromEnv: boolean("from_env").notNull().default(false),
  ...timestamps,
});

/**
 * The delivery queue: one row per event and webhook, written in the transaction (or the statement) of the event.
 * `messageId` is the Standard Webhooks `webhook-id`, the same on every attempt and for every webhook of the event.
 * A row is sent after every earlier pending row of its webhook and `orderKey` (the client): in order per client.
 */
export const webhookDeliveries = pgTable(
  "webhook_deliveries",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    /**
     * No foreign key (migration 0045): its check locked the webhook's row FOR KEY SHARE for each delivery a press
     * queued, so concurrent presses made a MultiXact of the lockers on every one of those few rows (50 sessions
     * inserting three deliveries each: 27-52 % more of them a second without it). A webhook's deliveries are deleted
     * with it (deleteWebhooks in core); one queued by a press that raced a deletion is never claimed (the claim joins
     * webhooks) and is pruned.
     */
    webhookId: integer("webhook_id").notNull(),
    messageId: text("message_id").notNull(),
    eventType: text("event_type").notNull(),
    /** `{ type, timestamp, data }`, the body as sent. */
    payload: jsonb("payload").notNull(),
    /** The client (contact id) the event is about: deliveries of one client go out in order; null: no order. */
    orderKey: bigint("order_key", { mode: "number" }),
    /** pending → delivered, or failed after a day of retries. */
    state: text("state").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** A worker holds the row until then (a dead worker's row is taken again after it). */
    lockedUntil: timestamp("locked_until", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    /**
     * The accepted attempt, kept on the delivery rather than as a webhook_attempts row (nearly every delivery has
     * one: a row and its three index entries fewer each, issue 44's bench); the log shows it after the failed ones.
     */
    acceptedStatus: integer("accepted_status"),
    acceptedResponse: text("accepted_response"),
    acceptedDurationMs: integer("accepted_duration_ms"),
  },
  (t) => [
    // The webhooks list's count of failed deliveries (pending ones are counted by the pending index below); no
    // index on the state of every row, which each delivery's enqueue and acceptance would write.
    index("webhook_deliveries_failed_idx")
      .on(t.webhookId)
      .where(sql`${t.state} = 'failed'`),
    // The delivery log of a webhook, newest first.
    index("webhook_deliveries_log_idx").on(t.webhookId, t.id),
    // The worker's claim reads pending rows only, oldest first, and a client's earlier pending row: indexes of the
    // pending rows alone, so neither walks past the delivered ones (a day's history at hundreds a second).
    index("webhook_deliveries_pending_idx")
      .on(t.id)
      .where(sql`${t.state} = 'pending'`),
    index("webhook_deliveries_pending_order_idx")
      .on(t.webhookId, t.orderKey, t.id)
      .where(sql`${t.state} = 'pending'`),
    // One delivery of an event to a webhook (a sweeper's event queued twice by two instances is one).
    uniqueIndex("webhook_deliveries_message_idx").on(t.webhookId, t.messageId),
  ],
);

/** Each attempt of a delivery: the delivery log an admin reads. */
export const webhookAttempts = pgTable(
  "webhook_attempts",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deliveryId: bigint("delivery_id", { mode: "number" })
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: "cascade" }),
    webhookId: integer("webhook_id")
      .notNull()
      .references(() => webhooks.id, { onDelete: "cascade" }),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    /** The receiver's HTTP status; null when none came (refused, timed out). */
    httpStatus: integer("http_status"),
    /** The answer's first bytes, or what went wrong. */
    response: text("response").notNull().default(""),
    durationMs: integer("duration_ms").notNull().default(0),
  },
  (t) => [index("webhook_attempts_webhook_idx").on(t.webhookId, t.id), index("webhook_attempts_delivery_idx").on(t.deliveryId)],
);

/**
 * An integration's API key (issue 44): shown once, stored as its SHA-256 only. `scopes`: read, write (leads and
 * statuses), admin. The key acts as the admin who created it, within its scopes.
 */
export const apiKeys = pgTable(
  "api_keys",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    /** hex SHA-256 of the key. */
    keyHash: text("key_hash").notNull().unique(),
    /** The key's first characters, to tell keys apart in the list. */
    prefix: text("prefix").notNull(),
    scopes: text("scopes").array().notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("api_keys_user_idx").on(t.userId)],
);

export type Webhook = typeof webhooks.$inferSelect;
export type ApiKey = typeof apiKeys.$inferSelect;

/** Keys the app makes for itself once and every instance shares (the recordings' signed links, issue 44). */
export const appSecrets = pgTable("app_secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
});
