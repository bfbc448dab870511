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
  // With its length: the body is written in one piece, and the browser has it all with those bytes. Without it
  // the answer is chunked and ends with a last empty chunk that the adapter writes a turn of the event loop later,
  // behind whatever other managers' requests hold the loop then (2-8 ms a press in the paint bench's trace).
  const body = JSON.stringify(answer.data);
  const headers = new Headers(answer.init?.headers);
  headers.set("Content-Type", "application/json; charset=utf-8");
  headers.set("Content-Length", String(Buffer.byteLength(body)));
  return new Response(body, { status: answer.init?.status ?? 200, headers });
}
