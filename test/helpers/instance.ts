import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { endWithTheRun } from "./children";

export interface Instance {
  /** host:port on loopback */
  base: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Spawns one more app instance (API and hub, test/api/realtime.instance.ts) on a Postgres database. */
export function startInstance(databaseUrl: string, env: Record<string, string> = {}): Promise<Instance> {
  return new Promise((resolve, reject) => {
    const script = path.join(__dirname, "..", "api", "realtime.instance.ts");
    const child = spawn(process.execPath, ["--import", "tsx", script], {
      env: { ...process.env, ...env, DATABASE_URL: databaseUrl },
      stdio: ["ignore", "pipe", "pipe"],
    });
    endWithTheRun(child);
    let out = "";
    let err = "";
    const timer = setTimeout(() => reject(new Error(`instance did not start: ${err}`)), 60_000);
    child.stdout!.on("data", (chunk) => {
      out += chunk;
      const match = /\{"port":(\d+)\}/.exec(out);
      if (!match) return;
      clearTimeout(timer);
      const stop = async () => {
        if (child.exitCode !== null) return;
        const exited = new Promise((done) => child.once("exit", done));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))]);
      };
      resolve({ base: `127.0.0.1:${match[1]}`, child, stop });
    });
    child.stderr!.on("data", (chunk) => (err += chunk));
    child.on("exit", (code) => reject(new Error(`instance exited with ${code}: ${err}`)));
  });
}
