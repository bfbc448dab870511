import { Form, Link, useNavigate, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { DialogOrSection } from "./DialogOrSection";

type FieldValue = string | number;

interface ConfirmActionProps {
  /** The question is open (its state lives in the URL, e.g. ?delete=7, so a plain link opens it). */
  open: boolean;
  title: string;
  /** Where Отмена and closing lead: the page without the question in its URL. */
  closeHref: string;
  /** Where the confirmation posts; the page under the question (`closeHref`) unless said. */
  action?: string;
  /** The post the confirmation sends: intent, and hidden fields such as the id (a list: one field per value). */
  intent: string;
  fields?: Record<string, FieldValue | readonly FieldValue[]>;
  confirmLabel: string;
  /** A destructive action (red button); false for one that is not (a role change). */
  danger?: boolean;
  testId: string;
  children: ReactNode;
}

/**
 * The one way an action asks before it acts (issue 17, issue 30), as deleting a base does: a link puts the
 * question in the URL; it shows as a dialog with JavaScript and as a section without; only its button posts.
 */
export function ConfirmAction({
  open,
  title,
  closeHref,
  action = closeHref,
  intent,
  fields = {},
  confirmLabel,
  danger = true,
  testId,
  children,
}: ConfirmActionProps) {
  const navigate = useNavigate();
  const busy = useNavigation().state === "submitting";
  return (
    <DialogOrSection
      open={open}
      title={title}
      onClose={() => navigate(closeHref, { preventScrollReset: true, replace: true })}
      closeHref={closeHref}
      testId={testId}
      role="alertdialog"
    >
      <Form method="post" action={action} preventScrollReset>
        <input type="hidden" name="intent" value={intent} />
        {Object.entries(fields).flatMap(([name, value]) =>
          (typeof value === "object" ? value : [value]).map((one, i) => <input key={`${name}-${i}`} type="hidden" name={name} value={one} />),
        )}
        <div className="mb-4 text-sm">{children}</div>
        <div className="flex justify-end gap-2">
          <Link to={closeHref} className="btn-secondary" preventScrollReset replace>
            Отмена
          </Link>
          <button type="submit" className={danger ? "btn-danger" : "btn-primary"} disabled={busy} data-testid="confirm-yes">
            {confirmLabel}
          </button>
        </div>
      </Form>
    </DialogOrSection>
  );
}

/**
 * The question before deleting a row (the page names it in its URL, `?delete=7`): open while there is one, it posts
 * the row's id under `intent` with «Удалить».
 */
export function ConfirmDelete({
  row,
  ...question
}: Omit<ConfirmActionProps, "open" | "fields" | "confirmLabel"> & { row: { id: number } | null | undefined }) {
  return <ConfirmAction {...question} open={Boolean(row)} fields={{ id: row?.id ?? "" }} confirmLabel="Удалить" />;
}
