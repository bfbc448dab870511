import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import type { Db } from "../db/client";
import { queryRows } from "../db/client";
import { sql } from "drizzle-orm";
import { createSessionStore } from "../server/auth/sessions";

/** Small helpers shared by the bench scripts: medians, percentiles and a plain-text table. */
export function median(values: number[]): number {
  return percentile(values, 50);
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export type Row = Record<string, string | number>;

/** Prints rows as an aligned table (and returns it as Markdown for docs/benchmarks.md). */
export function printTable(title: string, rows: Row[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const cell = (v: unknown) => (typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : String(v ?? ""));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join("  ");
  console.log(`\n${title}`);
  console.log(line(columns));
  console.log(line(widths.map((w) => "-".repeat(w))));
  for (const r of rows) console.log(line(columns.map((c) => cell(r[c]))));
  const md = [`| ${columns.join(" | ")} |`, `| ${columns.map(() => "---").join(" | ")} |`];
  for (const r of rows) md.push(`| ${columns.map((c) => cell(r[c])).join(" | ")} |`);
  return `### ${title}\n\n${md.join("\n")}\n`;
}

export const PG_URL = process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/**
 * CPU used so far, in ms: by this process, and by every local `postgres` process (from /proc; 0 where it cannot be
 * read, e.g. a remote database). On a shared two-core box the per-turn split says whose work is worth cutting.
 */
export function cpuSnapshot(): { node: number; postgres: number } {
  const usage = process.cpuUsage();
  let postgresMs = 0;
  try {
    for (const pid of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      const cpu = processCpu(Number(pid));
      if (cpu?.name === "postgres") postgresMs += cpu.ms;
    }
  } catch {
    // No /proc: not Linux.
  }
  return { node: (usage.user + usage.system) / 1000, postgres: postgresMs };
}

/** CPU one process has used so far, in ms, with its command name (null: gone, or no /proc). */
export function processCpu(pid: number): { name: string; ms: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" ");
    // utime, stime (fields 14 and 15 of stat), in clock ticks of 10 ms (USER_HZ = 100).
    return { name: stat.slice(stat.indexOf("(") + 1, close), ms: (Number(fields[11]) + Number(fields[12])) * 10 };
  } catch {
    return null;
  }
}

/** CPU time all the machine's cores have spent busy so far (not idle, not waiting for I/O), in ms, from /proc/stat. */
export function machineBusyMs(): number {
  const [, ...ticks] = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).map(Number);
  const [user, nice, system, , , irq, softirq, steal] = ticks;
  return (user + nice + system + irq + softirq + steal) * 10;
}

/** Another process's resident memory now and at its peak (VmRSS, VmHWM), in MB. */
export function processMemoryMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** `Bearer …` for a new session of the seeded bench admin (login `bench`), made in the database before the app starts. */
export async function benchAdminAuthorization(db: Db): Promise<string> {
  const [admin] = await queryRows<{ id: number }>(db, sql`select id from users where login = 'bench'`);
  return `Bearer ${(await createSessionStore(db, 1).create(admin.id)).token}`;
}

export interface HttpAnswer {
  status: number;
  text: string;
  bytes: number;
}

/** One keep-alive connection pool for every bench request (like a browser's, not a new socket per call). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/**
 * A JSON request through node:http: the load generators' client. It costs the bench process a fraction of what
 * fetch (undici, web streams) does, so more of the shared CPU is left to the server being measured.
 */
export function httpJson(url: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<HttpAnswer> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: options.method ?? "GET",
        agent,
        headers: {
          ...options.headers,
          ...(payload === undefined ? {} : { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const body = Buffer.concat(chunks);
          resolve({ status: response.statusCode ?? 0, text: body.toString("utf8"), bytes: body.length });
        });
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}

/**
 * A topic's calling window around the clock (issue 29): a bench's figures must not depend on the hour it runs, and
 * a topic made without a window calls 09:00 to 21:00 only.
 */
export const AROUND_THE_CLOCK = { callsFrom: "00:00", callsUntil: "00:00" } as const;
