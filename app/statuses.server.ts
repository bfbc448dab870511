// Server code for /edit-statuses (route modules reach server/ only through *.server.ts files).
export {
  createDefaultStatus,
  deleteStatus,
  listStatuses,
  toggleStatusDoNotCall,
  toggleStatusCallback,
  toggleStatusReport,
  toggleStatusTechnical,
  toggleStatusVisibility,
  updateStatus,
} from "#server/core/statuses/statuses";
export { withKeys } from "#server/core/statuses/keys";
