import type { LoaderFunctionArgs } from "@remix-run/node";
import { actorOf, getUser } from "../auth.server";
import { notSignedIn } from "../errors.server";
import { readBalance } from "../money.server";

/**
 * The header's balance poll (SPEC §1, every 30 s): the signed-in user's own balance, notify and lastNotify.
 * A resource route read with the session cookie; reading it consumes the popup like the API does.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const user = await getUser(request, context);
  if (!user) return notSignedIn();
  const balance = await readBalance(context.deps.db, actorOf(user), user.id);
  return Response.json(balance, { headers: { "Cache-Control": "no-store" } });
}
