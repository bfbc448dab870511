// Server code reaches route modules only through *.server.ts files (the browser bundle empties them).
export { getPersonalStatistics, getStatistics } from "#server/core/statistics/statistics";
export type { Statistics } from "#server/core/statistics/statistics";
