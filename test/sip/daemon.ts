import { spawn, type ChildProcess } from "node:child_process";
import net from "node:net";
import { endWithTheRun } from "../helpers/children";

/** A server the test runs as a child: its output, a wait for a log line, and a stop that always ends it. */
export interface Daemon {
  child: ChildProcess;
  log(): string;
  /** Resolves once a line matching `pattern` has been logged after character `from` (default: anywhere). */
  waitForLog(pattern: RegExp, timeoutMs?: number, from?: number): Promise<void>;
  stop(): Promise<void>;
}

export function startDaemon(name: string, command: string, args: string[], env: Record<string, string>): Daemon {
  // Its own process group, so that ending the group also ends the workers it forks.
  const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], detached: true, env: { ...process.env, ...env } });
  endWithTheRun(child);
  let output = "";
  const waiters = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  child.stdout!.on("data", collect);
  child.stderr!.on("data", collect);
  return {
    child,
    log: () => output,
    waitForLog(pattern, timeoutMs = 10_000, from = 0) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output.slice(from))) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${name} never logged ${pattern}; log:\n${output.slice(-4000)}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        child.kill("SIGTERM");
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      }, 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resolves once something accepts TCP connections on the loopback port. */
export async function waitForTcp(port: number, daemon: Daemon, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (daemon.child.exitCode !== null) throw new Error(`exited with code ${daemon.child.exitCode}:\n${daemon.log()}`);
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
  throw new Error(`nothing listened on port ${port} within ${timeoutMs} ms:\n${daemon.log().slice(-3000)}`);
}
