// Run by the browser (the lead panel's script), the server (server/web.ts) and the paint bench.

/**
 * Where the lead panel's script sends a status press (decision 065), and the Remix route module that serves it
 * (app/routes/leadpanel.press.ts, whose file name makes the path): server/web.ts calls that module outside Remix's
 * request handler (decision 068). test/api/leadpanel-press-pages.test.ts posts to this path.
 */
export const PRESS_PATH = "/leadpanel/press";
export const PRESS_ROUTE_ID = "routes/leadpanel.press";
