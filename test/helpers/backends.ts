/** The suite runs on Postgres (TEST_DATABASE_URL) as well as on the embedded PGlite (`.ci/run` runs both). */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * Test files whose behaviour no database changes, run on the embedded database only: the browser tests (the page
 * sees the same answers whatever database the server reads; the lead panel's and the login's stay, as a check of
 * the whole path on Postgres) and the spreadsheet readers (they refuse or read a file before any row is written).
 * Every file that touches the database (test/api, test/core but its pure rules, test/faults, test/load) runs on both.
 * Why: on a slow machine the two runs took about 50 minutes each, over CI's 90-minute limit.
 */
export const EMBEDDED_ONLY = [
  "test/e2e/!(leadpanel.test.ts|auth.test.ts)",
  "test/core/spreadsheets/**",
  "test/api/spreadsheet-abuse.test.ts",
  // No database at all: telephony/start and the gate (the daemons alone), and the pure rules of core.
  "test/sip/**",
  "test/core/{app-command,autodial,bases-phone,business-time,client-address,dark-theme,kamailio-answer,layers,money-day,passwords,phone-zone,softphone-csp,softphone-ice,softphone,status-color,status-keys,test-tooling}.test.ts",
];
