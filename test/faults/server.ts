import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, inject } from "vitest";
import { queryRows, type Db } from "../../db/client";
import { endWithTheRun } from "../helpers/children";
import { withDatabase } from "../helpers/global-setup";
import { freePort } from "../helpers/ports";
import { APP_COMMAND } from "../../server/heap";

/**
 * Fault tests run the real server (APP_COMMAND: `node … --import tsx server/main.ts`) as a child process, so they can kill it
 * with SIGKILL and start it again on the same data. Nothing here is global: each test file keeps its own list
 * of children and kills them in afterAll.
 */

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const ADMIN = { login: "admin", password: "Fault-admin-pass-1", accessKey: "FAULTKEY00000001" };
/**
 * A topic's calling window for the fault tests, whose servers migrate a database of their own (the suite's template
 * calls around the clock): these tests must not depend on the hour they run (decision 050).
 */
export const AROUND_THE_CLOCK = { from: "00:00", until: "00:00", days: [1, 2, 3, 4, 5, 6, 7], timeZone: "Europe/Kyiv" };

/** Generous: a tsx start-up on a loaded 2-core machine can take many seconds. */
const START_TIMEOUT_MS = 90_000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Thrown from a `waitFor` check: stop waiting at once (the awaited state can no longer come). */
export class GiveUp extends Error {}

/** Polls `check` until it answers something truthy; throws with `what` after `timeoutMs`, or a GiveUp at once. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      if (error instanceof GiveUp) throw error;
      lastError = error;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ""}`);
    await sleep(everyMs);
  }
}

export interface ServerOptions {
  /** PGlite data directory (used when no databaseUrl). */
  dataDir?: string;
  databaseUrl?: string;
  port?: number;
  env?: Record<string, string>;
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or the signal's name) once the process is gone. */
  exited: Promise<number | string>;
  kill9(): Promise<void>;
  /** SIGTERM (graceful: closes the database and its lock), SIGKILL after 20 s. */
  stop(): Promise<void>;
}

/** The environment a spawned server runs with. */
export function serverEnv(options: ServerOptions & { port: number }): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(options.port),
    HOST: "127.0.0.1",
    DATABASE_URL: options.databaseUrl ?? "",
    DATA_DIR: options.dataDir ?? path.join(os.tmpdir(), "leaddesk-unused"),
    ADMIN_LOGIN: ADMIN.login,
    ADMIN_PASSWORD: ADMIN.password,
    ADMIN_ACCESS_KEY: ADMIN.accessKey,
    LOG_LEVEL: "warn",
    NODE_ENV: "production",
    ...options.env,
  };
  delete env.TEST_DATABASE_URL;
  return env;
}

