import fs from "node:fs";
import http from "node:http";

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
  let postgresTicks = 0;
  try {
    for (const pid of fs.readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
        const close = stat.lastIndexOf(")");
        if (stat.slice(stat.indexOf("(") + 1, close) !== "postgres") continue;
        const fields = stat.slice(close + 2).split(" ");
        postgresTicks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
      } catch {
        // The process ended between the listing and the read.
      }
    }
  } catch {
    // No /proc: not Linux.
  }
  // Linux counts /proc times in clock ticks of 10 ms (USER_HZ = 100).
  return { node: (usage.user + usage.system) / 1000, postgres: postgresTicks * 10 };
}

/** One keep-alive connection pool for every bench request (like a browser's, not a new socket per call). */
const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });

/**
 * A JSON request through node:http: the load generators' client. It costs the bench process a fraction of what
 * fetch (undici, web streams) does, so more of the shared CPU is left to the server being measured.
 */
export function httpJson(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<{ status: number; text: string }> {
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
        response.on("end", () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}
