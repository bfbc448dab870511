import { BlockList, isIP } from "node:net";
import { sql } from "drizzle-orm";
import client from "prom-client";
import { isAppError } from "../core/errors";
import type { DbHandle } from "../../db/client";
import type { DiskState } from "../core/recordings/recordings";
import { DB_APPLICATION_NAME } from "../../db/client";
import { selectRows } from "../../db/typed-sql";

/**
 * What Prometheus reads at /metrics (docs/operations.md lists them). One registry per app instance, so the
 * tests' many apps in one process never share a counter.
 */
export function createMetrics(handle: DbHandle, realtimeConnections: () => number, recordingsDisk: () => DiskState | null = () => null) {
  const registry = new client.Registry();
  registry.setDefaultLabels({ app: "leaddesk" });
  client.collectDefaultMetrics({ register: registry, prefix: "leaddesk_" });

  const requests = new client.Counter({
    name: "leaddesk_http_requests_total",
    help: "HTTP requests answered, by route pattern, method and status code",
    labelNames: ["route", "method", "status"] as const,
    registers: [registry],
  });
  const duration = new client.Histogram({
    name: "leaddesk_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's end, by route pattern",
    labelNames: ["route", "method"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const leadTurns = new client.Counter({
    name: "leaddesk_lead_turns_total",
    help: "Lead turns (a lead asked for, or a status pressed), by outcome: lead (one handed out) or none (no free lead: an allocation miss)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const imports = new client.Counter({
    name: "leaddesk_import_jobs_total",
    help: "Base imports, by outcome (imported, refused, failed)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const exports = new client.Counter({
    name: "leaddesk_export_jobs_total",
    help: "Export jobs this instance ran, by outcome (done, failed)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const dbErrors = new client.Counter({
    name: "leaddesk_db_unavailable_errors_total",
    help: "Requests that failed because the database could not be reached",
    registers: [registry],
  });
  new client.Gauge({
    name: "leaddesk_realtime_connections",
    help: "Open realtime WebSocket connections on this instance",
    registers: [registry],
    collect() {
      this.set(realtimeConnections());
    },
  });
  new client.Gauge({
    name: "leaddesk_db_pool_size",
    help: "Database connections this instance may open (1 for the embedded database)",
    registers: [registry],
    collect() {
      this.set(handle.poolSize);
    },
  });
  // The recordings folder (issue 28): measured by the recordings job every minute, read here.
  new client.Gauge({
    name: "leaddesk_recordings_bytes",
    help: "Bytes in the call recordings folder (audio files and rtpengine's spool)",
    registers: [registry],
    collect() {
      this.set(recordingsDisk()?.usedBytes ?? 0);
    },
  });
  new client.Gauge({
    name: "leaddesk_recordings_free_bytes",
    help: "Free bytes on the file system of the call recordings folder (0: the folder cannot be read)",
    registers: [registry],
    collect() {
      this.set(recordingsDisk()?.freeBytes ?? 0);
    },
  });
  const conversions = new client.Counter({
    name: "leaddesk_recording_conversions_total",
    help: "Call recordings this instance converted to audio, by outcome (done, failed: retried later)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const conversionSeconds = new client.Histogram({
    name: "leaddesk_recording_conversion_seconds",
    help: "Time to convert one call's recording to audio",
    buckets: [0.5, 1, 2, 5, 10, 30, 60],
    registers: [registry],
  });
  // Postgres knows which of its connections are ours and what they are doing; read at scrape time (a few ms).
  const connections = new client.Gauge({
    name: "leaddesk_db_connections",
    help: "Postgres connections of this app (every instance), by state (active, idle, idle in transaction...)",
    labelNames: ["state"] as const,
    registers: [registry],
  });

  return {
    registry,
    request(route: string, method: string, status: number, seconds: number) {
      requests.inc({ route, method, status: String(status) });
      duration.observe({ route, method }, seconds);
    },
    leadTurn(handedOut: boolean) {
      leadTurns.inc({ outcome: handedOut ? "lead" : "none" });
    },
    /** Counts an import by how it ended: imported, refused (the admin's file or mapping: a 4xx) or failed. */
    async importJob<T>(work: Promise<T>): Promise<T> {
      try {
        const result = await work;
        imports.inc({ outcome: "imported" });
        return result;
      } catch (error) {
        imports.inc({ outcome: isAppError(error) ? "refused" : "failed" });
        throw error;
      }
    },
    recordingConversion(outcome: "done" | "failed", seconds: number) {
      conversions.inc({ outcome });
      if (outcome === "done") conversionSeconds.observe(seconds);
    },
    exportJob(outcome: "done" | "failed") {
      exports.inc({ outcome });
    },
    databaseUnavailable() {
      dbErrors.inc();
    },
    async text(): Promise<string> {
      connections.reset();
      if (handle.kind === "postgres") {
        try {
          const rows = await selectRows(
            handle.db,
            { state: sql<string | null>`state`, n: sql<number>`count(*)::int` },
            (list) => sql`select ${list} from pg_stat_activity
                where application_name = ${DB_APPLICATION_NAME} and pid <> pg_backend_pid() group by state`,
          );
          for (const row of rows) connections.set({ state: row.state ?? "unknown" }, row.n);
        } catch {
          dbErrors.inc(); // the scrape still answers: the other metrics say what they can
        }
      }
      return registry.metrics();
    },
    contentType: registry.contentType,
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * A bounded route label for a path no Fastify route names (the pages): numbers become `:id`, an unknown path
 * (404) is one label, so a scanner cannot grow the series without end.
 */
export function pageRouteLabel(url: string, status: number): string {
  if (status === 404) return "unmatched";
  const path = url.split("?")[0];
  if (path.startsWith("/build/")) return "/build/*";
  return path.replace(/\/\d+(?=\/|$)/g, "/:id").slice(0, 100) || "/";
}

/**
 * Who may read /metrics without a token: METRICS_ADDRESSES, addresses and networks (`127.0.0.1`, `10.0.0.0/8`,
 * `::1`), comma separated. Empty: only an admin's bearer token.
 */
export function metricsAddresses(spec: string): BlockList {
  const list = new BlockList();
  for (const item of spec
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean)) {
    const [address, prefix] = item.split("/");
    const family = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (!isIP(address)) throw new Error(`Неверный адрес в METRICS_ADDRESSES: ${item}`);
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

export function addressAllowed(list: BlockList, address: string): boolean {
  const plain = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1] ?? address;
  const family = isIP(plain) === 6 ? "ipv6" : isIP(plain) === 4 ? "ipv4" : null;
  return family !== null && list.check(plain, family);
}
