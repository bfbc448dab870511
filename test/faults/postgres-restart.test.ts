import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRESS_PATH } from "../../common/press-path";
import { buildXlsx, type Cell } from "../helpers/xlsx";
import { freePort } from "../helpers/ports";
import { ADMIN, AROUND_THE_CLOCK, api, login, sleep, startServer, waitFor, type ServerProcess } from "./server";
import { onPostgres } from "../helpers/backends";

/**
 * Fault: Postgres restarted while managers work. The shared Postgres on 5432 is never touched: the test makes a
 * private cluster (initdb into a temp folder, pg_ctl on a free port, trust auth; as the postgres OS user when it
 * runs as root) and points one app server at it. While the server is down every request fails fast with a 503 and
 * a Russian `{ error, message }`; when it is back the same app process reconnects by itself, and no contact ends up
 * held by two managers.
 *
 * It runs only in the Postgres pass of `npm test` (TEST_DATABASE_URL set), where the Postgres binaries are sure to
 * be installed; the PGlite pass skips it to save time.
 */
const MANAGERS = 3;
const CONTACTS = 200;

const children: ServerProcess[] = [];
let cluster: Cluster | undefined;

interface Cluster {
  url: string;
  start(): void;
  stop(): void;
  destroy(): void;
  psql(query: string): string;
}

function pgBin(): string {
  const root = "/usr/lib/postgresql";
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "pg_ctl")));
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error("no Postgres binaries under /usr/lib/postgresql");
  return path.join(root, versions[0], "bin");
}

async function createCluster(): Promise<Cluster> {
  const bin = pgBin();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-fault-pg-"));
  const data = path.join(dir, "data");
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) execFileSync("chown", ["-R", "postgres:postgres", dir]);
  // Postgres refuses to run as root: run its tools as the postgres OS user then.
  const run = (tool: string, args: string[]) =>
    execFileSync(asRoot ? "runuser" : path.join(bin, tool), asRoot ? ["-u", "postgres", "--", path.join(bin, tool), ...args] : args, {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: 90_000,
    }).toString();
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const start = () => {
    run("pg_ctl", [
      "-D",
      data,
      "-l",
      path.join(dir, "server.log"),
      "-w",
      "-t",
      "60",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      "start",
    ]);
  };
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop: () => void run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]),
    destroy() {
      try {
        run("pg_ctl", ["-D", data, "-m", "immediate", "-w", "-t", "30", "stop"]);
      } catch {
        /* not running */
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
    psql: (query: string) => run("psql", ["-h", dir, "-p", String(port), "-U", "postgres", "-d", "postgres", "-At", "-c", query]),
  };
}

beforeAll(async () => {
  if (onPostgres) cluster = await createCluster();
});

afterAll(async () => {
  await Promise.all(children.map((c) => c.kill9()));
  cluster?.destroy();
});

interface Manager {
  id: number;
  login: string;
  token: string;
  lead: number | null;
}

