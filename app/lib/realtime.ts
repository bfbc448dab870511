import { useEffect, useRef, useState } from "react";
import type { PresentUser } from "../../server/core/users/presence";

/**
 * The browser side of the /realtime channel (SPEC §4): connects 1 s after the session appears, reconnects
 * indefinitely (1 s apart, 1 s to open; after 5 failed attempts in a row it pauses, then tries again), sends
 * updateStatus on connect and every 5 s and stops doing so on disconnect. The page's session cookie
 * authenticates the socket, so the token never reaches JavaScript.
 */

export interface RealtimeTimings {
  /** Delay between the session appearing and the first connection. */
  connectDelayMs: number;
  reconnectDelayMs: number;
  /** An attempt that has not opened by then counts as failed. */
  timeoutMs: number;
  /** Failed attempts in a row before the pause. */
  maxAttempts: number;
  pauseMs: number;
  statusIntervalMs: number;
}

export const REALTIME_TIMINGS: RealtimeTimings = {
  connectDelayMs: 1000,
  reconnectDelayMs: 1000,
  timeoutMs: 1000,
  maxAttempts: 5,
  pauseMs: 10_000,
  statusIntervalMs: 5000,
};

/** The server closes with these after a forced logout or when the session is gone: no reconnecting then. */
const FINAL_CLOSE_CODES = new Set([4001, 4002]);

/** A user of /users' list as the server sends it (core's own type: erased from the bundle). */
export type { PresentUser };

export interface RealtimeEvents {
  open: undefined;
  close: undefined;
  usersOnline: PresentUser[];
  forceLogout: { userId: number };
  error: { message: string };
  /** One or more of the user's callbacks fell due (issue 18): a toast, and the menu's count. */
  callbacksDue: { callbacks: Array<{ id: number; name: string; phone: string; dueAt: string }>; due: number };
  /** An admin started whispering into the user's call (issue 28): his page subscribes to the admin's voice. */
  whisper: { sessionId: number; sdp?: string };
  /** The admin stopped whispering. */
  whisperEnded: { sessionId: number };
  /** An admin's listening or whisper ended without his «Стоп» (the call ended), and why. */
  listenEnded: { sessionId: number; message: string };
}

/** What the server may send; anything else is ignored. */
const SERVER_EVENTS = new Set<string>(["usersOnline", "forceLogout", "error", "callbacksDue", "whisper", "whisperEnded", "listenEnded"]);

type Handler<K extends keyof RealtimeEvents> = (data: RealtimeEvents[K]) => void;

export interface RealtimeClient {
  /** Starts (after the connect delay); calling it again while running does nothing. */
  start(): void;
  stop(): void;
  readonly connected: boolean;
  send(event: "updateStatus" | "getUsersOnline", data?: unknown): boolean;
  on<K extends keyof RealtimeEvents>(event: K, handler: Handler<K>): () => void;
}

export interface RealtimeClientOptions {
  url?: string | (() => string);
  timings?: Partial<RealtimeTimings>;
  WebSocketImpl?: typeof WebSocket;
}

const defaultUrl = () => `${window.location.protocol === "https:" ? "wss" : "ws"}://${window.location.host}/realtime`;

