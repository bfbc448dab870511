// Server code for /basesettings.
export { getDatabaseSettings, saveDatabaseSettings } from "#server/core/settings/settings";
export { isAppError } from "#server/core/errors";
