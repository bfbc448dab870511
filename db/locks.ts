/**
 * The app's Postgres advisory lock keys, in one place so that no two rules pick the same number by chance
 * (PGlite has one connection: the locks cost nothing there).
 */
export const ADVISORY_LOCK = {
  /** Migrations at start: two instances starting together on one Postgres (db/client.ts, session-level). */
  migrate: 726202611,
  /** The first start's seed (server/seed.ts). */
  seed: 726202612,
  /** A topic's trunk number checked and saved (server/core/filters/inbound-number.ts). */
  trunkNumbers: 7742042,
  /** The inbound routing's choice and its call row, one question at a time (server/core/telephony/inbound.ts). */
  inboundRouting: 7742043,
} as const;
