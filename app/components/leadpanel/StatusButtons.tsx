import { useMemo } from "react";
import { statusEdgeClass, textColorFor } from "../../lib/color";
import type { LeadPanel } from "../../leads.server";
import { KeyCap } from "../leads/keys";

/**
 * The status row: one submit button per status (statusId), in its colour, with its key. `busy`: a press is in
 * flight (the next is ignored); `slow`: it has been for a while, and the row shows it. The row is drawn again at
 * every press and answer (busy): each colour's edge and text, contrast sums per theme, are worked out once.
 */
export function StatusButtons({ statuses, busy, slow }: { statuses: LeadPanel["statuses"]; busy: boolean; slow: boolean }) {
  const looks = useMemo(
    () =>
      statuses.map(({ color }) => ({
        edge: statusEdgeClass(color),
        style: { backgroundColor: color, color: textColorFor(color) },
      })),
    [statuses],
  );
  return (
    <div id="status-buttons" tabIndex={-1} className="flex flex-wrap gap-2 outline-none" data-testid="status-buttons">
      {statuses.map((status, i) => (
        <button
          key={status.id}
          type="submit"
          name="statusId"
          value={status.id}
          data-report={status.isReportStatus ? "true" : "false"}
          data-callback={status.asksCallback ? "true" : "false"}
          aria-keyshortcuts={status.key === null ? undefined : String(status.key)}
          title={status.label === status.text ? undefined : status.text}
          // Not `disabled` (a disabled button drops the focus): a press in flight ignores the next (onSubmit).
          aria-disabled={busy || undefined}
          className={`btn shadow-sm ${looks[i].edge} ${slow ? "cursor-wait opacity-70" : ""}`}
          style={looks[i].style}
        >
          {status.label}
          {status.key === null ? null : <KeyCap>{String(status.key)}</KeyCap>}
        </button>
      ))}
    </div>
  );
}
