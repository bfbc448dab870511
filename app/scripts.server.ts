// Server code for /scripts and the script viewer.
export { createScript, deleteScript, findReadableScript, getScript, listScripts, updateScript } from "#server/core/scripts/scripts";
export { sanitizeScriptHtml } from "#server/core/scripts/sanitize";
