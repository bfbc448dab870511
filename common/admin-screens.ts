// Run by the browser (the layout's 500 ms topic check) and the server (the layout's loader), the tests and the benches.

/**
 * The admin screens of SPEC §2/§6, by the first part of their address: one list for the topic rule below, the
 * authorization matrix, the accessibility walk and the bandwidth bench. A new admin screen is added here, and the
 * matrix test fails until it is (every route it classifies "admin" must start with one of these).
 */
export const ADMIN_SCREENS = [
  "/loadedbases",
  "/importbase",
  "/exportbase",
  "/searchlead",
  "/donotcall",
  "/basesettings",
  "/edit-statuses",
  "/managers",
  "/users",
  "/access-log",
  "/scripts",
  "/leadTemplate",
  "/payments",
  "/quality",
  "/integrations",
] as const;

/** Pages a manager with no topic may still open (SPEC §2 redirect rules; /auth lives outside the layout). */
const OPEN_WITHOUT_TOPIC = new Set(["/getFilters", "/profile", "/"]);

/** The address without a trailing slash (but "/"). */
const plainPath = (pathname: string) => (pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname);

/** Whether this address is an admin screen or lies under one (/scripts/view/… is a manager's: see below). */
export function isAdminScreen(pathname: string): boolean {
  const path = plainPath(pathname);
  // A topic's script, opened from the lead panel, is the manager's own page under /scripts.
  if (path.startsWith("/scripts/view/")) return false;
  return ADMIN_SCREENS.some((screen) => path === screen || path.startsWith(`${screen}/`));
}

/**
 * SPEC §2: a user whose gettingFilter is 0 or empty goes to /getFilters from any other page. Managers only:
 * an admin is never forced there (on a fresh install no topic exists yet and he must reach /loadedbases). A
 * manager keeps getting an admin screen's 403 (DESIGN §5), topic or not, rather than being told to choose a topic
 * for a page he may never open.
 */
export function mustChooseTopic(user: { isAdmin: boolean; gettingFilter: number | null }, pathname: string): boolean {
  if (user.isAdmin || (user.gettingFilter ?? 0) > 0) return false;
  const path = plainPath(pathname);
  if (isAdminScreen(path)) return false;
  return !OPEN_WITHOUT_TOPIC.has(path) && !path.startsWith("/auth");
}
