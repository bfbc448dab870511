// Decision 094: every entry point that draws reaches the toasts' module (and with it the lazy modules' loader and
// the hydrated flag), so that these, React and Remix make one chunk: without this line they were three files.
import "./components/ui/Toasts";
import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
// The type alone: a module the entry and a route both import would be a chunk of its own on every page.
import type { BeforeHydration } from "./lib/before-hydration";

/**
 * Remix's browser entry, with one change (decision 091): a route module may ask for a chunk it fetches after
 * hydration to be in before it (app/lib/before-hydration.ts), when the page the server drew shows what that chunk
 * draws (the lead panel's question to a press posted before the page's script ran). The page then hydrates once
 * it is in, with every component as the server drew it; otherwise at once, as Remix's own entry does.
 */
function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <RemixBrowser />
      </StrictMode>,
    );
  });
}

const pending = (window as BeforeHydration).__beforeHydration;
if (pending?.length) void Promise.allSettled(pending).then(hydrate);
else hydrate();
