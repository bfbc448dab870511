import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb, queryRows } from "../../db/client";
import { ADMIN, api, faultBackend, login, sleep } from "./server";

/**
 * Issue 44: an API key is shown once and never kept in clear: not in the server's log (`npm start`'s JSON lines, at
 * its most talkative level) and not in any table, after it was created, used, refused and revoked.
 */
describe("an API key's text", () => {
  const backend = faultBackend("apikeys");

  it("appears in no log line and in no row of any table", async () => {
    const server = await backend.start({ env: { LOG_LEVEL: "debug" } });
    const admin = await login(server, ADMIN);
    const made = await api(server, "POST", "/api-keys", { token: admin, body: { name: "Битрикс24", scopes: ["read"] } });
    expect(made.status).toBe(200);
    const key: string = made.body.key;
    expect(key).toMatch(/^ldk_[A-Za-z0-9_-]{43}$/);

    expect((await api(server, "GET", "/status", { token: key })).status).toBe(200);
    const refused = await api(server, "POST", "/links", { token: key, body: { name: "x", link: "https://example.com", isActive: false } });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe("У этого ключа API нет права «Администрирование»");
    // A key one character off is refused too, and logged like any refusal.
    const forged = `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    expect((await api(server, "GET", "/status", { token: forged })).status).toBe(401);
    expect((await api(server, "DELETE", `/api-keys/${made.body.apiKey.id}`, { token: admin })).status).toBe(200);
    expect((await api(server, "GET", "/status", { token: key })).status).toBe(401);
    await sleep(300); // a request's line is written when its answer ends
    await server.stop();

    // Any 12 characters of the key past its «ldk_»: the shown prefix is 6 of them, so 12 in a row is more than it.
    const secret = key.slice(4);
    const pieces = Array.from({ length: secret.length - 11 }, (_, i) => secret.slice(i, i + 12));
    const leaks = (text: string) => pieces.filter((p) => text.includes(p));
    expect(leaks(JSON.stringify(made.body))).toEqual(pieces); // the one place it is shown: the check sees it there

    const log = server.output();
    const lines = log.split("\n").filter((line) => line.startsWith("{"));
    // The log did record these requests (a test of an empty log would prove nothing).
    expect(lines.filter((line) => line.includes('"path":"/api/v1/status"')).length).toBeGreaterThanOrEqual(3);
    expect(lines.some((line) => line.includes('"status":403'))).toBe(true);
    expect(leaks(log)).toEqual([]);

    const handle = await createDb({ databaseUrl: backend.pg?.url, dataDir: backend.pg ? undefined : backend.dataDir, poolSize: 1 });
    try {
      const tables = await queryRows<{ name: string }>(
        handle.db,
        sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`,
      );
      expect(tables.map((r) => r.name)).toContain("api_keys");
      const found: Record<string, string[]> = {};
      for (const { name } of tables) {
        const rows = await queryRows<{ row: string }>(handle.db, sql.raw(`select x::text as row from "${name}" x`));
        const text = rows.map((r) => r.row).join("\n");
        if (name === "api_keys") expect(text).toContain("Битрикс24");
        if (leaks(text).length) found[name] = leaks(text);
      }
      expect(found).toEqual({});
    } finally {
      await handle.close();
    }
  });
});
