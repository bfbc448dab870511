/**
 * A cookie-authenticated write must come from our own pages: the Origin header (sent by browsers on every
 * POST and WebSocket) must name the host the request was sent to. No Origin (curl, old clients) is allowed,
 * since a browser making a cross-site request always sends one; "null" (sandboxed frames, some redirects) is not.
 *
 * Behind a reverse proxy that rewrites Host, the public host arrives in X-Forwarded-Host: it is accepted as well.
 * A cross-site page cannot add that header to a form post or a WebSocket (custom headers need a CORS preflight
 * we never grant), so trusting it does not open a way around the check (docs/decisions/011).
 */
export function sameOrigin(origin: string | undefined, host: string | undefined, forwardedHost?: string | string[] | undefined): boolean {
  if (!origin) return true;
  const forwarded = (Array.isArray(forwardedHost) ? forwardedHost.join(",") : (forwardedHost ?? ""))
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const hosts = [host?.toLowerCase(), ...forwarded].filter((h): h is string => Boolean(h));
  if (origin === "null" || hosts.length === 0) return false;
  try {
    return hosts.includes(new URL(origin).host.toLowerCase());
  } catch {
    return false;
  }
}