export function createRealtimeClient(options: RealtimeClientOptions = {}): RealtimeClient {
  const timings = { ...REALTIME_TIMINGS, ...options.timings };
  const handlers = new Map<keyof RealtimeEvents, Set<(data: never) => void>>();
  let ws: WebSocket | null = null;
  let running = false;
  let failures = 0;
  let connectTimer: ReturnType<typeof setTimeout> | null = null;
  let openTimer: ReturnType<typeof setTimeout> | null = null;
  let statusTimer: ReturnType<typeof setInterval> | null = null;

  const emit = <K extends keyof RealtimeEvents>(event: K, data: RealtimeEvents[K]) => {
    for (const handler of handlers.get(event) ?? []) {
      try {
        (handler as Handler<K>)(data);
      } catch (error) {
        console.warn("realtime handler failed", error);
      }
    }
  };

  const clearTimers = () => {
    if (connectTimer) clearTimeout(connectTimer);
    if (openTimer) clearTimeout(openTimer);
    if (statusTimer) clearInterval(statusTimer);
    connectTimer = openTimer = statusTimer = null;
  };

  const schedule = (delay: number) => {
    if (!running) return;
    if (connectTimer) clearTimeout(connectTimer);
    connectTimer = setTimeout(connect, delay);
  };

  const sendRaw = (event: string, data?: unknown) => {
    if (!ws || ws.readyState !== 1) return false;
    ws.send(JSON.stringify({ event, data }));
    return true;
  };

  function connect() {
    connectTimer = null;
    if (!running) return;
    const Impl = options.WebSocketImpl ?? WebSocket;
    const url = typeof options.url === "function" ? options.url() : (options.url ?? defaultUrl());
    let opened = false;
    const socket = new Impl(url);
    ws = socket;
    openTimer = setTimeout(() => {
      openTimer = null;
      if (!opened) socket.close();
    }, timings.timeoutMs);

    socket.onopen = () => {
      if (ws !== socket) return;
      opened = true;
      failures = 0;
      if (openTimer) clearTimeout(openTimer);
      openTimer = null;
      sendRaw("updateStatus");
      statusTimer = setInterval(() => sendRaw("updateStatus"), timings.statusIntervalMs);
      emit("open", undefined);
    };
    socket.onmessage = (message) => {
      let parsed: { event?: string; data?: unknown };
      try {
        parsed = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (typeof parsed?.event === "string" && SERVER_EVENTS.has(parsed.event)) {
        emit(parsed.event as keyof RealtimeEvents, parsed.data as never);
      }
    };
    socket.onerror = () => {
      /* the close that follows decides what happens */
    };
    socket.onclose = (event) => {
      if (ws !== socket) return;
      ws = null;
      if (openTimer) clearTimeout(openTimer);
      if (statusTimer) clearInterval(statusTimer);
      openTimer = statusTimer = null;
      if (opened) emit("close", undefined);
      if (!running) return;
      if (FINAL_CLOSE_CODES.has(event.code)) {
        running = false;
        return;
      }
      if (opened) return schedule(timings.reconnectDelayMs);
      failures += 1;
      if (failures >= timings.maxAttempts) {
        failures = 0;
        return schedule(timings.pauseMs);
      }
      schedule(timings.reconnectDelayMs);
    };
  }

  return {
    start() {
      if (running) return;
      running = true;
      failures = 0;
      schedule(timings.connectDelayMs);
    },
    stop() {
      running = false;
      clearTimers();
      const socket = ws;
      ws = null;
      if (socket) {
        socket.onclose = null;
        socket.close();
      }
    },
    get connected() {
      return ws?.readyState === 1;
    },
    send: (event, data) => sendRaw(event, data),
    on(event, handler) {
      let set = handlers.get(event);
      if (!set) handlers.set(event, (set = new Set()));
      set.add(handler as (data: never) => void);
      return () => set!.delete(handler as (data: never) => void);
    },
  };
}

let shared: RealtimeClient | null = null;

/** The page's one realtime client (the layout starts and stops it; pages subscribe to its events). */
export function getRealtimeClient(): RealtimeClient {
  shared ??= createRealtimeClient();
  return shared;
}

/**
 * The layout's hook: the socket runs while the page has a session (connecting 1 s after it appears) and a
 * forceLogout from the server calls `onForceLogout` (hang up, then log out after 200 ms).
 */
export function useRealtimeSession(userId: number, onForceLogout: () => void) {
  const handler = useRef(onForceLogout);
  handler.current = onForceLogout;
  useEffect(() => {
    const client = getRealtimeClient();
    let forced = false;
    const off = client.on("forceLogout", () => {
      if (forced) return;
      forced = true;
      handler.current();
    });
    client.start();
    return () => {
      off();
      client.stop();
    };
  }, [userId]);
}

/**
 * The menu's count of callbacks whose time has come: the loader's figure, then what the hub says when one falls
 * due (with a toast, on whatever page is open). `loaded` is the loader's answer the figure came from: each new
 * answer sets the count again, even with the same figure (the hub's 1, then a press that took the callback and a
 * layout refresh that says 0 as before).
 */
export function useCallbacksDue(initial: number, onDue: (callbacks: RealtimeEvents["callbacksDue"]["callbacks"]) => void, loaded?: unknown): number {
  const [count, setCount] = useState(initial);
  const handler = useRef(onDue);
  handler.current = onDue;
  useEffect(() => setCount(initial), [initial, loaded]);
  useEffect(
    () =>
      getRealtimeClient().on("callbacksDue", (data) => {
        setCount(data.due);
        handler.current(data.callbacks);
      }),
    [],
  );
  return count;
}
