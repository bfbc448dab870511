import type { Page } from "playwright-core";

/**
 * Test and bench instrumentation only: keeps every RTCPeerConnection the page makes in `window.__pcs`, to read its
 * getStats(). Given as source text, so no compiler's helpers (tsx's keepNames) end up in the page.
 */
export async function watchPeerConnections(page: Page): Promise<void> {
  await page.addInitScript({
    content: `(() => {
      const Original = window.RTCPeerConnection;
      const all = [];
      window.__pcs = all;
      window.RTCPeerConnection = class extends Original {
        constructor(...args) {
          super(...args);
          all.push(this);
        }
      };
    })();`,
  });
}
