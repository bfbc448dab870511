import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One event a receiver accepted: its `webhook-id`, type and data, after its signature checked out. */
export interface ReceivedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * A CRM's receiver (issue 44): a real HTTP server on a loopback port that checks every delivery's signature with the
 * standardwebhooks library and keeps the events it accepted; a bad signature is answered 400 and kept apart.
 */
export async function startWebhookReceiver() {
  const receiver = {
    /** The webhook's secret (`whsec_…`), set once the webhook is made. */
    secret: "",
    accepted: [] as ReceivedEvent[],
    badSignatures: [] as string[],
    url: "",
    server: null as http.Server | null,
    /** Resolves with the first accepted event that `match` picks, polling until `ms` have passed. */
    async waitFor(what: string, match: (event: ReceivedEvent) => boolean, ms = 30_000): Promise<ReceivedEvent> {
      const end = Date.now() + ms;
      for (;;) {
        const found = receiver.accepted.find(match);
        if (found) return found;
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}; got ${receiver.accepted.map((e) => e.type).join(", ")}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    stop: () =>
      new Promise<void>((resolve) => {
        receiver.server?.closeAllConnections();
        receiver.server?.close(() => resolve());
      }),
  };
  receiver.server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => (body += chunk));
    req.on("end", () => {
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      try {
        const event = new Webhook(receiver.secret).verify(body, headers) as { type: string; data: Record<string, unknown> };
        receiver.accepted.push({ id: headers["webhook-id"], type: event.type, data: event.data });
        res.writeHead(200).end("ok");
      } catch {
        receiver.badSignatures.push(body);
        res.writeHead(400).end("bad signature");
      }
    });
  });
  await new Promise<void>((resolve) => receiver.server!.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
  return receiver;
}
