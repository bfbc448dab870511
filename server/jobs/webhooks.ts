import type { DbHandle } from "../../db/client";
import { enqueueCallbackEvents, pruneDeliveries } from "../core/webhooks/queue";
import {
  type Attempt,
  attemptDelivery,
  claimDeliveries,
  type ClaimedDelivery,
  type DeliveryOptions,
  recordAttempts,
  releaseDeliveryLocks,
  WEBHOOK_DEFAULTS,
} from "../core/webhooks/deliver";

export interface WebhookWorkerOptions extends Partial<DeliveryOptions> {
  /** At most this many deliveries in flight at once (a slow receiver holds one slot, never a request). */
  concurrency?: number;
  /** How often to look for due deliveries. */
  pollMs?: number;
  /** How often to look for callbacks that fell due or were missed. */
  lookEveryMs?: number;
  log?: (message: string, error?: unknown) => void;
  /** Told each attempt's outcome and the delay from queueing to delivery (ms), for /metrics and the bench. */
  onAttempt?: (ok: boolean) => void;
}

/**
 * The webhook sender of one app instance (issue 44): off every request's path, it polls the delivery queue, keeps up
 * to `concurrency` deliveries in flight (claimed with a lock, so several instances share the queue) and records each
 * attempt. A delivery holds its slot until its attempt is written, so a kill -9 sends at most `concurrency` of them
 * again; the attempts that end while one write runs are written together by the next (one statement for all the
 * accepted ones). Stopping waits for the ones in flight.
 */
export function startWebhookWorker(handle: DbHandle, options: WebhookWorkerOptions = {}) {
  const delivery: DeliveryOptions = {
    timeoutMs: options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs,
    retryBaseMs: options.retryBaseMs ?? WEBHOOK_DEFAULTS.retryBaseMs,
    retryForMs: options.retryForMs ?? WEBHOOK_DEFAULTS.retryForMs,
    fetchImpl: options.fetchImpl,
  };
  const concurrency = options.concurrency ?? WEBHOOK_DEFAULTS.concurrency;
  const pollMs = options.pollMs ?? WEBHOOK_DEFAULTS.pollMs;
  const log = options.log ?? (() => {});
  // Held longer than an attempt can take, so no other worker takes a row while it is being sent.
  const lockMs = delivery.timeoutMs + 30_000;
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let filling = false;
  let timer: NodeJS.Timeout | null = null;
  const started = handle.kind === "pglite" ? releaseDeliveryLocks(handle.db).catch((error) => log("webhook locks", error)) : Promise.resolve();

  // Attempts waiting for their write, and the write under way: each write takes all that ended before it began.
  const unwritten: Array<{ attempt: Attempt; written: () => void; failed: (error: unknown) => void }> = [];
  let writing = false;
  const write = async () => {
    if (writing) return;
    writing = true;
    try {
      while (unwritten.length > 0) {
        const batch = unwritten.splice(0, 500);
        await recordAttempts(
          handle.db,
          batch.map((b) => b.attempt),
          delivery,
        ).then(
          () => batch.forEach((b) => b.written()),
          (error: unknown) => batch.forEach((b) => b.failed(error)),
        );
      }
    } finally {
      writing = false;
    }
  };
  const record = (attempt: Attempt) =>
    new Promise<void>((written, failed) => {
      unwritten.push({ attempt, written, failed });
      void write();
    });

  const send = (row: ClaimedDelivery) => {
    const task: Promise<void> = attemptDelivery(handle.db, row, delivery)
      .then(async (attempt) => {
        await record(attempt);
        options.onAttempt?.(attempt.ok);
      })
      .catch((error) => log(`webhook delivery ${row.id} failed`, error))
      .finally(() => {
        inFlight.delete(task);
        // A freed slot looks for the next row now (the same client's next event is due once this one is done).
        void fill();
      });
    inFlight.add(task);
  };

  async function fill() {
    if (stopped || filling) return;
    filling = true;
    try {
      await started;
      while (!stopped && inFlight.size < concurrency) {
        const rows = await claimDeliveries(handle.db, concurrency - inFlight.size, lockMs);
        if (rows.length === 0) break;
        for (const row of rows) send(row);
      }
    } catch (error) {
      log("webhook queue", error);
    } finally {
      filling = false;
    }
  }

  // Callbacks due or missed are found by looking (nothing is written when time passes), every few seconds.
  let lastLook = 0;
  const look = async () => {
    if (Date.now() - lastLook < (options.lookEveryMs ?? 5000)) return;
    lastLook = Date.now();
    try {
      await enqueueCallbackEvents(handle.db);
      if (Math.random() < 0.01) await pruneDeliveries(handle.db);
    } catch (error) {
      log("webhook callbacks", error);
    }
  };

  const tick = () => {
    if (stopped) return;
    void look()
      .then(fill)
      .finally(() => {
        if (stopped) return;
        timer = setTimeout(tick, pollMs);
        timer.unref();
      });
  };
  tick();

  return {
    /** Look for due deliveries now. */
    kick: () => void fill(),
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await Promise.allSettled([...inFlight]);
    },
  };
}
