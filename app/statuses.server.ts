// Server code for /edit-statuses (route modules reach server/ only through *.server.ts files).
export {
  createStatus,
  DEFAULT_STATUS_COLOR,
  deleteStatus,
  listStatusesInPanelOrder,
  NEW_STATUS_TEXT,
  toggleStatusDoNotCall,
  toggleStatusCallback,
  toggleStatusReport,
  toggleStatusTechnical,
  toggleStatusVisibility,
  updateStatus,
} from "#server/core/statuses/statuses";
