import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { endWithTheRun } from "../helpers/children";
import { freePort } from "../helpers/ports";

/** Debian's Kamailio (packages kamailio and kamailio-websocket-modules, listed in test/system-packages.txt). */
export const KAMAILIO_PATH = process.env.KAMAILIO_PATH || "/usr/sbin/kamailio";
const MODULES_DIR = process.env.KAMAILIO_MODULES || "/usr/lib/x86_64-linux-gnu/kamailio/modules";
const CONFIG = path.join(path.dirname(new URL(import.meta.url).pathname), "kamailio.cfg");

export interface SipServer {
  /** ws://127.0.0.1:<port>: what SIP_WS_URL points at in the tests. */
  wsUrl: string;
  port: number;
  /** Everything Kamailio logged so far (registrations, relayed requests, 404s). */
  log(): string;
  /** Resolves once a line matching `pattern` has been logged. */
  waitForLog(pattern: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** A port nobody listens on right now (the kernel picks it; never a fixed well-known one). */
async function waitForPort(port: number, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`kamailio exited with code ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`kamailio did not listen on port ${port} within ${timeoutMs} ms`);
}

/**
 * Starts Kamailio in the foreground on a free loopback port with test/sip/kamailio.cfg: a registrar and proxy
 * for SIP over plain WebSocket. Its own pid file and runtime directory, so a system Kamailio never interferes.
 */
export async function startSipServer(options: { port?: number } = {}): Promise<SipServer> {
  if (!fs.existsSync(KAMAILIO_PATH)) {
    throw new Error(`${KAMAILIO_PATH} not found: apt-get install kamailio kamailio-websocket-modules (see test/system-packages.txt)`);
  }
  const port = options.port ?? (await freePort());
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), "leaddesk-kamailio-"));
  const args = [
    "-f", CONFIG,
    "-L", MODULES_DIR,
    "-Y", runDir,
    "-P", path.join(runDir, "kamailio.pid"),
    "-l", `tcp:127.0.0.1:${port}`,
    "-m", "64",
    "-M", "8",
    "-DD",
    "-E",
  ];
  // Its own process group, so that ending the group also ends the workers Kamailio forks.
  const child = spawn(KAMAILIO_PATH, args, { stdio: ["ignore", "pipe", "pipe"], detached: true });
  endWithTheRun(child);
  let output = "";
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  // Never outlive the test process, even when it dies without running afterAll.
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  try {
    await waitForPort(port, child, 10_000);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return {
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    log: () => output,
    waitForLog(pattern, timeoutMs = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`kamailio never logged ${pattern}; log:\n${output.slice(-3000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
        await exited;
        clearTimeout(timer);
      }
      fs.rmSync(runDir, { recursive: true, force: true });
    },
  };
}
