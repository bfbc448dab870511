// Server code for the lead-flow pages (/leadpanel): reaches route modules only through this file.
export { findStatus, loadLeadPanel, leaveFilter } from "../server/core/leads/panel";
export type { LeadPanel, CardField } from "../server/core/leads/panel";
export { recordStatus } from "../server/core/leads/record-status";
export { forwardApplication } from "../server/core/leads/applications";
