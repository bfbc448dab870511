import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { actorOf, requireUser } from "../auth.server";
import { breakForm, breakReturnForm, isAppError, toggleBreak } from "../breaks.server";
import { readFields, readFormBody, sentWithJs } from "../forms.server";
import { redirectWithToast } from "../toast.server";

export interface BreakAnswer {
  ok?: boolean;
  message?: string;
  error?: { code: string; message: string };
}

/** Only a form post changes a break; a GET goes home (or to /auth without a session). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return redirect("/");
}

/**
 * The header's Перерыв / Закончить перерыв (intent start | end, issue 18). Without JavaScript a plain form post:
 * back to the page it came from (redirectTo) with the message as a banner. With it (`_js=1`, a fetcher): the
 * answer as data, and Remix reloads the page's data (the header, the lead panel) without a page load.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const form = await readFormBody(request);
  const js = sentWithJs(form);
  const { redirectTo: back } = readFields(form, breakReturnForm);
  try {
    const { intent } = readFields(form, breakForm, { code: "unknown_intent" });
    const message = await toggleBreak(context, actorOf(user), intent);
    if (js) return data<BreakAnswer>({ ok: true, message });
    return redirectWithToast(back, { type: "success", message });
  } catch (error) {
    if (!isAppError(error)) throw error;
    if (js) return data<BreakAnswer>({ error: { code: error.code, message: error.message } }, { status: error.status });
    return redirectWithToast(back, { type: "error", message: error.message });
  }
}
