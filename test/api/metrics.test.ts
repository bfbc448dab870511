import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer, createTestApp, createUser, getPage, type TestApp } from "../helpers/app";
import { createBase, createFilterRow, statusesByText } from "../helpers/leads";

/** The value of one series in Prometheus' text format (0 when the series is not there yet). */
function series(text: string, name: string, labels: Record<string, string>): number {
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const inside = line.slice(name.length + 1, line.indexOf("}"));
    if (Object.entries(labels).every(([key, value]) => inside.includes(`${key}="${value}"`))) return Number(line.split(" ").pop());
  }
  return 0;
}

describe("/metrics", () => {
  let t: TestApp;
  let adminToken: string;
  beforeAll(async () => {
    t = await createTestApp({ web: true });
    adminToken = await t.tokenFor(ADMIN);
  });
  afterAll(async () => t?.close());

  it("asks for a token from an address METRICS_ADDRESSES does not name, and refuses a manager's", async () => {
    const anonymous = await t.request.get("/metrics");
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.message).toBe("Нужен токен администратора");
    const manager = await createUser(t.db);
    const refused = await t.request.get("/metrics").set(bearer(await t.tokenFor(manager)));
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("Метрики доступны только администратору");
  });

  it("counts requests per route pattern (API and pages), lead turns and misses, and realtime connections", async () => {
    const manager = await createUser(t.db);
    const token = await t.tokenFor(manager);
    const { contacts: rows, base } = await createBase(t.db, { count: 1 });
    const s = await statusesByText(t.db);
    const filter = await createFilterRow(t.db, { managerIds: [manager.user.id], databaseIds: [base.id], statusIds: [s["Перезвонить"].id] });
    const before = (await t.request.get("/metrics").set(bearer(adminToken))).text;

    const lead = await t.request.get(`/api/v1/database/filtered-lead?filterId=${filter.id}&userId=${manager.user.id}`).set(bearer(token));
    expect(lead.body.id).toBe(rows[0].id);
    const press = await t.request
      .put("/api/v1/status/update-and-get-lead")
      .set(bearer(token))
      .send({ statusText: "Отказ", contactId: rows[0].id, userId: manager.user.id, passport: "", filterId: filter.id, clientInfo: "" });
    expect(press.status).toBe(200);
    await getPage(t, "/auth");
    await getPage(t, "/exportbase/123/download");

    const res = await t.request.get("/metrics").set(bearer(adminToken));
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/plain/);
    const after = res.text;
    const delta = (name: string, labels: Record<string, string>) => series(after, name, labels) - series(before, name, labels);
    expect(delta("leaddesk_lead_turns_total", { outcome: "lead" })).toBe(1);
    // The only contact is worked: the press found nothing next, an allocation miss.
    expect(delta("leaddesk_lead_turns_total", { outcome: "none" })).toBe(1);
    expect(delta("leaddesk_http_requests_total", { route: "/api/v1/status/update-and-get-lead", method: "PUT", status: "200" })).toBe(1);
    expect(delta("leaddesk_http_requests_total", { route: "/auth", method: "GET", status: "200" })).toBe(1);
    // A page path's numbers become :id, so each export's download is one series.
    expect(series(after, "leaddesk_http_requests_total", { route: "/exportbase/:id/download", method: "GET" })).toBeGreaterThan(0);
    expect(after).toContain(
      'leaddesk_http_request_duration_seconds_bucket{le="0.005",app="leaddesk",route="/api/v1/status/update-and-get-lead",method="PUT"}',
    );
    expect(after).toMatch(/^leaddesk_realtime_connections\{app="leaddesk"\} 0$/m);
    expect(after).toMatch(new RegExp(`^leaddesk_db_pool_size\\{app="leaddesk"\\} ${t.handle.kind === "pglite" ? 1 : "\\d+"}$`, "m"));
    expect(after).toContain("leaddesk_process_resident_memory_bytes");
    // On Postgres the app's own connections are counted by state (the scrape's query is one of them).
    if (t.handle.kind === "postgres") expect(series(after, "leaddesk_db_connections", {})).toBeGreaterThan(0);
  });

  it("keeps unknown paths in one series, so a scanner cannot grow them without end", async () => {
    await getPage(t, "/no-such-page-1");
    await getPage(t, "/no-such-page-2");
    await t.request.get("/api/v1/no-such-route");
    const text = (await t.request.get("/metrics").set(bearer(adminToken))).text;
    expect(text).not.toContain("no-such");
    expect(series(text, "leaddesk_http_requests_total", { route: "unmatched", status: "404" })).toBeGreaterThanOrEqual(3);
  });

  it("sends every answer's request id in X-Request-Id, pages and API alike, each its own", async () => {
    const page = await getPage(t, "/auth");
    const api = await t.request.get("/api/v1/health");
    expect(page.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(api.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(page.headers["x-request-id"]).not.toBe(api.headers["x-request-id"]);
    // Without a proxy of ours in front (TRUST_PROXY=0) a client cannot choose the id.
    const chosen = await t.request.get("/api/v1/health").set("X-Request-Id", "client-chose-this");
    expect(chosen.headers["x-request-id"]).not.toBe("client-chose-this");
  });
});

describe("/metrics from a configured address", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { METRICS_ADDRESSES: "10.0.0.0/8, 127.0.0.1", TRUST_PROXY: "1" } });
  });
  afterAll(async () => t?.close());

  it("answers Prometheus without a token, and a proxy's request id is kept", async () => {
    const res = await t.request.get("/metrics");
    expect(res.status).toBe(200);
    expect(res.text).toContain("leaddesk_http_requests_total");
    const proxied = await t.request.get("/api/v1/health").set("X-Request-Id", "caddy-1234");
    expect(proxied.headers["x-request-id"]).toBe("caddy-1234");
    // Behind the proxy the client's own address counts: one outside the list needs a token.
    const outside = await t.request.get("/metrics").set("X-Forwarded-For", "203.0.113.7");
    expect(outside.status).toBe(401);
  });

  it("refuses to start with an address it cannot read", async () => {
    await expect(createTestApp({ env: { METRICS_ADDRESSES: "localhost" } })).rejects.toThrow("Неверный адрес в METRICS_ADDRESSES: localhost");
  });
});
