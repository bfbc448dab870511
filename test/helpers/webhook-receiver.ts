import http from "node:http";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";

/** One event a receiver accepted: its `webhook-id`, type and data, after its signature checked out. */
export interface ReceivedEvent {
  id: string;
  type: string;
  data: Record<string, unknown>;
  /** A press's client id and lead event id (null for other events), for the order per client. */
  client: number | null;
  eventId: number | null;
}

/** How the receiver answers a delivery whose signature checked out: at once, 500, or after `slowMs`. */
export type ReceiverMode = "ok" | "500" | "slow";

/**
 * A CRM's receiver (issue 44): a real HTTP server on a loopback port that checks every delivery's signature with the
 * standardwebhooks library and keeps the events it accepted; a bad signature is answered 400 and kept apart. It may
 * answer 500 or slowly (`mode`), and `stop()` then `start()` takes it down and back on the same port.
 */
export async function startWebhookReceiver(options: { slowMs?: number } = {}) {
  let server: http.Server | null = null;
  let port = 0;
  const receiver = {
    /** The webhook's secret (`whsec_…`), set once the webhook is made. */
    secret: "",
    mode: "ok" as ReceiverMode,
    slowMs: options.slowMs ?? 3000,
    accepted: [] as ReceivedEvent[],
    badSignatures: [] as string[],
    url: "",
    /** Listens (again) on its port. */
    async start() {
      server = http.createServer((req, res) => {
        let body = "";
        req.on("data", (chunk) => (body += chunk));
        req.on("end", () => {
          const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
          let event: { type: string; data: { client?: { id: number }; eventId?: number } & Record<string, unknown> };
          try {
            event = new Webhook(receiver.secret).verify(body, headers) as typeof event;
          } catch {
            receiver.badSignatures.push(body);
            res.writeHead(400).end("bad signature");
            return;
          }
          const answer = () => {
            if (receiver.mode === "500") return res.writeHead(500, { "Content-Type": "text/plain" }).end("Внутренняя ошибка CRM");
            receiver.accepted.push({
              id: headers["webhook-id"],
              type: event.type,
              data: event.data,
              client: event.data.client?.id ?? null,
              eventId: event.data.eventId ?? null,
            });
            res.writeHead(200).end("ok");
          };
          if (receiver.mode === "slow") setTimeout(answer, receiver.slowMs);
          else answer();
        });
      });
      await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
      port = (server.address() as AddressInfo).port;
      receiver.url = `http://127.0.0.1:${port}/hook`;
    },
    /** Goes down: open connections are cut, new ones refused. */
    stop: () =>
      new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
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
  };
  await receiver.start();
  return receiver;
}
