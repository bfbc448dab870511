import type { LoaderFunctionArgs } from "@remix-run/node";
import { actorOf, getUser } from "../auth.server";
import { notSignedIn, resourceError } from "../errors.server";
import { incomingCallCard } from "../inbound.server";

/**
 * GET /incoming?sipCallId=…: the card of the client whose call rings the signed-in manager now (issue 42), as JSON
 * (null for an unknown number). The softphone's ringing shows it.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  try {
    const card = await incomingCallCard(context.deps.db, actorOf(user), { sipCallId: new URL(request.url).searchParams.get("sipCallId") ?? "" });
    return Response.json({ card });
  } catch (error) {
    return resourceError(error);
  }
}
