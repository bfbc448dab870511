import * as z from "zod";
import { idFields, idSchema } from "../common/validation";
// Server code for the lead-flow pages (/leadpanel): reaches route modules only through this file.
export { findStatus, loadLeadPanel, leaveFilter } from "../server/core/leads/panel";
export type { Autodial } from "../server/core/leads/autodial";
export { leadView, type LeadView } from "../server/core/leads/lead-view";
export type { LeadPanel, CardField } from "../server/core/leads/panel";
export { pressedStatusNotFound, pressOutcomeMessage, pressStatus } from "../server/core/leads/record-status";
export {
  callbackCounts,
  listAllCallbacks,
  listCallbackChoices,
  listMyCallbacks,
  reassignCallback,
  takeCallback,
} from "../server/core/leads/callbacks";
export { CALLBACK_PRESETS, callbackTimeFromForm, dateToKyivLocal } from "../server/core/leads/callback-time";
export { formatKyiv } from "../common/business-time";
export { displayPhone } from "../server/core/bases/phone";

/**
 * /callbacks' forms: «Позвонить сейчас» names the callback; «Передать» also core's choice of manager and the list's
 * query to come back to. Here, not in the route: a manager's page need not load zod for buttons.
 */
export const TakeFields = idFields;
export const ReassignFields = idFields.extend({ userId: idSchema, back: z.string().default("") });
