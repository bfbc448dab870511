import { useEffect } from "react";

/**
 * Decision 088, the slow link: code a page needs only after it is interactive (a form's browser check with zod,
 * dialogs, toasts) is its own chunk, fetched once the page has hydrated instead of before. `lazyModule(() =>
 * import("./x"))` is that module: `loaded` once it is in (null before), `load()` to have it (one request however
 * often asked; a failed one is asked again next time).
 */
export interface LazyModule<T> {
  readonly loaded: T | null;
  load(): Promise<T>;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let loaded: T | null = null;
  let loading: Promise<T> | null = null;
  return {
    get loaded() {
      return loaded;
    },
    load() {
      loading ??= importer().then(
        (module) => (loaded = module),
        (error: unknown) => {
          loading = null;
          throw error;
        },
      );
      return loading;
    },
  };
}

/** Fetches the modules once the page has hydrated (effects run after it), so they are in before they are needed. */
export function useLoadAfterHydration(...modules: LazyModule<unknown>[]) {
  useEffect(() => {
    // A chunk that fails here (the link dropped) is asked for again where it is needed.
    for (const module of modules) module.load().catch(() => {});
    // The modules are module-level constants.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}
