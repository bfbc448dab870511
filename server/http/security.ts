import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import helmet from "helmet";
import type { AppConfig } from "../config";

type Res = ServerResponse & { locals?: Record<string, unknown> };

/** Where the browser may open WebSockets besides our own origin: the softphone's SIP server. */
function sipOrigin(sipWsUrl: string): string[] {
  try {
    return sipWsUrl ? [new URL(sipWsUrl).origin.replace(/^http/, "ws")] : [];
  } catch {
    return [];
  }
}

/**
 * Security headers for every answer (pages and API), through helmet: a CSP whose inline scripts need this
 * response's nonce (Remix and React write them with it, see app/entry.server.tsx), no framing, nosniff,
 * a strict referrer policy. HSTS only when the app says it is served over HTTPS (COOKIE_SECURE).
 */
export function securityHeaders(config: AppConfig) {
  const headers = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", (_req, res) => `'nonce-${(res as Res).locals?.cspNonce}'`],
        // React style attributes, visx charts and the toast library's injected <style> need inline styles.
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", "data:", "blob:"],
        fontSrc: ["'self'", "data:"],
        // Without SIP_WS_URL the softphone uses SPEC's default wss://<SIP_DOMAIN>:443/ws (app/lib/softphone/config.ts).
        connectSrc: [
          "'self'",
          ...sipOrigin(config.publicSettings.sipWsUrl || (config.publicSettings.sipDomain ? `wss://${config.publicSettings.sipDomain}:443/ws` : "")),
        ],
        mediaSrc: ["'self'", "blob:", "mediastream:"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    strictTransportSecurity: config.cookieSecure ? { maxAge: 15552000 } : false,
    referrerPolicy: { policy: "same-origin" },
    // The old header for browsers without frame-ancestors: the same answer, no framing at all.
    xFrameOptions: { action: "deny" },
    crossOriginEmbedderPolicy: false,
  });
  return (req: IncomingMessage, res: Res, next: (error?: unknown) => void) => {
    res.locals = { ...(res.locals ?? {}), cspNonce: crypto.randomBytes(16).toString("base64") };
    headers(req, res, next);
  };
}
