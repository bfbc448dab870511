import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { actorOf, requireUser } from "../auth.server";
import { inboundReturnForm, isAppError, setAcceptsInbound } from "../inbound.server";
import { readFields, readFormBody } from "../forms.server";
import { redirectWithToast } from "../toast.server";

/** Only a form post changes the switch; a GET goes to the lead panel. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  return redirect("/leadpanel");
}

/**
 * The lead panel's «Принимать входящие» (issue 42): accepts=1 turns it on, 0 off; back to the page it came from
 * with the message (a banner without JavaScript, a toast with it).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request, context);
  const form = await readFormBody(request);
  const { redirectTo: back } = readFields(form, inboundReturnForm);
  try {
    const message = await setAcceptsInbound(context.deps.db, actorOf(user), { accepts: form.get("accepts") });
    return redirectWithToast(back, { type: "success", message });
  } catch (error) {
    if (!isAppError(error)) throw error;
    return redirectWithToast(back, { type: "error", message: error.message });
  }
}
