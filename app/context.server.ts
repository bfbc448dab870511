import type { AppDeps } from "#server/deps";

declare module "@remix-run/node" {
  interface AppLoadContext {
    deps: AppDeps;
    /** This response's Content-Security-Policy nonce for inline scripts. */
    cspNonce: string;
    /** The client's address (server/http/client-address.ts), for login throttling. */
    clientAddress: string;
    /** This request's logger: JSON lines with its reqId (server/http/observe.ts); absent in a bare Express test. */
    log?: import("fastify").FastifyBaseLogger;
    /** Set by entry.server's handleError when a loader or action could not reach the database. */
    databaseUnavailable?: boolean;
  }
  interface Future {
    v3_singleFetch: true;
  }
}

export type { AppDeps };
