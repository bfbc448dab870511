import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import type { User } from "../../db/schema";
import type { SessionStore } from "../core/auth/ports";
import { readCookie, SESSION_COOKIE } from "../http/cookies";
import { sameOrigin } from "../http/origin";

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
 * Who asks for a socket: a bearer token (other clients), or the session cookie (browser; only when the Origin
 * matches, so another site's page cannot open a socket with the user's cookie). Null: nobody we know.
 */
export async function authenticate(sessions: SessionStore, request: IncomingMessage): Promise<{ user: User; token: string } | null> {
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

/** Answers an upgrade request with a plain HTTP status (and a Russian text for the user, if any), then closes. */
export function refuse(socket: Duplex, status: number, text: string, body = "") {
  const bytes = Buffer.from(body, "utf8");
  socket.once("finish", () => socket.destroy());
  socket.end(
    Buffer.concat([
      Buffer.from(
        `HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\n` + `Content-Length: ${bytes.length}\r\n\r\n`,
      ),
      bytes,
    ]),
  );
}
