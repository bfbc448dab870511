// The _app layout route's server-only imports (README.md here).
export { redirect } from "@remix-run/node";
export { actorOf, clearSessionCookieHeader, listScriptsForUser, presentSessionUser, readSessionToken, requireUser } from "../auth.server";
export { breakState } from "../breaks.server";
export { callbackCounts } from "../leads.server";
