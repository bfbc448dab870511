import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import type { Db, DbHandle } from "../../db/client";
import type { User } from "../../db/schema";
import type { SessionStore } from "../auth/sessions";
import { forbidden } from "../core/errors";
import { adminsAmong, listPresentUsers, touchPresence, type PresentUser } from "../core/users/presence";
import { readCookie, SESSION_COOKIE } from "../http/cookies";
import { sameOrigin } from "../http/origin";

export const REALTIME_PATH = "/realtime";

/** The one LISTEN/NOTIFY channel every instance shares. */
export const REALTIME_CHANNEL = "leaddesk_realtime";

/** Close code after a forced logout: the client must not reconnect with that session. */
export const CLOSE_FORCED_LOGOUT = 4001;
/** Close code when the socket's session no longer exists (logged out elsewhere). */
export const CLOSE_SESSION_ENDED = 4002;
/** Close code (the standard "policy violation") when a socket sends faster than MESSAGE_RATE allows. */
export const CLOSE_TOO_MANY_MESSAGES = 1008;

/** Open sockets per session (a browser's tabs share one): one more is refused with 429 until one closes. */
export const MAX_SOCKETS_PER_SESSION = 10;
/** Per socket: a burst of this many messages, refilled at this many a second (a page sends one per 5 s). */
export const MESSAGE_RATE = { burst: 20, perSecond: 2 };
/** A client message is `{ event, data }` of a few dozen bytes; anything larger is closed with 1009. */
export const MAX_MESSAGE_BYTES = 4 * 1024;

export const NOT_ADMIN = forbidden().message;
export const TOO_MANY_SOCKETS = `Слишком много соединений для одной сессии (не более ${MAX_SOCKETS_PER_SESSION}): закройте лишние вкладки`;
export const TOO_MANY_MESSAGES = "Слишком много сообщений: соединение закрыто";

/** A message on the socket: `{ event, data }` both ways. */
export interface RealtimeMessage {
  event: string;
  data?: unknown;
}

/**
 * Client → server: updateStatus, getUsersOnline. Server → client: usersOnline, forceLogout, error, callbacksDue,
 * whisper and whisperEnded (an admin's whisper into the user's call starts or ends).
 */
export type ClientEvent = "updateStatus" | "getUsersOnline";
export type ServerEvent = "usersOnline" | "forceLogout" | "error" | "callbacksDue" | "whisper" | "whisperEnded";

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
  /** Starts listening to the other instances (Postgres LISTEN; PGlite's listen in the embedded mode). */
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface HubOptions {
  db: Db;
  sessions: SessionStore;
  /** LISTEN/NOTIFY; without it (or before start) events stay on this instance. */
  bus?: Pick<DbHandle, "listen" | "notify">;
  presenceGraceSeconds?: number;
  pingSeconds?: number;
}

/** What travels between instances. */
type BusMessage =
  | { type: "forceLogout"; userId: number; keep?: string }
  | { type: "presence" }
  | { type: "toUser"; userId: number; event: ServerEvent; data?: unknown };

/** A session named on the bus by its digest: NOTIFY payloads can end up in the database's logs. */
const sessionDigest = (token: string) => crypto.createHash("sha256").update(token).digest("base64url");

interface Client {
  ws: WebSocket;
  user: User;
  token: string;
  alive: boolean;
  lastTouch: number;
  /** An admin who asked getUsersOnline: gets usersOnline whenever the list changes (while still an admin). */
  watching: boolean;
  /** Token bucket of the message rate limit. */
  allowance: number;
  allowanceAt: number;
}

/**
 * The session cookie as the pages set it: Remix's createCookie stores the value as base64 of its JSON
 * (unsigned here). A raw token is accepted too (other clients setting the cookie themselves).
 */
export function sessionTokenFromCookie(value: string | null): string | null {
  if (!value) return null;
  try {
    const decoded = JSON.parse(Buffer.from(value, "base64").toString("utf8"));
    if (typeof decoded === "string" && decoded) return decoded;
  } catch {
    /* not Remix-encoded */
  }
  return value;
}

/**
 * The /realtime WebSocket hub (raw `ws`, noServer). Only an authenticated session gets a socket:
 * the session cookie (browser; the Origin must match) or a bearer token (other clients).
 * A dropped socket never ends a session; it only lets presence lapse after the grace period.
 */
