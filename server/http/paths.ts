/**
 * Request paths: the cheap check every request passes before any router sees it, and the one way to turn an
 * address a client sent (a form's redirectTo, a return path) into a redirect that stays on this site.
 */

/**
 * No route of ours needs a longer path or more segments (the deepest has six); Fastify's router already refuses a
 * parameter over 100 characters. Remix matches every prefix of the path to render any page, a cost that grows with
 * the segments (15,000 slashes: 0.4 s of CPU; 512 segments: 75 ms; docs/decisions/022), so longer paths stop here.
 */
export const MAX_PATH_LENGTH = 1024;
export const MAX_PATH_SEGMENTS = 32;

/** A request line in absolute form ("GET http://host/path"): the part before the path. */
const ABSOLUTE_FORM = /^[a-z][a-z\d+.-]*:\/\/[^/?]*/i;

/** A request target of the JSON API (its errors are JSON). */
export const isApiPath = (url: string) => url === "/api/v1" || url.startsWith("/api/v1/") || url.startsWith("/api/v1?");

export type PathCheck = { status: 414 } | { status: 308; location: string } | null;

/**
 * What to answer before routing, from the raw request target (Node's `req.url`): 414 for a path over
 * MAX_PATH_LENGTH characters or MAX_PATH_SEGMENTS segments; a redirect to the same path with runs of slashes (and
 * backslashes, which browsers read as slashes) collapsed, so "//evil.example" or "/\evil.example" never come back
 * as a Location that leaves the site; null to go on. The query string is kept as it is.
 */
export function checkRequestPath(url: string): PathCheck {
  const queryAt = url.indexOf("?");
  let path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.length > MAX_PATH_LENGTH) return { status: 414 };
  if (!path.startsWith("/")) path = path.replace(ABSOLUTE_FORM, "");
  if (segments(path) > MAX_PATH_SEGMENTS) return { status: 414 };
  if (!/\/\/|\\/.test(path)) return null;
  const collapsed = path.replace(/[/\\]+/g, "/");
  return { status: 308, location: asciiHeader(collapsed + (queryAt === -1 ? "" : url.slice(queryAt))) };
}

function segments(path: string): number {
  let count = 0;
  for (let i = 0; i < path.length; i++) if (path.charCodeAt(i) === 47 /* "/" */) count++;
  return count;
}

/** Node hands the request target over as latin1: a byte outside printable ASCII goes back percent-encoded. */
function asciiHeader(value: string): string {
  return value.replace(/[^\x21-\x7e]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`);
}

const LOCAL = "http://local.invalid";

/**
 * A path on this site to redirect to, from an address the client sent, or `fallback`. Resolved the way a browser
 * resolves a Location, so disguises ("/\evil.example", "/<tab>/evil.example", "/.//evil.example", which browsers
 * read as //evil.example) never leave the site; runs of slashes are collapsed as checkRequestPath does.
 */
export function safeLocalPath(target: unknown, fallback = "/"): string {
  if (typeof target !== "string" || !target.startsWith("/")) return fallback;
  let url: URL;
  try {
    url = new URL(target, LOCAL);
  } catch {
    return fallback;
  }
  if (url.origin !== LOCAL) return fallback;
  const path = url.pathname.replace(/\/{2,}/g, "/");
  if (path.length > MAX_PATH_LENGTH) return fallback;
  return `${path}${url.search}${url.hash}`;
}