describe.skipIf(!onPostgres)("Postgres restarted while managers work", { timeout: 120_000 }, () => {
  it("requests fail fast with a Russian 503 while it is down, the app reconnects by itself, and no lead is held twice", async () => {
    // NODE_ENV left at "development" on the host: pages must still never show development error details
    // (unset, as `npm start` leaves it, means production: server/node-env.ts).
    const server = await startServer({ databaseUrl: cluster!.url, env: { NODE_ENV: "development" } });
    children.push(server);
    const admin = await login(server, ADMIN);
    // A path the static files cannot decode: Express's own error page, with no stack trace.
    const undecodable = await fetch(`${server.url}/build/%E0%A4%A`, { signal: AbortSignal.timeout(20_000) });
    expect(undecodable.status).toBe(400);
    expect(await undecodable.text()).not.toMatch(/URIError| {4}at /);

    const rows: Cell[][] = [["ФИО", "Телефон"]];
    for (let i = 1; i <= CONTACTS; i++) rows.push([`Клиент ${i}`, `+38063${String(i).padStart(7, "0")}`]);
    const form = new FormData();
    form.append("name", "База смены");
    form.append("mappings", JSON.stringify(["name", "phone"]));
    form.append("file", new Blob([new Uint8Array(await buildXlsx(rows))]), "база.xlsx");
    const base = await api(server, "POST", "/database/import", { token: admin, form });
    expect(base.status).toBe(200);

    const managers: Manager[] = [];
    for (let i = 1; i <= MANAGERS; i++) {
      const credentials = { login: `smena${i}`, password: `Smena-pass-${i}`, accessKey: `SMENAKEY0000000${i}` };
      const created = await api(server, "POST", "/auth/register", { token: admin, body: { ...credentials, displayName: `Менеджер ${i}` } });
      expect(created.status).toBe(201);
      managers.push({ id: created.body.id, login: credentials.login, token: await login(server, credentials), lead: null });
    }
    const statuses = (await api(server, "GET", "/status", { token: admin })).body as Array<{ id: number; text: string }>;
    const filter = await api(server, "POST", "/filters", {
      token: admin,
      body: {
        name: "Смена",
        managers: managers.map((m) => m.id),
        databases: [base.body.id],
        statuses: statuses.map((s) => s.id),
        callingHours: AROUND_THE_CLOCK,
      },
    });
    expect(filter.status).toBe(200);
    const filterId = filter.body.id as number;

    /** One step of a manager's work: take his lead, or press a status on it and get the next. */
    const step = async (m: Manager, timeoutMs = 30_000) => {
      const res =
        m.lead === null
          ? await api(server, "GET", `/database/filtered-lead?filterId=${filterId}&userId=${m.id}`, { token: m.token, timeoutMs })
          : await api(server, "PUT", "/status/update-and-get-lead", {
              token: m.token,
              timeoutMs,
              body: { statusText: "Недозвон", contactId: m.lead, userId: m.id, passport: "", filterId, clientInfo: "" },
            });
      if (res.status === 200) m.lead = typeof res.body === "object" && res.body ? res.body.id : null;
      return res;
    };

    for (const m of managers) {
      const chosen = await api(server, "POST", `/filters/${filterId}/${m.id}/${m.login}`, { token: m.token });
      expect(chosen.status).toBe(200);
    }
    // Work before the outage: every manager gets leads and presses statuses.
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(managers.map((m) => step(m)));
      expect(answers.map((a) => a.status)).toEqual(managers.map(() => 200));
    }

    // Managers keep pressing all through the restart (their answers are checked below).
    let working = true;
    const during: Array<{ status: number; body: unknown }> = [];
    const loops = managers.map(async (m) => {
      while (working) {
        const res = await step(m, 20_000).catch((error: Error) => ({ status: 0, body: String(error) }));
        during.push(res);
        await sleep(100);
      }
    });

    cluster!.stop();
    // While it is down: every call answers 503 with a clear Russian message, quickly (no minutes-long queue),
    // readiness too; liveness keeps answering (the process is fine: a supervisor must not restart it).
    for (const m of managers) {
      const live = await api(server, "GET", "/health", { timeoutMs: 20_000 });
      expect(live.status).toBe(200);
      expect(live.body.status).toBe("ok");
      for (const call of [() => step(m, 20_000), () => api(server, "GET", "/health/ready", { timeoutMs: 20_000 })]) {
        const started = Date.now();
        const res = await call();
        const took = Date.now() - started;
        expect(res.status).toBe(503);
        expect(res.body).toEqual({
          error: "database_unavailable",
          message: "База данных временно недоступна. Повторите через несколько секунд.",
        });
        expect(took).toBeLessThan(5_000);
      }
    }
    // Pages: a Russian 503 page, not an error; a page's data request shows no detail of the failure.
    const cookie = `session=${encodeURIComponent(Buffer.from(JSON.stringify(managers[0].token)).toString("base64"))}`;
    const page = await fetch(`${server.url}/`, { headers: { cookie }, signal: AbortSignal.timeout(20_000) });
    const pageText = await page.text();
    expect(page.status).toBe(503);
    expect(pageText).toContain("База данных временно недоступна");
    // In-app navigation (a data request) gets a 503 the page's error boundary shows in Russian, not a generic error.
    const pageData = await fetch(`${server.url}/_root.data`, { headers: { cookie }, signal: AbortSignal.timeout(20_000) });
    const dataText = await pageData.text();
    expect(pageData.status).toBe(503);
    expect(dataText).toContain("База данных временно недоступна");
    // The lead panel's status press (served outside Remix, decision 068): the same 503, which its page shows as the
    // error boundary's Russian 503; it was a 500 «Unexpected Server Error».
    const pressed = await fetch(`${server.url}${PRESS_PATH}`, {
      method: "POST",
      headers: { cookie, "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
      body: new URLSearchParams({ intent: "status", statusId: String(statuses[0].id), contactId: String(managers[0].lead ?? 1), answer: "panel" }),
      signal: AbortSignal.timeout(20_000),
    });
    const pressText = await pressed.text();
    expect(pressed.status).toBe(503);
    expect(pressText).toBe("База данных временно недоступна");
    for (const detail of ["ECONNREFUSED", "node_modules", "postgres", "    at "]) {
      expect(pageText).not.toContain(detail);
      expect(dataText).not.toContain(detail);
      expect(pressText).not.toContain(detail);
    }
    const outageLogin = await api(server, "POST", "/auth/login", {
      body: { login: managers[0].login, password: "Smena-pass-1", accessKey: "SMENAKEY00000001" },
      timeoutMs: 20_000,
    });
    expect(outageLogin.status).toBe(503);

    cluster!.start();
    // The same process (never restarted) serves again by itself within seconds.
    await waitFor("the app to reconnect", async () => (await api(server, "GET", "/health/ready", { timeoutMs: 5_000 })).status === 200, 30_000, 250);
    expect(server.child.exitCode).toBeNull();
    working = false;
    await Promise.all(loops);
    // Whatever a manager saw meanwhile was a normal answer or a 503 with the message, never a 500.
    for (const res of during) {
      expect([0, 200, 503]).toContain(res.status);
      expect(res.status).not.toBe(0);
    }

    // Work goes on: each manager (re)takes his lead and presses twice more.
    for (const m of managers) m.lead = null;
    for (let round = 0; round < 3; round++) {
      const answers = await Promise.all(managers.map((m) => step(m)));
      expect(answers.map((a) => a.status)).toEqual(managers.map(() => 200));
    }
    const leads = managers.map((m) => m.lead);
    expect(leads.every((id) => typeof id === "number")).toBe(true);
    expect(new Set(leads).size).toBe(MANAGERS);

    // In the database: every manager holds at most one contact, and the ones they hold are the leads they see.
    const held = cluster!
      .psql("select held_by || ':' || count(*) from contacts where held_by is not null group by held_by order by held_by")
      .trim()
      .split("\n")
      .filter(Boolean);
    expect(held).toEqual(managers.map((m) => `${m.id}:1`));
    const heldIds = cluster!.psql("select id from contacts where held_by is not null order by id").trim().split("\n").map(Number);
    expect(heldIds).toEqual([...leads].sort((a, b) => a! - b!));
    await server.stop();
  });
});
