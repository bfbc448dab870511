import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { actorOf, getUser } from "../auth.server";
import { answerCall, endCall, keepCallAlive, listCalls, startCall } from "../calls.server";
import { notSignedIn, resourceError } from "../errors.server";
import { readFormBody, unknownIntent } from "../forms.server";

/** The signed-in user's calls as JSON (an admin's: everyone's), with GET /api/v1/calls' filters. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  try {
    return Response.json(await listCalls(context.deps.db, actorOf(user), Object.fromEntries(new URL(request.url).searchParams)));
  } catch (error) {
    return resourceError(error);
  }
}

/**
 * The softphone's reports to the call log, with the session cookie (the same core as POST /api/v1/calls):
 * intent start (number, direction, contactId, sipCallId), answer, alive and end (sipCode or cause) with the call's id.
 * Also reached by navigator.sendBeacon when the tab closes mid-call.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  const { db } = context.deps;
  const actor = actorOf(user);
  const form = Object.fromEntries(await readFormBody(request));
  const present = (key: string) => (typeof form[key] === "string" && form[key] !== "" ? form[key] : undefined);
  try {
    switch (form.intent) {
      case "start": {
        const call = await startCall(
          db,
          actor,
          { number: form.number, direction: present("direction"), contactId: present("contactId"), sipCallId: present("sipCallId") },
          context.deps.config.phoneRegion,
        );
        // /users shows him in a call at once (decision 038).
        void context.deps.hub.presenceChanged().catch(() => {});
        return Response.json(call);
      }
      case "answer":
        await answerCall(db, actor, form.id);
        return new Response(null, { status: 204 });
      case "alive":
        await keepCallAlive(db, actor, form.id);
        return new Response(null, { status: 204 });
      case "end": {
        // A form's text: the SIP code is a number to core (issue 43), "486" posted as text is 486 here; text that is
        // no number stays NaN, which core refuses as «Неверный код SIP».
        const sipCode = present("sipCode");
        const call = await endCall(db, actor, form.id, {
          sipCode: sipCode === undefined ? undefined : Number(sipCode),
          phrase: present("phrase"),
          cause: present("cause"),
        });
        void context.deps.hub.presenceChanged().catch(() => {});
        return Response.json(call);
      }
      default:
        return resourceError(unknownIntent());
    }
  } catch (error) {
    return resourceError(error);
  }
}
