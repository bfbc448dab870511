// Server code for the access log (issue 39): the admin's page and its CSV, and the pages' reports of what they played.
export { accessLogChoices, accessLogCsv, accessLogCsvName, filterFieldOf, listAccessLog, readAccessFilters } from "#server/core/audit/access-log";
export type { AccessEntry, AccessFilterField, AccessKind } from "#server/core/audit/access-log";
export { reportHeard, reportPlayed } from "#server/core/audit/heard";
