/**
 * Decision 091: what the browser entry (app/entry.client.tsx) waits for before it hydrates the page. A window
 * property the entry reads (it imports only this type): a module the entry and a route both import would be a chunk
 * of its own on every page.
 */
export type BeforeHydration = Window & { __beforeHydration?: Promise<unknown>[] };

/** Has the page hydrate only once `loading` is done (called by a route module as it runs, before hydration). */
export function holdHydration(loading: Promise<unknown>) {
  const page = window as BeforeHydration;
  (page.__beforeHydration ??= []).push(loading);
}
