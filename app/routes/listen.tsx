import type { ActionFunctionArgs } from "@remix-run/node";
import { actorOf, getUser } from "../auth.server";
import { answerListening, answerWhisper, hearWhisper, startListening, startWhisper, stopListening, whisperOffer } from "../calls.server";
import { notSignedIn, resourceError } from "../errors.server";
import { readFormBody, unknownIntent } from "../forms.server";
import { postOnlyResource } from "../resources.server";

/** Nothing to read here: a GET says so. */
export const loader = postOnlyResource;

/**
 * Live listening and whisper from /users (issue 28). The admin's page: intent start (managerId) answers the session
 * and rtpengine's offer, answer (sessionId, sdp) starts the audio; whisper (managerId, sdp: his microphone's offer)
 * answers rtpengine's answer and tells the manager's page; stop (sessionId) ends either, and answers `callEnded` (what to say) when the call was over. The manager's page, told of
 * a whisper: hear (sessionId) answers the offer of the admin's voice, heard (sessionId, sdp) starts it. Core checks
 * who may do which.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  const { db, mediaRelay, hub } = context.deps;
  const actor = actorOf(user);
  const form = Object.fromEntries(await readFormBody(request));
  try {
    switch (form.intent) {
      case "start":
        return Response.json(await startListening(db, mediaRelay, actor, form));
      case "answer":
        await answerListening(db, mediaRelay, actor, form);
        return new Response(null, { status: 204 });
      case "stop": {
        const { whisperedTo, callEnded } = await stopListening(db, mediaRelay, actor, form);
        if (whisperedTo) await hub.tellUser(whisperedTo, "whisperEnded", { sessionId: Number(form.sessionId) });
        // The call was over: the page says so (its row may have left the call before the call's end reached it).
        return callEnded ? Response.json({ callEnded }) : new Response(null, { status: 204 });
      }
      case "whisper": {
        const whisper = await startWhisper(db, mediaRelay, actor, form);
        // The manager's offer is made while the admin's browser takes its answer, and goes with the news, so his page
        // answers at once (issue 39: no `hear` round trip). Only to his page on this instance: an offer never goes on
        // the instances' bus. Without it (his page on another instance, rtpengine refused) his page asks
        // `hear` itself and says what went wrong.
        const { sessionId, managerId } = whisper;
        void whisperOffer(db, mediaRelay, sessionId)
          .then(
            ({ sdp }) => ({ sessionId, sdp }),
            () => ({ sessionId }),
          )
          .then((news) => hub.tellUserHere(managerId, "whisper", news, { sessionId }))
          .catch(() => {});
        return Response.json({ sessionId, sdp: whisper.sdp });
      }
      case "hear":
        return Response.json(await hearWhisper(db, mediaRelay, actor, form));
      case "heard":
        await answerWhisper(db, mediaRelay, actor, form);
        return new Response(null, { status: 204 });
      default:
        return resourceError(unknownIntent());
    }
  } catch (error) {
    return resourceError(error);
  }
}
