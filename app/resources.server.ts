import type { LoaderFunctionArgs } from "@remix-run/node";
import { getUser } from "./auth.server";
import { notSignedIn } from "./errors.server";

/**
 * The loader of a resource that only takes forms (/listen, /heard): nothing to read, so a GET says so with a 405,
 * after the sign-in check every resource makes (401 first, as for its posts).
 */
export async function postOnlyResource({ request, context }: LoaderFunctionArgs): Promise<Response> {
  if (!(await getUser(request, context))) return notSignedIn();
  return Response.json({ error: "method_not_allowed", message: "Сюда отправляют только формы (POST)" }, { status: 405, headers: { Allow: "POST" } });
}
