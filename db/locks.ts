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
  /**
   * A call in claims the manager it rings (server/core/telephony/inbound.ts): the first of two keys, the second
   * the manager's id; a transaction's, tried, never waited for.
   */
  inboundRinging: 7742043,
  /** A call in's routing, per call (the same call asked twice): the first of two keys, the second its Call-ID's hashtext. */
  inboundCall: 7742045,
  /** A missed call's row and callback, per number: the first of two keys, the second the number's hashtext. */
  missedCall: 7742044,
} as const;
