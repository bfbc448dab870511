import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { DbHandle } from "../db/client";
import type { AppConfig } from "../server/config";
import { appCommand } from "../server/heap";
import { freePort, httpJson } from "./lib";

/**
 * How a bench gets the app: its pages built (buildPages), the app started and stopped (startApp), and the lead
 * turn sent to its API (putLeadTurn). One way each, so that every bench measures the same app.
 */

/**
 * The pages, built from the code being measured (a build left by other code would measure that code), into
 * `.builds/bench-<name>` unless BUILD_DIR names another folder, and their assets precompressed as `npm run build` does. The app reads BUILD_DIR, in this process (when
 * server/web.ts is first imported, which startApp does after this) or in its own (which inherits the variable).
 */
export function buildPages(name: string): void {
  process.env.BUILD_DIR ||= `.builds/bench-${name}`;
  const build = spawnSync("npx", ["remix", "build"], { env: process.env, encoding: "utf8" });
  if (build.status !== 0 || !fs.existsSync(path.resolve(process.env.BUILD_DIR, "index.js"))) {
    throw new Error(`remix build failed: ${build.stderr}`);
  }
  // As `npm run build` ends: the assets' brotli and gzip siblings (decision 088).
  const precompress = spawnSync(process.execPath, ["--import", "tsx", "server/ops/finish-build-cli.ts"], { env: process.env, encoding: "utf8" });
  if (precompress.status !== 0) throw new Error(`precompressing the assets failed: ${precompress.stderr}`);
}

/** The app in its own process, as `npm start` runs it: what production runs, its memory and CPU apart from the bench's. */
export interface OwnProcess {
  /** Its environment, over this process's (DATABASE_URL or DATA_DIR, LOG_LEVEL...); PORT and HOST are set here. */
  env: Record<string, string>;
  /** Node flags before the app's own (e.g. --trace-gc). */
  nodeArgs?: string[];
  /** Default: a free loopback port. */
  port?: number;
  /** Where it answers 200 once ready (default /api/v1/health; /auth waits for the pages too). */
  readyPath?: string;
  /** Its stdout and stderr line by line; without it stdout is dropped and stderr shown. */
  onOutput?: (line: string) => void;
}

/** The app in this process, on a database the bench made and seeded: its CPU counts as the bench process's. */
export interface InThisProcess {
  handle: DbHandle;
  config: AppConfig;
  /** Serve the pages too (buildPages first). */
  web: boolean;
}

export interface RunningApp {
  /** http://127.0.0.1:port */
  origin: string;
  /** The process that serves it (this one for InThisProcess). */
  pid: number;
  /** From the start to the first 200 on its ready path (own process) or to listening (this process), in ms. */
  readyMs: number;
  /** False once its process has exited (crashed, or stopped). */
  running(): boolean;
  /** Its graceful shutdown (SIGTERM; SIGKILL after 15 s), or app.close() in this process. */
  stop(): Promise<void>;
}

/** The app's command line (server/heap.ts) with the flags of BENCH_NODE_ARGS after its own (the last of a repeated flag wins). */
export const benchAppCommand = () => appCommand((process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the app on a loopback port and resolves once it answers. In its own process: `node
 * --max-semi-space-size=4 --import tsx server/main.ts` (APP_COMMAND), NODE_ENV production, logs at LOG_LEVEL;
 * BENCH_NODE_ARGS adds Node/V8 flags after the app's own (`BENCH_NODE_ARGS=--max-semi-space-size=16` measures V8's
 * default young generation). In this process: buildApp, as main.ts builds it, listening on a free port.
 */
export async function startApp(how: OwnProcess | InThisProcess): Promise<RunningApp> {
  return "handle" in how ? startHere(how) : startProcess(how);
}

async function startHere({ handle, config, web }: InThisProcess): Promise<RunningApp> {
  const started = performance.now();
  // As production runs (server/main.ts): NODE_ENV unset means production, before React or Remix is first loaded.
  // Without it an in-process app rendered its pages with React's development build (the slow-link bench until
  // 2026-12-02: 2-4 ms more of the 24-26 a document took on the server, median of 60).
  await import("../server/node-env");
  // Imported here, not at the top: server/web.ts reads BUILD_DIR when it is first imported (buildPages sets it).
  const { buildApp } = await import("../server/app");
  const app = await buildApp({ handle, config, web });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    pid: process.pid,
    readyMs: performance.now() - started,
    running: () => true,
    stop: () => app.close(),
  };
}

async function startProcess({ env, nodeArgs = [], port, readyPath = "/api/v1/health", onOutput }: OwnProcess): Promise<RunningApp> {
  const listenOn = port ?? (await freePort());
  const started = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, ...benchAppCommand()], {
    env: { ...process.env, ...env, PORT: String(listenOn), HOST: "127.0.0.1" },
    stdio: ["ignore", onOutput ? "pipe" : "ignore", onOutput ? "pipe" : "inherit"],
  });
  if (onOutput) {
    let partial = "";
    const lines = (chunk: Buffer) => {
      const parts = (partial + chunk.toString()).split("\n");
      partial = parts.pop() ?? "";
      for (const line of parts) onOutput(line);
    };
    child.stdout!.on("data", lines);
    child.stderr!.on("data", lines);
  }
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (running()) child.kill("SIGTERM");
    const late = setTimeout(() => child.kill("SIGKILL"), 15_000);
    await exited;
    clearTimeout(late);
  };
  const origin = `http://127.0.0.1:${listenOn}`;
  for (;;) {
    if (!running()) throw new Error(`the app exited with ${child.exitCode ?? child.signalCode}`);
    const up = await httpJson(`${origin}${readyPath}`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (performance.now() - started > 120_000) {
      child.kill("SIGKILL");
      throw new Error("the app did not answer within 120 s");
    }
    await sleep(25);
  }
  return { origin, pid: child.pid!, readyMs: performance.now() - started, running, stop };
}

/** A status press as an API client sends it (by the status's text; the panel names it by id, decision 064). */
export interface Press {
  userId: number;
  filterId: number;
  /** The contact he holds. */
  contactId: number;
  statusText: string;
  clientInfo?: string;
  passport?: string;
  /** For a status that asks for a callback time (ISO 8601). */
  callbackAt?: string;
}

/**
 * The lead turn: PUT /status/update-and-get-lead on `api` (the origin's /api/v1) with a manager's `Bearer …`; its
 * answer is the next lead ("" when none is left).
 */
export function putLeadTurn(api: string, authorization: string, press: Press) {
  const { statusText, contactId, userId, passport = "", filterId, clientInfo = "", callbackAt } = press;
  return httpJson(`${api}/status/update-and-get-lead`, {
    method: "PUT",
    headers: { Authorization: authorization },
    body: { statusText, contactId, userId, passport, filterId, clientInfo, ...(callbackAt ? { callbackAt } : {}) },
  });
}
