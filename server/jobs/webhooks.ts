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
  /**
   * Whether the app is busy with requests now (managers' presses first): then one delivery at a time, one each
   * BUSY_SEND_GAP_MS at most, and the queue catches up once it is quiet.
   */
  busy?: () => boolean;
}

/** While the app is busy, a delivery starts at most this often (10 a second: the queue never stops). */
export const BUSY_SEND_GAP_MS = 100;

/** A sent attempt waits at most this long for others to be written with it (fewer, larger writes under load). */
const WRITE_AFTER_MS = 20;
/** ...or until this many have ended. */
const WRITE_BATCH = 64;

/**
 * The webhook sender of one app instance (issue 44): off every request's path, it polls the delivery queue and keeps
 * up to `concurrency` POSTs in flight. Rows are claimed with a lock (several instances share the queue), a few slots'
 * worth at a time, and the attempts are written in batches (the accepted ones in one statement), so at hundreds of
 * deliveries a second the database sees a few statements a second, not two a delivery (that took ~2 ms of Postgres
 * CPU a delivery from the presses: bench/tools/webhook-cost.ts). A kill -9 sends again what was in flight or ended
 * in the last WRITE_AFTER_MS before it (the receivers know a repeat by its webhook-id). Stopping writes what was sent
 * and waits for the ones in flight. While the app is busy (`busy`), deliveries yield to its requests: one at a time, at
 * most one each BUSY_SEND_GAP_MS (a sender at full speed cost a closed loop of presses 9-12 % of its turns on two
 * cores, docs/benchmarks.md's leads section).
 */
export function startWebhookWorker(handle: DbHandle, options: WebhookWorkerOptions = {}) {
  const delivery: DeliveryOptions = {
    timeoutMs: options.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs,
    retryBaseMs: options.retryBaseMs ?? WEBHOOK_DEFAULTS.retryBaseMs,
    retryForMs: options.retryForMs ?? WEBHOOK_DEFAULTS.retryForMs,
  };
  const concurrency = options.concurrency ?? WEBHOOK_DEFAULTS.concurrency;
  const pollMs = options.pollMs ?? WEBHOOK_DEFAULTS.pollMs;
  const log = options.log ?? (() => {});
  // Claimed rows wait their turn here: up to CLAIM_SLOTS slots' worth, so the lock outlasts the wait for a slot.
  const CLAIM_SLOTS = 4;
  const lockMs = delivery.timeoutMs * CLAIM_SLOTS + 30_000;
  const claimed: ClaimedDelivery[] = [];
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let filling = false;
  let timer: NodeJS.Timeout | null = null;
  const started = handle.kind === "pglite" ? releaseDeliveryLocks(handle.db).catch((error) => log("webhook locks", error)) : Promise.resolve();

  // Attempts sent and not yet written; a write takes them all (a client's next event is claimable once it is done).
  let unwritten: Attempt[] = [];
  let writeTimer: NodeJS.Timeout | null = null;
  let writing: Promise<void> = Promise.resolve();
  const write = () => {
    if (writeTimer) clearTimeout(writeTimer);
    writeTimer = null;
    const batch = unwritten;
    unwritten = [];
    if (batch.length === 0) return writing;
    writing = writing
      .then(() => recordAttempts(handle.db, batch, delivery))
      .then(
        () => batch.forEach((attempt) => options.onAttempt?.(attempt.ok)),
        // Not written: the rows stay locked until their lock runs out, then are sent again (same webhook-id).
        (error: unknown) => log(`webhook attempts not written (${batch.length})`, error),
      )
      .then(() => void fill());
    return writing;
  };
  const ended = (attempt: Attempt) => {
    unwritten.push(attempt);
    if (unwritten.length >= WRITE_BATCH) void write();
    else if (!writeTimer) writeTimer = setTimeout(write, WRITE_AFTER_MS);
  };

  const send = (row: ClaimedDelivery) => {
    const task: Promise<void> = attemptDelivery(handle.db, row, delivery)
      .then(ended)
      .catch((error) => log(`webhook delivery ${row.id} failed`, error))
      .finally(() => {
        inFlight.delete(task);
        void fill();
      });
    inFlight.add(task);
  };

  // While the app is busy: when the next delivery may start, and the look that starts it then.
  let busySendAt = 0;
  let busyTimer: NodeJS.Timeout | null = null;
  async function fill() {
    if (stopped || filling) return;
    filling = true;
    try {
      await started;
      for (;;) {
        const busy = options.busy?.() ?? false;
        if (stopped || inFlight.size >= (busy ? 1 : concurrency)) break;
        if (busy && Date.now() < busySendAt) {
          if (!busyTimer) {
            busyTimer = setTimeout(() => {
              busyTimer = null;
              void fill();
            }, busySendAt - Date.now());
            busyTimer.unref();
          }
          break;
        }
        if (claimed.length === 0) {
          claimed.push(...(await claimDeliveries(handle.db, concurrency * CLAIM_SLOTS, lockMs)));
          if (claimed.length === 0) break;
        }
        if (busy) busySendAt = Date.now() + BUSY_SEND_GAP_MS;
        send(claimed.shift()!);
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
      if (busyTimer) clearTimeout(busyTimer);
      await Promise.allSettled([...inFlight]);
      await write();
      // Claimed and not sent: free for the next start or another instance at once, not when their lock runs out.
      const unsent = claimed.splice(0).map((row) => row.id);
      if (unsent.length > 0) await releaseDeliveryLocks(handle.db, unsent).catch((error) => log("webhook locks", error));
    },
  };
}
