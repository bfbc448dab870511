import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/ports";
import { ADMIN, api, login, ROOT, serverEnv, spawnServer, startServer, tempDataDir, waitFor, type ServerProcess } from "./server";
import { APP_COMMAND } from "../../server/heap";

/**
 * Fault: a second server process started on the same PGlite DATA_DIR. It must refuse to start (a clear message,
 * exit code ≠ 0) and the first process must keep its data and keep serving. PGlite only, so it runs in the
 * PGlite pass of `npm test` and is skipped when TEST_DATABASE_URL is set.
 */
const children: ServerProcess[] = [];
const parents: ChildProcess[] = [];
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill9()));
  for (const parent of parents) parent.kill("SIGKILL");
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

  /** /proc/<pid>/stat's state letter (Z: a zombie), or null when the process is gone altogether. */
  const procState = (pid: number) => {
    try {
      const text = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      return text.slice(text.lastIndexOf(")") + 2).split(" ")[0];
    } catch {
      return null;
    }
  };

  /** A process that never waits for its children, like a container's first process: it outlives this test's use. */
  function sleeper(command = "exec sleep 600", env?: NodeJS.ProcessEnv) {
    const parent = spawn("sh", ["-c", command], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    parents.push(parent);
    return parent;
  }

  it.runIf(fs.existsSync("/proc/self/stat"))(
    "a restart right after kill -9 takes the lock over while the killed process is still a zombie",
    async () => {
      const dataDir = tempDataDir("leaddesk-fault-zombie-");
      dirs.push(dataDir);
      const port = await freePort();
      // The server runs under `sh` that then becomes `sleep`: nobody reaps the server when it is killed.
      const parent = sleeper(
        `"${process.execPath}" ${APP_COMMAND.join(" ")} >/dev/null 2>&1 & echo "$!"; exec sleep 600`,
        serverEnv({ dataDir, port }),
      );
      const pid = await new Promise<number>((resolve) => parent.stdout!.once("data", (chunk) => resolve(Number(String(chunk).trim()))));
      const first = { url: `http://127.0.0.1:${port}` };
      await waitFor("the first server", async () => (await fetch(`${first.url}/api/v1/health`)).status === 200, 90_000, 300);
      const token = await login(first, ADMIN);
      const created = await api(first, "POST", "/auth/register", {
        token,
        body: { login: "zombie1", password: "Zombie-pass-1", displayName: "Менеджер", accessKey: "ZOMBIEKEY0000001" },
      });
      expect(created.status).toBe(201);

      process.kill(pid, "SIGKILL");
      await waitFor("the killed server to be a zombie", async () => procState(pid) === "Z", 10_000, 50);

      const again = await startServer({ dataDir });
      children.push(again);
      expect(procState(pid)).toBe("Z"); // still not reaped: the pid "exists", yet it holds nothing
      const listed = await api(again, "GET", "/users", { token: await login(again, ADMIN) });
      expect(JSON.stringify(listed.body)).toContain("zombie1");
      await again.stop();
    },
  );

  it.runIf(fs.existsSync("/proc/self/stat"))("a restart takes over a lock whose pid now belongs to another program, started later", async () => {
    const dataDir = tempDataDir("leaddesk-fault-reuse-");
    dirs.push(dataDir);
    const first = await startServer({ dataDir });
    children.push(first);
    await first.kill9();
    // The killed server's pid given to another program: the lock names it as it was, with its start time.
    const other = sleeper();
    const lockPath = path.join(dataDir, "app.lock");
    const written = fs.readFileSync(lockPath, "utf8").trim();
    expect(written.startsWith(`${first.child.pid}`)).toBe(true);
    fs.writeFileSync(lockPath, written.replace(String(first.child.pid), String(other.pid)));

    const again = await startServer({ dataDir });
    children.push(again);
    expect((await api(again, "GET", "/health")).status).toBe(200);
    expect(procState(other.pid!)).not.toBeNull(); // the other program was left alone
    await again.stop();
  });
});
