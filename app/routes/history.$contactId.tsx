import type { LoaderFunctionArgs } from "@remix-run/node";
import { actorOf, getUser } from "../auth.server";
import { clientHistory } from "../calls.server";
import { notSignedIn, resourceError } from "../errors.server";

/**
 * One client's history as JSON, read with the session cookie (the same core as GET /api/v1/contacts/:id/history:
 * an admin, or the manager who holds the client). The lead panel reads it when the call log has taken a call's start
 * or end (issue 41 §14), outside the router: a read that fails leaves the page as it is. `readAt` is taken before
 * the read, as the panel's loader takes its own, so the page shows the newer of the two.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  const readAt = Date.now();
  try {
    const history = await clientHistory(context.deps.db, actorOf(user), params.contactId);
    return Response.json({ readAt, history }, { headers: { "Cache-Control": "no-store" } });
  } catch (error) {
    return resourceError(error);
  }
}
