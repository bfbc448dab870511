import { useEffect, useState } from "react";

/** Once the app has hydrated, what mounts later (a dialog opened by client navigation) is hydrated from its first frame. */
let appHydrated = false;

/**
 * False on the server and in the first browser render, true once React has hydrated (controls that need JavaScript
 * show from then on). The one flag of the app: its own module, so a page takes it without the dialog's code.
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(appHydrated);
  useEffect(() => {
    appHydrated = true;
    setHydrated(true);
  }, []);
  return hydrated;
}
