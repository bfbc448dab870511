import { useRevalidator } from "@remix-run/react";
import { useEffect } from "react";

/** Re-runs the page's loaders every `ms` while the tab is visible (SPEC §9 polls). */
export function useRevalidateEvery(ms: number) {
  const revalidator = useRevalidator();
  useEffect(() => {
    const timer = setInterval(() => {
      if (document.visibilityState === "visible" && revalidator.state === "idle") revalidator.revalidate();
    }, ms);
    return () => clearInterval(timer);
  }, [ms, revalidator]);
}
