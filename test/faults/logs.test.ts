import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgDatabase, sleep, startServer, tempDataDir, type ServerProcess } from "./server";

/** `npm start` as an operator runs it: what its log says about the requests it answered. */
describe("the server's log", () => {
  let server: ServerProcess;
  let drop: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    const database = process.env.TEST_DATABASE_URL ? await createPgDatabase("logs") : null;
    drop = database?.drop;
    server = await startServer({ databaseUrl: database?.url, dataDir: database ? undefined : tempDataDir(), env: { LOG_LEVEL: "info" } });
  });
  afterAll(async () => {
    await server?.stop();
    await drop?.();
  });

  it("is one JSON line per request, with the request id the answer carried in X-Request-Id", async () => {
    const page = await fetch(`${server.url}/auth`);
    const api = await fetch(`${server.url}/api/v1/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ login: "nobody", password: "wrong", accessKey: "x" }),
    });
    expect(page.status).toBe(200);
    expect(api.status).toBe(401);
    const ids = [page.headers.get("x-request-id"), api.headers.get("x-request-id")];
    await sleep(300); // the line is written when the answer ends

    const lines = server
      .output()
      .split("\n")
      .filter((line) => ids.some((id) => id && line.includes(id)));
    expect(lines).toHaveLength(2);
    const [pageLine, apiLine] = lines.map((line) => JSON.parse(line));
    expect(pageLine).toMatchObject({ reqId: ids[0], msg: "request", method: "GET", path: "/auth", route: "/auth", status: 200 });
    expect(apiLine).toMatchObject({ reqId: ids[1], msg: "request", method: "POST", path: "/api/v1/auth/login", status: 401 });
    expect(typeof apiLine.ms).toBe("number");
    expect(typeof apiLine.time).toBe("number");
    // Credentials never reach the log.
    expect(server.output()).not.toContain("wrong");
  });
});
