import type { Db } from "../../db/client";
import { adminsAmong, listPresentUsers, touchPresence, type PresentUser } from "../core/users/presence";
import { send, type Client, type Connections } from "./connections";
import { CLOSE_SESSION_ENDED, NOT_ADMIN, ONLINE_LIST_FAILED } from "./protocol";

export interface PresenceOptions {
  db: Db;
  connections: Connections;
  graceSeconds: number;
  /** Consecutive database writes from one socket: at most one per this many ms (updateStatus and pongs). */
  touchEveryMs: number;
}

export type Presence = ReturnType<typeof createPresence>;

/**
 * Presence on this instance: keeps each socket's user marked present in the database (DESIGN §7), and pushes the
 * online list to the admins watching it whenever it changes, here or on another instance.
 */
export function createPresence({ db, connections, graceSeconds, touchEveryMs }: PresenceOptions) {
  /** Bumped on each presence change: a list read begun before it may miss that change, so nobody joins it. */
  let version = 0;
  let listInFlight: { version: number; list: Promise<PresentUser[]> } | null = null;
  let lastSentList = "";
  let pushTimer: NodeJS.Timeout | null = null;
  let stopped = false;

  /** The online list; requests that arrive while it is being read share that one query, if it saw the last change. */
  function currentList(): Promise<PresentUser[]> {
    if (listInFlight?.version !== version) {
      const read = {
        version,
        list: listPresentUsers(db, graceSeconds).finally(() => {
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
  async function push(force = false) {
    const watchers = connections.all().filter((c) => c.watching);
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
      if (!c.watching) continue; // told he is no admin by a push that overtook this one
      if (admins.has(c.user.id)) {
        send(c.ws, "usersOnline", list);
      } else {
        c.watching = false;
        send(c.ws, "error", { message: NOT_ADMIN });
      }
    }
  }

  return {
    /** Someone came or went: the next list is read afresh. */
    changed() {
      version++;
    },
    /** Pushes the list shortly (changes that come together make one push). */
    pushSoon() {
      if (pushTimer || stopped) return;
      pushTimer = setTimeout(() => {
        pushTimer = null;
        void push(true);
      }, 100);
    },
    /** Pushes the list if it changed since the last push (presence also lapses without any event). */
    recheck: () => push(),
    /** The socket's user is still here: written at most every touchEveryMs; a session gone closes the socket. */
    async touch(client: Client) {
      const now = Date.now();
      if (now - client.lastTouch < touchEveryMs) return;
      client.lastTouch = now;
      try {
        const live = await touchPresence(db, client.user.id, client.token);
        if (!live) client.ws.close(CLOSE_SESSION_ENDED, "session ended");
      } catch {
        client.lastTouch = 0; // database hiccup: try again on the next beat
      }
    },
    /** getUsersOnline: an admin gets the list now and on each change; anyone else is told he may not. */
    async watch(client: Client) {
      try {
        // The role as it is now, not as it was when the socket opened (he may have been demoted or promoted).
        if (!(await adminsAmong(db, [client.user.id])).has(client.user.id)) {
          client.watching = false;
          send(client.ws, "error", { message: NOT_ADMIN });
          return;
        }
        client.watching = true;
        send(client.ws, "usersOnline", await currentList());
      } catch {
        send(client.ws, "error", { message: ONLINE_LIST_FAILED });
      }
    },
    stop() {
      stopped = true;
      if (pushTimer) clearTimeout(pushTimer);
    },
  };
}
