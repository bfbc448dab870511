import { parseWithZod } from "@conform-to/zod/v4";
import * as z from "zod";
import { idFields, idSchema } from "../common/validation";
import { pairCard } from "./components/leadpanel/answer";
import { firstError } from "./lib/form-check";
// Server code for the lead-flow pages (/leadpanel): reaches route modules only through this file.
export { findStatus, loadLeadPanel, leaveFilter } from "#server/core/leads/panel";
export type { Autodial } from "#server/core/leads/autodial";
export { leadView, type LeadView } from "#server/core/leads/lead-view";
export type { LeadPanel, CardField } from "#server/core/leads/panel";
export { pressedStatusNotFound, pressOutcomeMessage, pressStatus } from "#server/core/leads/record-status";
export {
  callbackCounts,
  editCallbackNote,
  listAllCallbacks,
  listCallbackChoices,
  listMyCallbacks,
  reassignCallback,
  takeCallback,
} from "#server/core/leads/callbacks";
export { CALLBACK_PRESETS, callbackTimeFromForm, dateToKyivLocal } from "#server/core/leads/callback-time";
export { formatKyiv } from "../common/business-time";
export { displayPhone } from "#server/core/bases/phone";

/**
 * /callbacks' forms: «Позвонить сейчас» names the callback; «Передать» also core's choice of manager and the list's
 * query to come back to. Here, not in the route: a manager's page need not load zod for buttons.
 */
export const TakeFields = idFields;
export const ReassignFields = idFields.extend({ userId: idSchema, back: z.string().default("") });
/**
 * «Сохранить заметку»: the callback and its note as typed (an emptied field clears it; core checks its length); from
 * the admin's table also the list's query to come back to.
 */
export const NoteFields = idFields.extend({ note: z.string().default(""), back: z.string().default("") });

const NOT_FORM_TEXT = "Неверные данные формы";

/** A field as `form.get` reads it: its first value when the form repeats it. */
const firstOf = <S extends z.ZodType>(schema: S) => z.preprocess((v) => (Array.isArray(v) ? v[0] : v), schema);
const text = (absent = "") => firstOf(z.string({ error: NOT_FORM_TEXT }).default(absent));
/** Every value of a repeated field, in the form's order (none sent: empty). */
const texts = z.preprocess((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(z.string({ error: NOT_FORM_TEXT })));

/**
 * /leadpanel's press form (the status buttons, the card, the report's confirmation, the callback time; or
 * «Сменить тематику»), as posted by the page's script or without it. Only the form's shape is checked here: the
 * rules are the action's and core's (`pressStatus` parses contactId and the card's text itself), and an id that
 * names no status is null, answered «Такого статуса нет» as a status gone since the page was loaded.
 */
export const PressFields = z
  .object({
    intent: text("status"),
    statusId: firstOf(idSchema.nullable().catch(null)),
    /** "panel": the page's script wants the next lead in the answer; otherwise a plain post, redirected. */
    answer: text(),
    contactId: text(),
    passport: text(),
    confirmed: firstOf(z.unknown())
      .optional()
      .transform((v) => v === "1"),
    callbackPreset: text(),
    callbackLocal: text(),
    callbackNote: text(),
    cardLabel: texts,
    cardValue: texts,
  })
  .transform(({ cardLabel, cardValue, ...rest }) => ({ ...rest, card: pairCard(cardLabel, cardValue) }));
export type PressForm = z.output<typeof PressFields>;

/**
 * The press form through PressFields: its value, or the schema's Russian message. Never throws: the action reads
 * it before the session is known, and a stranger's post must still be sent to the login page (a post whose Conform
 * fields do not parse never gets here: readFormBody refuses it).
 */
export function readPressForm(form: FormData): { ok: true; value: PressForm } | { ok: false; message: string } {
  const submission = parseWithZod(form, { schema: PressFields, disableAutoCoercion: true });
  if (submission.status === "success") return { ok: true, value: submission.value };
  return { ok: false, message: firstError(submission) ?? NOT_FORM_TEXT };
}
