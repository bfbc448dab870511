import type { ActionFunctionArgs } from "@remix-run/node";
import { reportHeard, reportPlayed } from "../audit.server";
import { actorOf, getUser } from "../auth.server";
import { notSignedIn, resourceError } from "../errors.server";
import { readFormBody, unknownIntent } from "../forms.server";
import { postOnlyResource } from "../resources.server";

/** Nothing to read here: a GET says so. */
export const loader = postOnlyResource;

/**
 * POST /heard (issue 39, decision 071): a page says what its audio really played, for the access log. intent
 * listen (sessionId, heardMs, firstAgoMs, lastAgoMs): the listening admin's page, or the manager's for a whisper
 * (app/lib/heard-meter.ts); intent recording (playKey, playedMs): a recording's player (CallRecording). Sent with
 * fetch while the page lives and with sendBeacon when it goes; core checks whose report it may be.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  const { db } = context.deps;
  const form = Object.fromEntries(await readFormBody(request));
  try {
    if (form.intent === "listen") await reportHeard(db, actorOf(user), form);
    else if (form.intent === "recording") await reportPlayed(db, actorOf(user), form);
    else return resourceError(unknownIntent());
    return new Response(null, { status: 204 });
  } catch (error) {
    return resourceError(error);
  }
}
