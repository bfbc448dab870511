import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { actorOf, getUser } from "../auth.server";
import { notSignedIn, resourceError } from "../errors.server";
import { readFormBody } from "../forms.server";
import { incomingCallCard, takeInboundCaller } from "../inbound.server";

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

/**
 * POST /incoming (sipCallId): the manager answered; the caller becomes his lead, held to him, when he is a client of
 * one of the manager's topics (issue 42). `{ taken: true }` then, and the page shows the lead panel.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  try {
    const form = Object.fromEntries(await readFormBody(request));
    const taken = await takeInboundCaller(context.deps.db, actorOf(user), context.deps.config.holdMinutes, { sipCallId: form.sipCallId });
    return Response.json({ taken: taken !== null });
  } catch (error) {
    return resourceError(error);
  }
}
