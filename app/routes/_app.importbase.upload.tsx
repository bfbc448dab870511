import type { ActionFunctionArgs } from "@remix-run/node";
import { actorOf, requireAdminUser } from "../auth.server";
import { handleImportPost } from "../bases.server";

/** The import page's posts with JavaScript on (XHR, for the upload progress bar): the same steps, as JSON. */
export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireAdminUser(request, context);
  const { state, status } = await handleImportPost(request, context, actorOf(user));
  return Response.json(state, { status });
}
