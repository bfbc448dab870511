// The lead panel route's server-only imports (README.md here).
export { actorOf, requireUser } from "../auth.server";
export { loadLeadPanel } from "../leads.server";
export { callbackTimesNow, pressAction } from "../press.server";
