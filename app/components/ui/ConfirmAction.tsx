import { Form, Link, useNavigate, useNavigation } from "@remix-run/react";
import type { ReactNode } from "react";
import { DialogOrSection } from "./DialogOrSection";

interface ConfirmActionProps {
  /** The question is open (its state lives in the URL, e.g. ?delete=7, so a plain link opens it). */
  open: boolean;
  title: string;
  /** Where Отмена and closing lead: the page without the question in its URL. */
  closeHref: string;
  /** The post the confirmation sends: intent, and hidden fields such as the id. */
  intent: string;
  fields: Record<string, string | number>;
  confirmLabel: string;
  testId: string;
  children: ReactNode;
}

/**
 * The one way a destructive action asks before it acts (issue 17), as deleting a base does: a link puts the
 * question in the URL; it shows as a dialog with JavaScript and as a section without; only its button posts.
 */
export function ConfirmAction({ open, title, closeHref, intent, fields, confirmLabel, testId, children }: ConfirmActionProps) {
  const navigate = useNavigate();
  const busy = useNavigation().state === "submitting";
  return (
    <DialogOrSection
      open={open}
      title={title}
      onClose={() => navigate(closeHref, { preventScrollReset: true, replace: true })}
      closeHref={closeHref}
      testId={testId}
    >
      <Form method="post" action={closeHref} preventScrollReset>
        <input type="hidden" name="intent" value={intent} />
        {Object.entries(fields).map(([name, value]) => (
          <input key={name} type="hidden" name={name} value={value} />
        ))}
        <div className="mb-4 text-sm">{children}</div>
        <div className="flex justify-end gap-2">
          <Link to={closeHref} className="btn-secondary" preventScrollReset replace>
            Отмена
          </Link>
          <button type="submit" className="btn-danger" disabled={busy}>
            {confirmLabel}
          </button>
        </div>
      </Form>
    </DialogOrSection>
  );
}
