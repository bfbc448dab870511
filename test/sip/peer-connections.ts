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

/**
 * Bench instrumentation: notes in `window.__phases` when (Date.now(), the host's clock) each step between a click on
 * Позвонить and the INVITE leaving happens: the microphone asked and given, the offer made and set, ICE gathering
 * done, and each INVITE (the first, then the one with credentials) and SIP answer over the WebSocket.
 */
export async function watchCallPhases(page: Page): Promise<void> {
  await page.addInitScript({
    content: `(() => {
      const phases = [];
      window.__phases = phases;
      const note = (name) => phases.push({ name, at: Date.now() });
      document.addEventListener("click", (event) => {
        if (event.target.closest && event.target.closest("[data-testid=call-button]")) note("click");
      }, true);
      const devices = navigator.mediaDevices;
      const getUserMedia = devices.getUserMedia.bind(devices);
      devices.getUserMedia = async (...args) => {
        note("getUserMedia asked");
        const stream = await getUserMedia(...args);
        note("getUserMedia given");
        return stream;
      };
      const Original = window.RTCPeerConnection;
      window.RTCPeerConnection = class extends Original {
        constructor(...args) {
          note("peer connection made");
          super(...args);
          this.addEventListener("icegatheringstatechange", () => {
            if (this.iceGatheringState === "complete") note("ICE gathering complete");
          });
          let first = true;
          this.addEventListener("icecandidate", (event) => {
            if (event.candidate && first) {
              first = false;
              note("first ICE candidate");
            }
          });
        }
        async createOffer(...args) {
          const offer = await super.createOffer(...args);
          note("offer made");
          return offer;
        }
        async setLocalDescription(...args) {
          await super.setLocalDescription(...args);
          note("offer set");
        }
      };
      const send = WebSocket.prototype.send;
      WebSocket.prototype.send = function (data) {
        if (typeof data === "string" && data.startsWith("INVITE ")) {
          note(/^Proxy-Authorization:|^Authorization:/m.test(data) ? "INVITE with credentials sent" : "INVITE sent");
        }
        return send.call(this, data);
      };
      const Socket = window.WebSocket;
      window.WebSocket = class extends Socket {
        constructor(...args) {
          super(...args);
          this.addEventListener("message", (event) => {
            const head = typeof event.data === "string" ? event.data.slice(0, 40) : "";
            if (/^SIP\\/2.0 (100|407|401)/.test(head) && /INVITE/.test(event.data.match(/^CSeq:.*$/m)?.[0] ?? "")) note("answer " + head.slice(8, 11));
          });
        }
      };
    })();`,
  });
}
