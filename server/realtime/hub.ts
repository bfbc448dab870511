import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { Db } from "../../db/client";
import type { User } from "../../db/schema";
import type { SessionStore } from "../core/auth/ports";
import { touchPresence } from "../core/users/presence";
import { createConnections, newClient, send, withinRate, type Client } from "./connections";
import { authenticate, refuse } from "./handshake";
import { createPresence } from "./presence";
import { CLOSE_FORCED_LOGOUT, MAX_MESSAGE_BYTES, TOO_MANY_SOCKETS, type RealtimeMessage, type ServerEvent } from "./protocol";
import { createRelay, sessionDigest, type Bus, type BusMessage } from "./relay";

export * from "./protocol";
export { sessionTokenFromCookie } from "./handshake";

/**
 * The /realtime hub, put together from its parts:
 * - handshake.ts: who may open a socket (session cookie or bearer token), and the refusal otherwise;
 * - connections.ts: the open sockets on this instance by user, the sockets per session, the message rate;
 * - presence.ts: the users' presence in the database and the online list pushed to the admins watching it;
 * - relay.ts: what every instance must hear (forced logouts, presence, events for a user) over LISTEN/NOTIFY;
 * - protocol.ts: the events, close codes, limits and messages.
 * This file lets sockets in, routes their messages and carries the heartbeat.
 */
export interface RealtimeHub {
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Sends an event to every socket of a user on this instance. */
  sendToUser(userId: number, event: string, data?: unknown): number;
  /** Users with a live socket on this instance. */
  connectedUserIds(): number[];
  /** Open sockets on this instance (/metrics). */
  connectionCount(): number;
  /**
   * Tells every socket of the user, on every instance, to log out, and closes them; with `keepSession`, not
   * the sockets of that session (an admin who changed his own password stays on his page).
   */
  forceLogout(userId: number, keepSession?: string): Promise<void>;
  /** Tells every instance that the online list changed (admins watching /users get it at once). */
  presenceChanged(): Promise<void>;
  /** Sends an event to every socket of a user, on every instance (a whisper starting on his call). */
  tellUser(userId: number, event: ServerEvent, data?: unknown): Promise<void>;
  /**
   * Sends what must not travel between instances (an SDP offer: its ICE password and DTLS fingerprint would sit in
   * NOTIFY payloads, which can reach the database's logs) to the user's sockets on this instance; where he has none
   * here, every instance gets `elsewhere` instead (what lets his page ask for the rest itself).
   */
  tellUserHere(userId: number, event: ServerEvent, data: unknown, elsewhere: unknown): Promise<void>;
  /** Starts listening to the other instances (Postgres LISTEN; PGlite's listen in the embedded mode). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface HubOptions {
  db: Db;
  sessions: SessionStore;
  /** LISTEN/NOTIFY; without it (or before start) events stay on this instance. */
  bus?: Bus;
  presenceGraceSeconds?: number;
  pingSeconds?: number;
  /** A user's last socket on this instance closed (his pages are gone: a closed tab, a killed browser), and when. */
  onUserGone?: (userId: number, at: Date) => void;
}

/**
 * The /realtime WebSocket hub (raw `ws`, noServer). Only an authenticated session gets a socket:
 * the session cookie (browser; the Origin must match) or a bearer token (other clients).
 * A dropped socket never ends a session; it only lets presence lapse after the grace period.
 */
