import { lazy, useEffect, type ComponentType } from "react";
import { afterStylesheet } from "./stylesheet-complete";

/**
 * Decision 088, the slow link: code a page needs only after it is interactive (a form's browser check with zod,
 * dialogs, toasts) is its own chunk, fetched once the page has hydrated instead of before. `lazyModule(() =>
 * import("./x"))` is that module: `loaded` once it is in (null before), `load()` to have it (one request however
 * often asked; a failed one is asked again next time). In a browser's first page it is in once the whole
 * stylesheet is too (decision 093): what it draws is never drawn unstyled.
 */
export interface LazyModule<T> {
  readonly loaded: T | null;
  load(): Promise<T>;
  /**
   * The module a page hydrates with (app/lib/before-hydration.ts): what it draws the server drew, styled by the
   * document's part of the stylesheet, so not held for the whole file, which is linked only once hydrated.
   */
  loadForHydration(): Promise<T>;
}

export function lazyModule<T>(importer: () => Promise<T>): LazyModule<T> {
  let loaded: T | null = null;
  let loading: Promise<T> | null = null;
  const start = (styled: boolean) => {
    loading ??= (styled ? afterStylesheet(importer()) : importer()).then(
      (module) => (loaded = module),
      (error: unknown) => {
        loading = null;
        throw error;
      },
    );
    return loading;
  };
  return {
    get loaded() {
      return loaded;
    },
    load: () => start(true),
    loadForHydration: () => start(false),
  };
}

/** Fetches the modules once the page has hydrated (effects run after it), so they are in before they are needed. */
export function useLoadAfterHydration(...modules: LazyModule<unknown>[]) {
  useEffect(() => {
    // Asked for in the next task, once the whole page's effects have run (a child's run before its parent's, and
    // the root's marks the page interactive): after hydration, not during it (test/e2e/slow-link saw a small chunk
    // asked for by a page's effect arrive before the root's mark under load). A chunk that fails here (the link
    // dropped) is asked for again where it is needed.
    const asking = setTimeout(() => {
      for (const module of modules) module.load().catch(() => {});
    }, 0);
    return () => clearTimeout(asking);
    // The modules are module-level constants.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
}

/**
 * A component of a lazy module (decision 091). Once the module is in it is drawn in the same render, never after a
 * suspension: on the server (`loadOnServer` has it in before the first request) it is drawn into the page as any
 * other. Before it is in, the component suspends. A page whose first render in the browser draws it (the server
 * drew it) must hydrate with the module in (app/lib/before-hydration.ts): a hydration that suspends on it does not
 * match the server's page, and React draws the page again; and in a <Suspense> it would be drawn again, empty until
 * the module is in, as soon as anything above it changed.
 */
export function lazyComponent<T, P extends object>(module: LazyModule<T>, pick: (loaded: T) => ComponentType<P>) {
  return lazy(() => {
    const loaded = module.loaded;
    if (!loaded) return module.load().then((value) => ({ default: pick(value) }));
    // React.lazy takes a thenable that answers at once as already resolved: no suspension.
    const resolved = { default: pick(loaded) };
    return { then: (resolve: (value: typeof resolved) => void) => resolve(resolved) } as unknown as Promise<typeof resolved>;
  });
}

/** Loads lazy modules with the module calling this when it runs on the server: its pages draw their components. */
export function loadOnServer(...modules: LazyModule<unknown>[]) {
  if (typeof document !== "undefined") return;
  for (const module of modules) module.load().catch(() => {});
}
