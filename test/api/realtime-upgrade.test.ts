import type { AddressInfo } from "node:net";
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { useTestApp } from "../helpers/app";

let url: string;
const t = useTestApp();
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/realtime`;
});

/** Resolves "open" or the HTTP status the server refused the upgrade with. */
function connect(headers: Record<string, string> = {}): Promise<{ outcome: "open" | number; ws: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on("open", () => resolve({ outcome: "open", ws }));
    ws.on("unexpected-response", (_req, res) => resolve({ outcome: res.statusCode ?? 0, ws }));
    ws.on("error", () => {});
  });
}

describe("/realtime upgrade", () => {
  it("refuses a socket without a session", async () => {
    const { outcome } = await connect();
    expect(outcome).toBe(401);
  });

  it("accepts a socket with a bearer token", async () => {
    const token = await t.adminToken();
    const { outcome, ws } = await connect({ Authorization: `Bearer ${token}` });
    expect(outcome).toBe("open");
    ws.close();
  });

  it("accepts the session cookie from our own origin and refuses it from another", async () => {
    const token = await t.adminToken();
    const host = new URL(url).host;
    const own = await connect({ Cookie: `session=${token}`, Origin: `http://${host}` });
    expect(own.outcome).toBe("open");
    own.ws.close();
    const foreign = await connect({ Cookie: `session=${token}`, Origin: "https://evil.example" });
    expect(foreign.outcome).toBe(401);
  });
});
