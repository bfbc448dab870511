import { forbidden } from "../core/errors";

/** What the /realtime socket speaks and the limits it keeps: shared by the hub's parts and named in one place. */

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
export const ONLINE_LIST_FAILED = "Не удалось получить список пользователей онлайн";

/** A message on the socket: `{ event, data }` both ways. */
export interface RealtimeMessage {
  event: string;
  data?: unknown;
}

/**
 * Client → server: updateStatus, getUsersOnline. Server → client: usersOnline, forceLogout, error, callbacksDue,
 * whisper and whisperEnded (an admin's whisper into the user's call starts or ends), listenEnded (an admin's listening
 * or whisper ended without his «Стоп»: the call ended; with the reason to show).
 */
export type ClientEvent = "updateStatus" | "getUsersOnline";
export type ServerEvent = "usersOnline" | "forceLogout" | "error" | "callbacksDue" | "whisper" | "whisperEnded" | "listenEnded";
