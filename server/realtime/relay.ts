import crypto from "node:crypto";
import type { DbHandle } from "../../db/client";
import { REALTIME_CHANNEL, type ServerEvent } from "./protocol";

/** What travels between instances. */
export type BusMessage =
  | { type: "forceLogout"; userId: number; keep?: string }
  | { type: "presence" }
  | { type: "toUser"; userId: number; event: ServerEvent; data?: unknown };

/** LISTEN/NOTIFY on the database every instance shares. */
export type Bus = Pick<DbHandle, "listen" | "notify">;

/** A session named on the bus by its digest: NOTIFY payloads can end up in the database's logs. */
export const sessionDigest = (token: string) => crypto.createHash("sha256").update(token).digest("base64url");

const isBusMessage = (message: BusMessage | null): message is BusMessage =>
  Boolean(message && (message.type === "forceLogout" || message.type === "presence" || message.type === "toUser"));

/**
 * The relay between instances: what one instance publishes, every instance (itself included) delivers to its own
 * sockets. Without a bus, or before start, or while the bus is down, a message stays on this instance.
 */
export function createRelay(bus: Bus | undefined, deliver: (message: BusMessage) => void) {
  let unlisten: (() => Promise<void>) | null = null;
  return {
    async publish(message: BusMessage) {
      if (bus && unlisten) {
        try {
          await bus.notify(REALTIME_CHANNEL, JSON.stringify(message));
          return;
        } catch {
          // The bus is down: at least this instance hears it.
        }
      }
      deliver(message);
    },
    /** Starts listening to the other instances (Postgres LISTEN; PGlite's listen in the embedded mode). */
    async start() {
      if (!bus || unlisten) return;
      unlisten = await bus.listen(REALTIME_CHANNEL, (payload) => {
        let message: BusMessage | null;
        try {
          message = JSON.parse(payload);
        } catch {
          return;
        }
        if (isBusMessage(message)) deliver(message);
      });
    },
    async stop() {
      const stop = unlisten;
      unlisten = null;
      if (stop) await stop().catch(() => {});
    },
  };
}
