import type { AddressInfo } from "node:net";
import { sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { bearer, createUser, useTestApp } from "../helpers/app";
import { createBase, createFilterRow } from "../helpers/leads";

/**
 * Issue 18: when a callback falls due its manager is told at once through the realtime hub, on whatever page is
 * open (the socket), with the menu's count; other managers are not told.
 */
let url: string;
const t = useTestApp({ env: { CALLBACK_NOTIFY_MS: "200" } });
beforeAll(async () => {
  await t.app.listen({ port: 0, host: "127.0.0.1" });
  url = `ws://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/realtime`;
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the hub's events as JSON, read field by field
type HubEvent = { event: string; data: any };

function listen(token: string): Promise<{ ws: WebSocket; events: HubEvent[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: bearer(token) });
    const events: HubEvent[] = [];
    ws.on("message", (raw) => events.push(JSON.parse(raw.toString())));
    ws.on("open", () => resolve({ ws, events }));
    ws.on("unexpected-response", (_q, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
    ws.on("error", () => {});
  });
}

async function until(check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("callbacks on the realtime hub", () => {
  it("tells the manager (a toast's text and the menu's count) when his callback falls due, and nobody else", async () => {
    const admin = await t.adminToken();
    const status = await t.request.post("/api/v1/status").set(bearer(admin)).send({ text: "Перезвон", asksCallback: true });
    expect(status.body.asksCallback).toBe(true);
    const { base } = await createBase(t.db, { count: 3, prefix: "Звонок" });
    const a = await createUser(t.db);
    const b = await createUser(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [a.user.id, b.user.id], databaseIds: [base.id], statusIds: [] });
    const aToken = await t.tokenFor(a);
    const lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${a.user.id}`).set(bearer(aToken));
    const pressed = await t.request
      .put("/api/v1/status/update-and-get-lead")
      .set(bearer(aToken))
      .send({
        statusText: "Перезвон",
        contactId: lead.body.id,
        userId: a.user.id,
        filterId: filter.id,
        callbackAt: new Date(Date.now() + 3600_000).toISOString(),
      });
    expect(pressed.status).toBe(200);

    const aSocket = await listen(aToken);
    const bSocket = await listen(await t.tokenFor(b));
    // Not yet due: nothing is said.
    await new Promise((r) => setTimeout(r, 600));
    expect(aSocket.events.filter((e) => e.event === "callbacksDue")).toEqual([]);
    // Its time comes.
    await t.db.execute(sql`update callbacks set due_at = now() where contact_id = ${lead.body.id}`);
    await until(() => aSocket.events.some((e) => e.event === "callbacksDue"));
    const told = aSocket.events.filter((e) => e.event === "callbacksDue");
    expect(told).toHaveLength(1);
    expect(told[0].data.due).toBe(1);
    expect(told[0].data.callbacks).toEqual([expect.objectContaining({ name: lead.body.name, phone: lead.body.phone })]);
    // Said once, not on every beat; and never to B.
    await new Promise((r) => setTimeout(r, 600));
    expect(aSocket.events.filter((e) => e.event === "callbacksDue")).toHaveLength(1);
    expect(bSocket.events.filter((e) => e.event === "callbacksDue")).toEqual([]);
    aSocket.ws.close();
    bSocket.ws.close();
  });
});
