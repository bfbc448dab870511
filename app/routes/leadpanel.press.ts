import type { ActionFunctionArgs } from "@remix-run/node";
import { action as panelAction } from "./_app.leadpanel";

/**
 * A status press sent by the lead panel's script (issue 31, decision 065): the panel's own action, its answer as
 * JSON. The page fetches it itself rather than through the router, so a press is one request: nothing is rendered
 * before it leaves, and no loader runs again after it unless the answer asks for it.
 */
export async function action(args: ActionFunctionArgs) {
  const answer = await panelAction(args);
  // A redirect (the session ended, a plain post that lost its answer=panel) goes to the page as it is.
  if (!("init" in answer)) return answer;
  return Response.json(answer.data, answer.init ?? undefined);
}
