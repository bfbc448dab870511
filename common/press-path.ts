// Run by the browser (the lead panel's script), the server (server/web.ts) and the paint bench.

/**
 * Where the lead panel's script sends a status press (decision 065). server/web.ts serves it with the `press` that
 * the Remix build's entry module exports (app/press.server.ts), outside Remix's request handler (decision 068).
 */
export const PRESS_PATH = "/leadpanel/press";
