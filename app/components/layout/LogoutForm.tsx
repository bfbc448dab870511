import { Form } from "@remix-run/react";
import { getRealtimeClient } from "../../lib/realtime";

/**
 * «Выйти» for everyone (issue 41 §4: a manager's name leads to Главная, and /profile was not linked for him): a POST
 * form to /logout, so it works with JavaScript off. The realtime socket stops first: a connect due in that moment
 * would meet no session (a 401 the browser logs). `className` places it (the header at desk width, the phone menu).
 */
export function LogoutForm({
  className = "",
  buttonClassName = "btn-secondary px-2 py-1.5 text-sm",
  testId,
}: {
  className?: string;
  buttonClassName?: string;
  testId?: string;
}) {
  return (
    <Form method="post" action="/logout" className={className} onSubmit={() => getRealtimeClient().stop()}>
      <button type="submit" className={buttonClassName} data-testid={testId}>
        Выйти
      </button>
    </Form>
  );
}
