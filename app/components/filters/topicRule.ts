import { useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useRef } from "react";

/** Pages a manager with no topic may still open (SPEC §2 redirect rules; /auth lives outside the layout). */
const OPEN_WITHOUT_TOPIC = new Set(["/getFilters", "/profile", "/"]);

/**
 * The admin screens of SPEC §2/§6: a manager keeps getting their 403 (DESIGN §5), topic or not, rather than
 * being told to choose a topic for a page he may never open.
 */
const ADMIN_SCREENS = [
  "/loadedbases",
  "/importbase",
  "/exportbase",
  "/searchlead",
  "/basesettings",
  "/edit-statuses",
  "/managers",
  "/users",
  "/leadTemplate",
  "/payments",
];

/**
 * SPEC §2: a user whose gettingFilter is 0 or empty goes to /getFilters from any other page. Managers only:
 * an admin is never forced there (on a fresh install no topic exists yet and he must reach /loadedbases).
 */
export function mustChooseTopic(user: { isAdmin: boolean; gettingFilter: number | null }, pathname: string): boolean {
  if (user.isAdmin || (user.gettingFilter ?? 0) > 0) return false;
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  if (ADMIN_SCREENS.some((screen) => path === screen || path.startsWith(`${screen}/`))) return false;
  return !OPEN_WITHOUT_TOPIC.has(path) && !path.startsWith("/auth");
}

/** SPEC §9: the same check in the browser every 500 ms while gettingFilter is 0. */
export function useTopicRedirect(user: { isAdmin: boolean; gettingFilter: number | null }) {
  const location = useLocation();
  const navigate = useNavigate();
  const latest = useRef({ user, pathname: location.pathname });
  latest.current = { user, pathname: location.pathname };
  const waiting = !user.isAdmin && (user.gettingFilter ?? 0) <= 0;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => {
      const { user: current, pathname } = latest.current;
      if (mustChooseTopic(current, pathname)) navigate("/getFilters", { replace: true });
    }, 500);
    return () => clearInterval(timer);
  }, [waiting, navigate]);
}
