import type { Db, DbHandle } from "../db/client";
import type { AppConfig } from "./config";
import type { MediaRelay } from "./core/telephony/listening";
import type { Metrics } from "./http/metrics";
import type { Recordings } from "./jobs/recordings";
import type { RealtimeHub } from "./realtime/hub";
import type { TelephonyProvider } from "./core/telephony/accounts";
import type { PasswordHasher, SessionStore } from "./core/auth/ports";

/** Everything an adapter (Fastify route, Remix loader/action, ws hub) hands to core. Built once in buildApp. */
export interface AppDeps {
  handle: DbHandle;
  db: Db;
  sessions: SessionStore;
  /** argon2id (server/auth/password.ts). */
  passwords: PasswordHasher;
  config: AppConfig;
  hub: RealtimeHub;
  /** SIP accounts: the provider's HTTP API, or the built-in allocator when none is configured. */
  telephony: TelephonyProvider;
  /** rtpengine's control channel for live listening; null when RTPENGINE_NG is not set. */
  mediaRelay: MediaRelay | null;
  /** Prometheus counters the adapters feed (lead turns, imports) and /metrics reads. */
  metrics: Metrics;
  /** Call recordings: the folder, the conversion worker, the disk measure (issue 28). */
  recordings: Recordings;
  /** Requests (pages and API) whose response is not closed yet, this one included. */
  requestsInFlight: () => number;
}

/**
 * For an import: whether requests other than its own are under way, so that it lets them go first before each batch
 * (decision 046). Only on the embedded database, where a batch holds the one connection; on Postgres they do not wait.
 */
export const othersBusy = (deps: AppDeps): (() => boolean) | undefined =>
  deps.handle.kind === "pglite" ? () => deps.requestsInFlight() > 1 : undefined;
