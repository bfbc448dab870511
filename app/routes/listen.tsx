import type { ActionFunctionArgs } from "@remix-run/node";
import { actorOf, getUser } from "../auth.server";
import { answerListening, startListening, stopListening } from "../calls.server";
import { resourceError } from "../errors.server";
import { readFormBody } from "../forms.server";

/**
 * Live listening from /users (issue 28), for the admin's page: intent start (managerId) answers the session and
 * rtpengine's offer, answer (sessionId, sdp) starts the audio, stop (sessionId) ends it. Admins only (core checks).
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return Response.json({ error: "unauthorized", message: "Требуется вход в систему" }, { status: 401 });
  const { db, mediaRelay } = context.deps;
  const actor = actorOf(user);
  const form = Object.fromEntries(await readFormBody(request));
  try {
    switch (form.intent) {
      case "start":
        return Response.json(await startListening(db, mediaRelay, actor, form));
      case "answer":
        await answerListening(db, mediaRelay, actor, form);
        return new Response(null, { status: 204 });
      case "stop":
        await stopListening(db, mediaRelay, actor, form);
        return new Response(null, { status: 204 });
      default:
        return Response.json({ error: "bad_request", message: "Неизвестное действие" }, { status: 400 });
    }
  } catch (error) {
    return resourceError(error);
  }
}
