import { describe, expect, it } from "vitest";
import { startWebhookReceiver } from "../helpers/webhook-receiver";
import { buildXlsx, type Cell } from "../helpers/xlsx";
import { ADMIN, AROUND_THE_CLOCK, api, faultBackend, login, waitFor } from "./server";

/**
 * Fault (issue 44): the app killed with SIGKILL while its webhook queue is sending to a slow receiver. The events are
 * rows of the database, written with the press that made them, so after a restart on the same data every one of
 * them arrives: each id at least once (a delivery in flight at the kill may come twice, with the same id and body:
 * the at-least-once docs/integrations.md states), each client's events in the order they happened. Both backends.
 */
const PRESSES = 30;
const CONCURRENCY = 2;
const ENV = { WEBHOOK_TIMEOUT_MS: "5000", WEBHOOK_RETRY_BASE_MS: "200", WEBHOOK_POLL_MS: "50", WEBHOOK_CONCURRENCY: String(CONCURRENCY) };
const backend = faultBackend("webhook_kill");

describe("the webhook queue across a kill -9", () => {
  // 120 s: on Postgres the killed instance's claimed rows wait for their lock to run out (another instance may still
  // be sending them), the timeout times the four slots' worth claimed plus 30 s, 50 s here from the claim before the
  // kill; with the set-up before it, that is past the suite's 60 s a test.
  it("after the restart every press's event reaches the receiver, none lost, each client's in order", async () => {
    const receiver = await startWebhookReceiver({ slowMs: 400 });
    receiver.mode = "slow";
    try {
      let server = await backend.start({ env: ENV });
      const admin = await login(server, ADMIN);
      const rows: Cell[][] = [["ФИО", "Телефон"]];
      for (let i = 1; i <= PRESSES + 5; i++) rows.push([`Клиент ${i}`, `+38067${String(5_000_000 + i)}`]);
      const form = new FormData();
      form.append("name", "База вебхуков");
      form.append("mappings", JSON.stringify(["name", "phone"]));
      form.append("file", new Blob([new Uint8Array(await buildXlsx(rows))]), "база.xlsx");
      const base = await api(server, "POST", "/database/import", { token: admin, form });
      expect(base.status).toBe(200);
      const credentials = { login: "hookman", password: "Hookman-pass-1", accessKey: "HOOKMANKEY000001" };
      const created = await api(server, "POST", "/auth/register", { token: admin, body: { ...credentials, displayName: "Менеджер вебхуков" } });
      expect(created.status).toBe(201);
      const manager = { id: created.body.id as number, token: await login(server, credentials) };
      const statuses = (await api(server, "GET", "/status", { token: admin })).body as Array<{ id: number; text: string }>;
      const refusal = statuses.find((s) => s.text === "Отказ")!;
      // The topic works new clients only (a status it takes back that is not the one pressed): each press a new client.
      const other = statuses.find((s) => s.id !== refusal.id)!;
      const filter = await api(server, "POST", "/filters", {
        token: admin,
        body: { name: "Вебхуки", managers: [manager.id], databases: [base.body.id], statuses: [other.id], callingHours: AROUND_THE_CLOCK },
      });
      expect(filter.status, JSON.stringify(filter.body)).toBe(200);
      const filterId = filter.body.id as number;
      expect((await api(server, "POST", `/filters/${filterId}/${manager.id}/${credentials.login}`, { token: manager.token })).status).toBe(200);
      const hook = await api(server, "POST", "/webhooks", { token: admin, body: { url: receiver.url, events: ["status.pressed"] } });
      expect(hook.status).toBe(200);
      receiver.secret = hook.body.secret;

      // The manager works through 30 clients at his pace; the receiver takes 0.4 s an event, two at a time.
      let lead = (await api(server, "GET", `/database/filtered-lead?filterId=${filterId}&userId=${manager.id}`, { token: manager.token })).body.id;
      for (let i = 0; i < PRESSES; i++) {
        const next = await api(server, "PUT", "/status/update-and-get-lead", {
          token: manager.token,
          body: { statusId: refusal.id, contactId: lead, userId: manager.id, passport: "", filterId, clientInfo: "" },
        });
        expect(next.status, JSON.stringify(next.body)).toBe(200);
        lead = next.body.id;
      }
      // Killed with some events delivered, some being delivered, the rest waiting.
      await waitFor("the first deliveries", async () => receiver.accepted.length >= 3, 30_000, 20);
      expect(receiver.accepted.length).toBeLessThan(PRESSES);
      await server.kill9();
      const beforeRestart = receiver.accepted.length;

      receiver.mode = "ok";
      server = await backend.start({ env: ENV });
      const ids = () => new Set(receiver.accepted.map((e) => e.id));
      await waitFor("every press's event", async () => ids().size >= PRESSES, 60_000);
      expect(receiver.accepted.length).toBeGreaterThan(beforeRestart);
      expect(ids().size).toBe(PRESSES);
      expect(receiver.accepted.every((e) => e.type === "status.pressed")).toBe(true);
      // A repeat is a delivery sent before the kill and not yet written down: the same id with the same body.
      const byId = new Map<string, string>();
      for (const event of receiver.accepted) {
        const body = JSON.stringify(event.data);
        if (byId.has(event.id)) expect(byId.get(event.id)).toBe(body);
        byId.set(event.id, body);
      }
      // Repeats are only what was in flight (a slot each) or had ended in the moment before its attempt was written
      // (the worker writes every 20 ms: at 0.4 s an answer, one more a slot at most).
      expect(receiver.accepted.length - PRESSES).toBeLessThanOrEqual(2 * CONCURRENCY);
      // Thirty clients pressed once each; their events arrived in the order of the presses within each client.
      const clients = new Set(receiver.accepted.map((e) => e.client));
      expect(clients.size).toBe(PRESSES);
      expect(receiver.badSignatures).toEqual([]);
      await server.stop();
    } finally {
      await receiver.stop();
    }
  }, 120_000);
});