export function createRealtimeHub({
  db,
  sessions,
  bus,
  presenceGraceSeconds = 30,
  pingSeconds = 10,
}: HubOptions): RealtimeHub {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const clientsByUser = new Map<number, Set<Client>>();
  /** Sockets per session token, counted from the moment an upgrade is let through until its socket closes. */
  const socketsByToken = new Map<string, number>();
  /** Bumped on each presence change: a list read begun before it may miss that change, so nobody joins it. */
  let presenceVersion = 0;
  let listInFlight: { version: number; list: Promise<PresentUser[]> } | null = null;
  let unlisten: (() => Promise<void>) | null = null;
  let closed = false;
  let lastSentList = "";
  let refreshTimer: NodeJS.Timeout | null = null;
  // Consecutive database writes from one socket: at most one per this many ms (updateStatus and pongs).
  const touchEveryMs = Math.min(4000, (pingSeconds * 1000) / 2);

  const refuse = (socket: Duplex, status: number, text: string, body = "") => {
    const bytes = Buffer.from(body, "utf8");
    socket.once("finish", () => socket.destroy());
    socket.end(
      Buffer.concat([
        Buffer.from(
          `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` +
            `Content-Length: ${bytes.length}\r\n\r\n`,
        ),
        bytes,
      ]),
    );
  };

  async function authenticate(request: IncomingMessage): Promise<{ user: User; token: string } | null> {
    const auth = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
    const token = auth
      ? auth[1]
      : sameOrigin(request.headers.origin, request.headers.host, request.headers["x-forwarded-host"])
        ? sessionTokenFromCookie(readCookie(request.headers.cookie, SESSION_COOKIE))
        : null;
    if (!token) return null;
    const user = await sessions.validate(token);
    return user ? { user, token } : null;
  }

  const send = (ws: WebSocket, event: ServerEvent, data?: unknown) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event, data }));
  };

  const allClients = () => [...clientsByUser.values()].flatMap((set) => [...set]);

  async function touch(client: Client) {
    const now = Date.now();
    if (now - client.lastTouch < touchEveryMs) return;
    client.lastTouch = now;
    try {
      const live = await touchPresence(db, client.user.id, client.token);
      if (!live) client.ws.close(CLOSE_SESSION_ENDED, "session ended");
    } catch {
      client.lastTouch = 0; // database hiccup: try again on the next beat
    }
  }

  /** The online list; requests that arrive while it is being read share that one query, if it saw the last change. */
  function currentList(): Promise<PresentUser[]> {
    if (listInFlight?.version !== presenceVersion) {
      const read = {
        version: presenceVersion,
        list: listPresentUsers(db, presenceGraceSeconds).finally(() => {
          if (listInFlight === read) listInFlight = null;
        }),
      };
      listInFlight = read;
    }
    return listInFlight.list;
  }

  /**
   * Pushes the online list to the admins watching it, when it differs from the last one sent. The role is read
   * again before each push: a watcher demoted since he asked stops watching and is told why.
   */
  async function pushList(force = false) {
    const watchers = allClients().filter((c) => c.watching);
    if (watchers.length === 0) return;
    let list: PresentUser[];
    let admins: Set<number>;
    try {
      list = await currentList();
      if (!force && JSON.stringify(list) === lastSentList) return;
      admins = await adminsAmong(db, [...new Set(watchers.map((c) => c.user.id))]);
    } catch {
      return;
    }
    lastSentList = JSON.stringify(list);
    for (const c of watchers) {
      if (admins.has(c.user.id)) {
        send(c.ws, "usersOnline", list);
      } else {
        c.watching = false;
        send(c.ws, "error", { message: NOT_ADMIN });
      }
    }
  }

  function schedulePush() {
    if (refreshTimer || closed) return;
    refreshTimer = setTimeout(() => {
      refreshTimer = null;
      void pushList(true);
    }, 100);
  }

  /** Delivery on this instance of what any instance published. */
  function deliver(message: BusMessage) {
    if (message.type === "forceLogout") {
      const set = clientsByUser.get(message.userId);
      for (const c of set ?? []) {
        if (message.keep && sessionDigest(c.token) === message.keep) continue;
        send(c.ws, "forceLogout", { userId: message.userId });
        c.ws.close(CLOSE_FORCED_LOGOUT, "forceLogout");
      }
      schedulePush();
    } else if (message.type === "presence") {
      presenceVersion++;
      schedulePush();
    } else if (message.type === "toUser") {
      hub.sendToUser(message.userId, message.event, message.data);
    }
  }

  async function publish(message: BusMessage) {
    if (bus && unlisten) {
      try {
        await bus.notify(REALTIME_CHANNEL, JSON.stringify(message));
        return;
      } catch {
        // The bus is down: at least this instance hears it.
      }
    }
    deliver(message);
  }

  /** Token bucket: false (and the socket closed, with the reason) once the socket sends faster than allowed. */
  function withinRate(client: Client): boolean {
    const now = Date.now();
    client.allowance = Math.min(
      MESSAGE_RATE.burst,
      client.allowance + ((now - client.allowanceAt) / 1000) * MESSAGE_RATE.perSecond,
    );
    client.allowanceAt = now;
    if (client.allowance >= 1) {
      client.allowance -= 1;
      return true;
    }
    send(client.ws, "error", { message: TOO_MANY_MESSAGES });
    client.ws.close(CLOSE_TOO_MANY_MESSAGES, "too many messages");
    return false;
  }

  /** The socket's user was marked present before it opened (see handleUpgrade). */
  function onConnection(ws: WebSocket, user: User, token: string) {
    const client: Client = {
      ws,
      user,
      token,
      alive: true,
      lastTouch: Date.now(),
      watching: false,
      allowance: MESSAGE_RATE.burst,
      allowanceAt: Date.now(),
    };
    let set = clientsByUser.get(user.id);
    const first = !set;
    if (!set) clientsByUser.set(user.id, (set = new Set()));
    set.add(client);
    ws.on("pong", () => {
      client.alive = true;
      void touch(client);
    });
    ws.on("close", () => {
      set!.delete(client);
      if (set!.size === 0 && clientsByUser.get(user.id) === set) clientsByUser.delete(user.id);
    });
    ws.on("error", () => {});
    ws.on("message", async (raw) => {
      if (ws.readyState !== ws.OPEN || !withinRate(client)) return;
      let message: RealtimeMessage;
      try {
        message = JSON.parse(raw.toString());
      } catch {
        return;
      }
      client.alive = true;
      if (message?.event === "updateStatus") {
        await touch(client);
      } else if (message?.event === "getUsersOnline") {
        try {
          // The role as it is now, not as it was when the socket opened (he may have been demoted or promoted).
          if (!(await adminsAmong(db, [client.user.id])).has(client.user.id)) {
            client.watching = false;
            send(ws, "error", { message: NOT_ADMIN });
            return;
          }
          client.watching = true;
          send(ws, "usersOnline", await currentList());
        } catch {
          send(ws, "error", { message: "Не удалось получить список пользователей онлайн" });
        }
      }
    });
    if (first) void publish({ type: "presence" });
  }

  // Pings keep a throttled background tab on line (the browser answers pings itself) and find dead sockets.
  const pingTimer = setInterval(() => {
    for (const c of allClients()) {
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
    void pushList();
  }, pingSeconds * 1000);
  pingTimer.unref();

  const hub: RealtimeHub = {
    handleUpgrade(request, socket, head) {
      // A client that resets during authentication must not become an unhandled 'error'.
      socket.on("error", () => {});
      if (closed) return refuse(socket, 503, "Service Unavailable");
      authenticate(request)
        .then((auth) => {
          if (socket.destroyed) return; // gone while we asked the database: it would never free its slot
          if (!auth) return refuse(socket, 401, "Unauthorized");
          // Counted synchronously with the check, so a burst of upgrades cannot all pass it at once.
          const open = socketsByToken.get(auth.token) ?? 0;
          if (open >= MAX_SOCKETS_PER_SESSION) return refuse(socket, 429, "Too Many Requests", TOO_MANY_SOCKETS);
          socketsByToken.set(auth.token, open + 1);
          // The TCP socket closes whether the upgrade completes or not: the slot is freed either way.
          socket.once("close", () => {
            const left = (socketsByToken.get(auth.token) ?? 1) - 1;
            if (left > 0) socketsByToken.set(auth.token, left);
            else socketsByToken.delete(auth.token);
          });
          // Present before the socket opens: whoever the client tells next (an admin's list) already sees him.
          return touchPresence(db, auth.user.id, auth.token).then((live) => {
            if (socket.destroyed) return;
            if (!live) return refuse(socket, 401, "Unauthorized");
            presenceVersion++;
            wss.handleUpgrade(request, socket, head, (ws) => onConnection(ws, auth.user, auth.token));
          });
        })
        .catch(() => refuse(socket, 503, "Service Unavailable"));
    },
    sendToUser(userId, event, data) {
      const set = clientsByUser.get(userId);
      if (!set) return 0;
      const text = JSON.stringify({ event, data });
      for (const c of set) if (c.ws.readyState === c.ws.OPEN) c.ws.send(text);
      return set.size;
    },
    connectedUserIds: () => [...clientsByUser.keys()],
    connectionCount: () => wss.clients.size,
    forceLogout: (userId, keepSession) =>
      publish({ type: "forceLogout", userId, ...(keepSession ? { keep: sessionDigest(keepSession) } : {}) }),
    presenceChanged: () => publish({ type: "presence" }),
    tellUser: (userId, event, data) => publish({ type: "toUser", userId, event, data }),
    async start() {
      if (!bus || unlisten || closed) return;
      unlisten = await bus.listen(REALTIME_CHANNEL, (payload) => {
        let message: BusMessage;
        try {
          message = JSON.parse(payload);
        } catch {
          return;
        }
        if (message && (message.type === "forceLogout" || message.type === "presence" || message.type === "toUser")) deliver(message);
      });
    },
    async close() {
      closed = true;
      clearInterval(pingTimer);
      if (refreshTimer) clearTimeout(refreshTimer);
      const stop = unlisten;
      unlisten = null;
      if (stop) await stop().catch(() => {});
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
  return hub;
}
