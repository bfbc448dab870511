import type { Flash } from "../../toast.server";
import type { LeadView } from "../../leads.server";
import type { CardFieldValue } from "../../../common/client-card";

/** The callback time's quick choices and the free choice's bounds (Kyiv wall clock), as the server computed them. */
export interface CallbackTimes {
  presets: Array<{ value: string; label: string }>;
  min: string;
  initial: string;
}

/**
 * What a press answers to the page that sent it (issue 18: the next lead in the same request, SPEC §4): the lead,
 * its card and history, its autodial, and when it was read. The loader gives the same fields for the lead it shows.
 */
export interface TurnView extends LeadView {
  callbackTimes: CallbackTimes;
  readAt: number;
}

/** A press the server asks about (report confirmation, callback time), with what was posted. */
export interface ConfirmState {
  statusId: string;
  statusText: string;
  contactId: string;
  passport: string;
  card: CardFieldValue[];
  /** The press was already confirmed (a report status that also asks for a callback time). */
  confirmed?: boolean;
  /** The callback's note as typed (issue 41 §7): a time refused keeps it in the question asked again. */
  callbackNote?: string;
}

/** Every answer of the action but a redirect: a refusal, a question (report, callback time) or the next lead. */
export interface PressAnswer {
  error: { code: string; message: string } | null;
  confirm: ConfirmState | null;
  callback: ConfirmState | null;
  next: TurnView | null;
  message: Flash | null;
  /** The page refreshes root and layout after painting the next lead (the balance or the callbacks count moved). */
  refreshLayout: boolean;
}

/** The client card from its posted cardLabel / cardValue lists, paired in template order. */
export function pairCard(labels: string[], values: string[]): CardFieldValue[] {
  return labels.map((label, i) => ({ label, value: values[i] ?? "" }));
}

/** The client card as the form holds it (the server reads the same fields through PressFields). */
export function readCard(form: FormData): CardFieldValue[] {
  return pairCard(form.getAll("cardLabel").map(String), form.getAll("cardValue").map(String));
}

export const NO_LEADS = "Для вас нет доступных лидов";

/** A lead as the screen reader announces it after a press (issue 18), or the SPEC's empty state. */
export function announce(view: { lead: LeadView["lead"]; card: Array<{ key: string; value: string }> }): string {
  if (!view.lead) return NO_LEADS;
  const phone = view.card.find((row) => row.key === "phone")?.value || view.lead.phone;
  return `Новый лид: ${[view.lead.name, phone].filter(Boolean).join(", ")}`;
}
