/**
 * The one order of statuses (issue 41 §10, decision 085), wherever a list of them is shown or answered: the lead
 * panel's buttons, /edit-statuses, the topic form, the retry rules, the export dialog, the /loadedbases columns
 * and GET /api/v1/status. SPEC /edit-statuses: «technical statuses first, then normal, report statuses last»;
 * within a group by the admin's `order`, then by id. The keys (keys.ts) are not this order: «Заявка» keeps 1.
 */
export interface Ordered {
  id: number;
  order: number;
  isTechnical: boolean;
  isReportStatus: boolean;
}

/** Technical 0, normal 1, report 2. */
export function statusGroup(status: Pick<Ordered, "isTechnical" | "isReportStatus">): number {
  if (status.isTechnical) return 0;
  if (status.isReportStatus) return 2;
  return 1;
}

export const byStatusOrder = (a: Ordered, b: Ordered) => statusGroup(a) - statusGroup(b) || a.order - b.order || a.id - b.id;

/** A copy of the list in the one order. */
export function sortStatuses<T extends Ordered>(list: readonly T[]): T[] {
  return [...list].sort(byStatusOrder);
}
