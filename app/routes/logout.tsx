import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { actorOf, clearSessionCookieHeader, getUser, logoutUser } from "../auth.server";

/** Logout goes to /auth (SPEC §2). A GET only redirects: logging out changes state, so it is a POST. */
export async function loader() {
  return redirect("/");
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await getUser(request, context);
  if (user) await logoutUser(context.deps.db, context.deps.sessions, actorOf(user), user.id);
  return redirect("/auth", { headers: { "Set-Cookie": await clearSessionCookieHeader(context) } });
}