/** Spawns the server without waiting for it. */
export function spawnServer(options: ServerOptions & { port: number }): ServerProcess {
  const env = serverEnv(options);
  const child = spawn(process.execPath, APP_COMMAND, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  endWithTheRun(child);
  let text = "";
  child.stdout!.on("data", (chunk) => (text += chunk));
  child.stderr!.on("data", (chunk) => (text += chunk));
  const exited = new Promise<number | string>((resolve) => {
    child.on("exit", (code, signal) => resolve(code ?? signal ?? -1));
  });
  const proc: ServerProcess = {
    child,
    port: options.port,
    url: `http://127.0.0.1:${options.port}`,
    output: () => text,
    exited,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return proc;
}

/** Spawns the server and waits until /api/v1/health answers 200. */
export async function startServer(options: ServerOptions): Promise<ServerProcess> {
  // main.ts serves the pages too, so it needs the Remix build (`npm test` makes it first; BUILD_DIR as in remix.config.js).
  const build = path.resolve(ROOT, process.env.BUILD_DIR || "build", "index.js");
  if (!fs.existsSync(build)) throw new Error(`No Remix build at ${build}: run \`BUILD_DIR=... npx remix build\` first`);
  const port = options.port ?? (await freePort());
  const proc = spawnServer({ ...options, port });
  let gone: number | string | undefined;
  void proc.exited.then((code) => (gone = code));
  try {
    await waitFor(
      "the server to start",
      async () => {
        if (gone !== undefined) throw new GiveUp(`server exited (${gone}) while starting:\n${proc.output()}`);
        const res = await fetch(`${proc.url}/api/v1/health`, { signal: AbortSignal.timeout(5000) });
        return res.status === 200;
      },
      START_TIMEOUT_MS,
      300,
    );
  } catch (error) {
    await proc.kill9();
    throw new Error(`${(error as Error).message}\n--- server output ---\n${proc.output()}`);
  }
  return proc;
}

/** A JSON API call; answers status and parsed body. */
export async function api(
  server: { url: string },
  method: string,
  route: string,
  options: { token?: string; body?: unknown; form?: FormData; timeoutMs?: number } = {},
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer, read field by field by the tests
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: BodyInit | undefined;
  if (options.form) body = options.form;
  else if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  const res = await fetch(`${server.url}/api/v1${route}`, {
    method,
    headers,
    body,
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

export async function login(server: { url: string }, credentials: { login: string; password: string; accessKey: string }) {
  const res = await api(server, "POST", "/auth/login", { body: credentials });
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token as string;
}

/** A PGlite data directory in the temp folder; `remove` deletes it. */
export function tempDataDir(prefix = "leaddesk-fault-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Postgres mode (TEST_DATABASE_URL): a fresh database cloned from the run's migrated template (or with `empty`,
 * one with no schema at all: a restore's or an upgrade's target), named so the run's global teardown drops it
 * too if this file cannot.
 */
export async function createPgDatabase(tag: string, options: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL!;
  const { default: postgres } = await import("postgres");
  const name = `leaddesk_t_${process.ppid}_${process.pid}_${tag}_${Date.now()}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name} template ${options.empty ? "template0" : inject("pgTemplate")}`);
  return {
    url: withDatabase(base, name),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/**
 * The backend a fault test kills servers on, for the file's lifetime: a private PGlite folder, or with
 * TEST_DATABASE_URL a fresh Postgres database. Every server started through it is killed at the end.
 */
export function faultBackend(tag: string) {
  const children: ServerProcess[] = [];
  const backend = {
    dataDir: "",
    pg: undefined as { url: string; drop(): Promise<void> } | undefined,
    /** `options` may add environment (env) or, for a second PGlite instance, its own dataDir. */
    async start(options: Pick<ServerOptions, "env" | "dataDir"> = {}): Promise<ServerProcess> {
      const server = await startServer(
        backend.pg ? { databaseUrl: backend.pg.url, env: options.env } : { dataDir: options.dataDir ?? backend.dataDir, env: options.env },
      );
      children.push(server);
      return server;
    },
  };
  beforeAll(async () => {
    if (process.env.TEST_DATABASE_URL) backend.pg = await createPgDatabase(tag);
    else backend.dataDir = tempDataDir(`leaddesk-fault-${tag}-`);
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.kill9()));
    if (backend.dataDir) fs.rmSync(backend.dataDir, { recursive: true, force: true });
    await backend.pg?.drop();
  });
  return backend;
}

/** The test's own reading of every table: row count and an order-independent checksum. */
export async function tableChecksums(db: Db): Promise<Record<string, { rows: number; checksum: string }>> {
  const tables = await queryRows<{ name: string }>(db, sql`select tablename as name from pg_tables where schemaname = 'public' order by 1`);
  const out: Record<string, { rows: number; checksum: string }> = {};
  for (const { name } of tables) {
    const [row] = await queryRows<{ rows: number; checksum: string | null }>(
      db,
      sql.raw(
        `select count(*)::int as rows, md5(string_agg(h, '' order by h)) as checksum from (select md5(to_jsonb(t)::text) as h from "${name}" t) r`,
      ),
    );
    out[name] = { rows: Number(row.rows), checksum: row.checksum ?? "" };
  }
  return out;
}

/** Runs one of our npm tools (server/ops/<script>.ts, as `npm run` does) with the database given in env. */
export function runOpsTool(script: string, args: string[], target: { databaseUrl?: string; dataDir?: string }) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: target.databaseUrl ?? "", DATA_DIR: target.dataDir ?? "" };
  delete env.TEST_DATABASE_URL;
  const child = spawn(process.execPath, ["--import", "tsx", `server/ops/${script}.ts`, ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  endWithTheRun(child);
  let output = "";
  child.stdout!.on("data", (c) => (output += c));
  child.stderr!.on("data", (c) => (output += c));
  return new Promise<{ code: number | null; output: string }>((resolve) => child.on("exit", (code) => resolve({ code, output })));
}
