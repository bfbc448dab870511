import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * Did the browser reach us over HTTPS? TLS on our own socket, or a proxy in front saying so in X-Forwarded-Proto
 * or Forwarded. Trusting the proxy headers here is safe: they can only make cookies stricter (a spoofed "https"
 * costs the spoofer his own session over plain HTTP). docs/decisions/011.
 */
export function cameOverHttps(request: IncomingMessage): boolean {
  if ((request.socket as { encrypted?: boolean } | undefined)?.encrypted) return true;
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(",") : (value ?? "");
  };
  if (header("x-forwarded-proto").split(",")[0].trim().toLowerCase() === "https") return true;
  return /(^|[;,\s])proto=("?)https\2(?=$|[;,\s])/i.test(header("forwarded"));
}

/**
 * Every cookie the pages set (session, theme, flash) is Secure when the app says it is served over HTTPS
 * (COOKIE_SECURE) or this request came over HTTPS: one rule at the edge instead of one per cookie. Applied when
 * the head is written, since Remix appends its response's Set-Cookie headers late.
 */
export function secureCookies(always: boolean) {
  return (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    if (!always && !cameOverHttps(req)) return next();
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
      // Remix sets its headers with res.append (setHeader) before the head is written.
      const set = this.getHeader("Set-Cookie");
      if (set !== undefined) this.setHeader("Set-Cookie", withSecure(set as string | string[]));
      return writeHead.apply(this, args);
    } as ServerResponse["writeHead"];
    next();
  };
}

function withSecure<T extends string | string[]>(value: T): T {
  const one = (cookie: string) => (/;\s*secure\s*(;|$)/i.test(cookie) ? cookie : `${cookie}; Secure`);
  return (Array.isArray(value) ? value.map(one) : one(value)) as T;
}
