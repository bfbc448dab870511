import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports";
import { ADMIN, api, login, spawnServer, startServer, type ServerProcess } from "./server";

/**
 * Fault: a second server process started on the same PGlite DATA_DIR. It must refuse to start (a clear message,
 * exit code ≠ 0) and the first process must keep its data and keep serving. PGlite only, so it runs in the
 * PGlite pass of `npm test` and is skipped when TEST_DATABASE_URL is set.
 */
const children: ServerProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill9()));
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(Boolean(process.env.TEST_DATABASE_URL))("PGlite: two processes on one DATA_DIR", { timeout: 120_000 }, () => {
  it("the second refuses to start with a clear message; the first keeps its data and keeps serving", async () => {
    const dataDir = fs.mkdtempSync(`${(await import("node:os")).tmpdir()}/leaddesk-fault-lock-`);
    dirs.push(dataDir);
    const first = await startServer({ dataDir });
    children.push(first);
    const token = await login(first, ADMIN);
    const created = await api(first, "POST", "/auth/register", {
      token,
      body: { login: "manager1", password: "Manager-pass-1", displayName: "Менеджер Один", accessKey: "MANAGERKEY000001" },
    });
    expect(created.status).toBe(201);

    const second = spawnServer({ dataDir, port: await freePort() });
    children.push(second);
    const code = await second.exited;
    expect(code).not.toBe(0);
    expect(typeof code).toBe("number"); // it exited by itself, not killed
    expect(second.output()).toContain(`Папка данных`);
    expect(second.output()).toContain("уже используется другим процессом");
    expect(second.output()).toContain(`pid ${first.child.pid}`);

    // The first process never noticed: it serves, its data is there, and it still writes.
    expect((await api(first, "GET", "/health")).status).toBe(200);
    const managerToken = await login(first, { login: "manager1", password: "Manager-pass-1", accessKey: "MANAGERKEY000001" });
    expect(managerToken).toBeTruthy();
    const users = await api(first, "GET", "/users", { token });
    expect(users.status).toBe(200);
    expect(JSON.stringify(users.body)).toContain("manager1");
    const another = await api(first, "POST", "/auth/register", {
      token,
      body: { login: "manager2", password: "Manager-pass-2", displayName: "Менеджер Два", accessKey: "MANAGERKEY000002" },
    });
    expect(another.status).toBe(201);

    // After a clean stop the data is on disk: a new process on the same folder starts and sees both managers.
    await first.stop();
    expect(await first.exited).toBe(0);
    const again = await startServer({ dataDir });
    children.push(again);
    const listed = await api(again, "GET", "/users", { token: await login(again, ADMIN) });
    expect(JSON.stringify(listed.body)).toContain("manager1");
    expect(JSON.stringify(listed.body)).toContain("manager2");
    await again.stop();
  });
});
