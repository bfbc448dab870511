import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { reportHeard, reportPlayed } from "../audit.server";
import { actorOf, getUser } from "../auth.server";
import { resourceError } from "../errors.server";
import { readFormBody, unknownIntent } from "../forms.server";

/** Nothing to read here: a GET says so (after the sign-in check every resource makes). */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return Response.json({ error: "unauthorized", message: "Требуется вход в систему" }, { status: 401 });
  return Response.json({ error: "method_not_allowed", message: "Сюда отправляют только формы (POST)" }, { status: 405, headers: { Allow: "POST" } });
}

/**
 * POST /heard (issue 39, decision 071): a page says what its audio really played, for the access log. intent
 * listen (sessionId, heardMs, firstAgoMs, lastAgoMs): the listening admin's page, or the manager's for a whisper
 * (app/lib/heard-audio.ts); intent recording (playKey, playedMs): a recording's player (CallRecording). Sent with
 * fetch while the page lives and with sendBeacon when it goes; core checks whose report it may be.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return Response.json({ error: "unauthorized", message: "Требуется вход в систему" }, { status: 401 });
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
