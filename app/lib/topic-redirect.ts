import { useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { mustChooseTopic } from "../../common/admin-screens";

/** SPEC §9: the layout's check in the browser every 500 ms while gettingFilter is 0 (the rule is common/'s). */
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
