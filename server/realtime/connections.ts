import type { WebSocket } from "ws";
import type { User } from "../../db/schema";
import { CLOSE_TOO_MANY_MESSAGES, MAX_SOCKETS_PER_SESSION, MESSAGE_RATE, TOO_MANY_MESSAGES, type ServerEvent } from "./protocol";

/** One open socket on this instance and what the hub keeps about it. */
export interface Client {
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

export function newClient(ws: WebSocket, user: User, token: string): Client {
  const now = Date.now();
  return { ws, user, token, alive: true, lastTouch: now, watching: false, allowance: MESSAGE_RATE.burst, allowanceAt: now };
}

export const send = (ws: WebSocket, event: ServerEvent, data?: unknown) => {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event, data }));
};

/** Token bucket: false (and the socket closed, with the reason) once the socket sends faster than allowed. */
export function withinRate(client: Client): boolean {
  const now = Date.now();
  client.allowance = Math.min(MESSAGE_RATE.burst, client.allowance + ((now - client.allowanceAt) / 1000) * MESSAGE_RATE.perSecond);
  client.allowanceAt = now;
  if (client.allowance >= 1) {
    client.allowance -= 1;
    return true;
  }
  send(client.ws, "error", { message: TOO_MANY_MESSAGES });
  client.ws.close(CLOSE_TOO_MANY_MESSAGES, "too many messages");
  return false;
}

export type Connections = ReturnType<typeof createConnections>;

/**
 * Who is connected to this instance: the open sockets by user, and the socket slots each session holds
 * (MAX_SOCKETS_PER_SESSION, counted from the moment an upgrade is let through until its socket closes).
 */
export function createConnections() {
  const clientsByUser = new Map<number, Set<Client>>();
  const socketsByToken = new Map<string, number>();

  return {
    /** Takes one of the session's slots; false when it holds them all. Synchronous, so a burst cannot all pass. */
    takeSlot(token: string): boolean {
      const open = socketsByToken.get(token) ?? 0;
      if (open >= MAX_SOCKETS_PER_SESSION) return false;
      socketsByToken.set(token, open + 1);
      return true;
    },
    releaseSlot(token: string) {
      const left = (socketsByToken.get(token) ?? 1) - 1;
      if (left > 0) socketsByToken.set(token, left);
      else socketsByToken.delete(token);
    },
    /** Adds an open socket; true when it is its user's first on this instance. Removed again when it closes. */
    add(client: Client): boolean {
      const { id } = client.user;
      let set = clientsByUser.get(id);
      const first = !set;
      if (!set) clientsByUser.set(id, (set = new Set()));
      set.add(client);
      const own = set;
      client.ws.on("close", () => {
        own.delete(client);
        if (own.size === 0 && clientsByUser.get(id) === own) clientsByUser.delete(id);
      });
      return first;
    },
    ofUser: (userId: number): Iterable<Client> => clientsByUser.get(userId) ?? [],
    all: (): Client[] => [...clientsByUser.values()].flatMap((set) => [...set]),
    userIds: () => [...clientsByUser.keys()],
    /** Sends an event to every open socket of a user; answers how many sockets he has here. */
    sendToUser(userId: number, event: string, data?: unknown): number {
      const set = clientsByUser.get(userId);
      if (!set) return 0;
      const text = JSON.stringify({ event, data });
      for (const c of set) if (c.ws.readyState === c.ws.OPEN) c.ws.send(text);
      return set.size;
    },
  };
}
