/** The suite runs on Postgres (TEST_DATABASE_URL) as well as on the embedded PGlite (`.ci/run` runs both). */
export const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/**
 * How the screens look (geometry, themes, widths, axe, escaping) does not depend on the database behind them, so
 * those checks run on the embedded database only; on Postgres the screen walk still visits every page once, for a
 * loader that fails there. This keeps CI's two runs of the suite well under its time limit (it neared 90 minutes).
 */
export const LOOKS_CHECKED_ON_EMBEDDED_ONLY = "how screens look is checked on the embedded database only";
