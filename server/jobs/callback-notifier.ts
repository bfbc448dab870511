import type { Db } from "../../db/client";
import { callbackCounts, callbacksFallenDue } from "../core/leads/callbacks";
import type { RealtimeHub } from "../realtime/hub";

/** The hub event a manager's pages get when one of his callbacks falls due (a toast and the menu's count). */
export const CALLBACKS_DUE_EVENT = "callbacksDue";

export interface CallbacksDueMessage {
  callbacks: Array<{ id: number; name: string; phone: string; dueAt: string }>;
  /** His callbacks whose time has come, all told (the menu's count). */
  due: number;
}

/**
 * Tells managers when a callback of theirs falls due (issue 18, decision 035). Each instance looks, every
 * `everyMs`, only at the users with a socket on it, so several instances never tell one socket twice. It only
 * tells: handing the contact out stays in the lead turn's claim.
 */
export function startCallbackNotifier(
  db: Db,
  hub: Pick<RealtimeHub, "connectedUserIds" | "sendToUser">,
  options: { everyMs?: number; log?: (message: string, error: unknown) => void } = {},
) {
  let since: string | null = null;
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const { now, due } = await callbacksFallenDue(db, hub.connectedUserIds(), since);
      since = now;
      const byUser = new Map<number, CallbacksDueMessage["callbacks"]>();
      for (const { userId, ...callback } of due) byUser.set(userId, [...(byUser.get(userId) ?? []), callback]);
      for (const [userId, callbacks] of byUser) {
        const counts = await callbackCounts(db, userId);
        hub.sendToUser(userId, CALLBACKS_DUE_EVENT, { callbacks, due: counts.due } satisfies CallbacksDueMessage);
      }
    } catch (error) {
      options.log?.("callback notifier failed", error);
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), options.everyMs ?? 3000);
  timer.unref();
  void tick();
  return { stop: () => clearInterval(timer), tick };
}