export function createRealtimeHub({ db, sessions, bus, presenceGraceSeconds = 30, pingSeconds = 10, onUserGone }: HubOptions): RealtimeHub {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const connections = createConnections();
  const presence = createPresence({
    db,
    connections,
    graceSeconds: presenceGraceSeconds,
    touchEveryMs: Math.min(4000, (pingSeconds * 1000) / 2),
  });
  const relay = createRelay(bus, deliver);
  let closed = false;

  /** Delivery on this instance of what any instance published. */
  function deliver(message: BusMessage) {
    if (message.type === "forceLogout") {
      for (const c of connections.ofUser(message.userId)) {
        if (message.keep && sessionDigest(c.token) === message.keep) continue;
        send(c.ws, "forceLogout", { userId: message.userId });
        c.ws.close(CLOSE_FORCED_LOGOUT, "forceLogout");
      }
      presence.pushSoon();
    } else if (message.type === "presence") {
      presence.changed();
      presence.pushSoon();
    } else if (message.type === "toUser") {
      connections.sendToUser(message.userId, message.event, message.data);
    }
  }

  /** A message from a client: anything but a known event is ignored. */
  async function route(client: Client, raw: WebSocket.RawData) {
    if (client.ws.readyState !== client.ws.OPEN || !withinRate(client)) return;
    let message: RealtimeMessage;
    try {
      message = JSON.parse(raw.toString());
    } catch {
      return;
    }
    client.alive = true;
    if (message?.event === "updateStatus") await presence.touch(client);
    else if (message?.event === "getUsersOnline") await presence.watch(client);
  }

  /** The socket's user was marked present before it opened (see handleUpgrade). */
  function onConnection(ws: WebSocket, user: User, token: string) {
    const client = newClient(ws, user, token);
    const first = connections.add(client);
    ws.on("pong", () => {
      client.alive = true;
      void presence.touch(client);
    });
    ws.on("error", () => {});
    ws.on("message", (raw) => route(client, raw));
    // After connections' own close handler (added first): the user's sockets here are counted without this one.
    ws.on("close", () => {
      if (!closed && onUserGone && [...connections.ofUser(user.id)].length === 0) onUserGone(user.id, new Date());
    });
    if (first) void relay.publish({ type: "presence" });
  }

  // Pings keep a throttled background tab on line (the browser answers pings itself) and find dead sockets.
  const pingTimer = setInterval(() => {
    for (const c of connections.all()) {
      if (!c.alive) {
        c.ws.terminate();
        continue;
      }
      c.alive = false;
      try {
        c.ws.ping();
      } catch {
        /* closing */
      }
    }
    // Presence also lapses without any event (a socket gone past the grace period): recheck on each beat.
    void presence.recheck();
  }, pingSeconds * 1000);
  pingTimer.unref();

  return {
    handleUpgrade(request, socket, head) {
      // A client that resets during authentication must not become an unhandled 'error'.
      socket.on("error", () => {});
      if (closed) return refuse(socket, 503, "Service Unavailable");
      authenticate(sessions, request)
        .then((auth) => {
          if (socket.destroyed) return; // gone while we asked the database: it would never free its slot
          if (!auth) return refuse(socket, 401, "Unauthorized");
          if (!connections.takeSlot(auth.token)) return refuse(socket, 429, "Too Many Requests", TOO_MANY_SOCKETS);
          // The TCP socket closes whether the upgrade completes or not: the slot is freed either way.
          socket.once("close", () => connections.releaseSlot(auth.token));
          // Present before the socket opens: whoever the client tells next (an admin's list) already sees him.
          return touchPresence(db, auth.user.id, auth.token).then((live) => {
            if (socket.destroyed) return;
            if (!live) return refuse(socket, 401, "Unauthorized");
            presence.changed();
            wss.handleUpgrade(request, socket, head, (ws) => onConnection(ws, auth.user, auth.token));
          });
        })
        .catch(() => refuse(socket, 503, "Service Unavailable"));
    },
    sendToUser: (userId, event, data) => connections.sendToUser(userId, event, data),
    connectedUserIds: () => connections.userIds(),
    connectionCount: () => wss.clients.size,
    forceLogout: (userId, keepSession) =>
      relay.publish({ type: "forceLogout", userId, ...(keepSession ? { keep: sessionDigest(keepSession) } : {}) }),
    presenceChanged: () => relay.publish({ type: "presence" }),
    tellUser: (userId, event, data) => relay.publish({ type: "toUser", userId, event, data }),
    tellUserHere: async (userId, event, data, elsewhere) => {
      if (connections.sendToUser(userId, event, data) === 0) await relay.publish({ type: "toUser", userId, event, data: elsewhere });
    },
    async start() {
      if (!closed) await relay.start();
    },
    async close() {
      closed = true;
      clearInterval(pingTimer);
      presence.stop();
      await relay.stop();
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
