import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { putLeadTurn } from "./app";
import { httpJson } from "./lib";

/**
 * The simulated managers of bench/leads.ts. They run in a worker thread: real managers' browsers are other
 * machines, so the load generator gets its own event loop instead of queueing behind the server it measures.
 */
export interface Agent {
  userId: number;
  auth: string;
  /** The contact this manager holds (0: none left). */
  leadId: number;
}

export interface DriverRun {
  base: string;
  filterId: number;
  agents: Agent[];
  /** open: each manager presses about every 2 s whatever the answers' speed; closed: again as soon as answered. */
  mode: "open" | "closed";
  seconds: number;
}

export interface DriverResult {
  /** Every press's latency, ms. */
  latencies: number[];
}

export async function firstLead(base: string, filterId: number, agent: Agent): Promise<void> {
  const res = await httpJson(`${base}/database/filtered-lead?filterId=${filterId}&userId=${agent.userId}`, {
    headers: { Authorization: agent.auth },
  });
  const body = JSON.parse(res.text) as { id?: number } | "";
  agent.leadId = typeof body === "object" && body.id ? body.id : 0;
}

/** One status press; its latency in ms. */
async function turn(base: string, filterId: number, agent: Agent): Promise<number> {
  const started = performance.now();
  const res = await putLeadTurn(base, agent.auth, { statusText: "Отказ", contactId: agent.leadId, userId: agent.userId, filterId });
  if (res.status !== 200) throw new Error(`turn failed: ${res.status} ${res.text}`);
  const body = JSON.parse(res.text) as { id?: number } | "";
  agent.leadId = typeof body === "object" && body.id ? body.id : 0;
  return performance.now() - started;
}

async function drive({ base, filterId, agents, mode, seconds }: DriverRun): Promise<DriverResult> {
  await Promise.all(agents.map((agent) => firstLead(base, filterId, agent)));
  const latencies: number[] = [];
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    agents.map(async (agent) => {
      if (mode === "closed") {
        while (Date.now() < until && agent.leadId) latencies.push(await turn(base, filterId, agent));
        return;
      }
      await new Promise((r) => setTimeout(r, Math.random() * 2000));
      while (Date.now() < until && agent.leadId) {
        const next = Date.now() + 1500 + Math.random() * 1000;
        latencies.push(await turn(base, filterId, agent));
        await new Promise((r) => setTimeout(r, Math.max(0, next - Date.now())));
      }
    }),
  );
  return { latencies };
}

/** Runs the managers in a worker thread (each takes his first lead there); resolves with the presses' latencies. */
export function driveInWorker(run: DriverRun): Promise<DriverResult> {
  return new Promise((resolve, reject) => {
    // Node 20 does not carry `--import tsx` into workers: register tsx in the worker, then load this file.
    const code = `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
    const worker = new Worker(code, { eval: true, workerData: run });
    worker.once("message", resolve);
    worker.once("error", reject);
    worker.once("exit", (code) => code !== 0 && reject(new Error(`lead driver exited with ${code}`)));
  });
}

if (!isMainThread && workerData) {
  drive(workerData as DriverRun).then(
    (result) => parentPort!.postMessage(result),
    (error) => {
      throw error;
    },
  );
}
