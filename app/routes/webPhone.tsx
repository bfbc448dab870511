import type { LoaderFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { requireUser } from "../auth.server";
import { webPhoneRedirectUrl } from "../server-imports/web-phone.server";

/**
 * SPEC /webPhone: sends a logged-in user to the external web-phone page (WEBPHONE_URL) with a timestamp query
 * parameter. Without a configured page it is the 404 page.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  await requireUser(request, context);
  const target = webPhoneRedirectUrl(context.deps.config.publicSettings.webPhoneUrl, new Date());
  if (!target) throw new Response("Страница не найдена", { status: 404 });
  return redirect(target, { headers: { "Cache-Control": "no-store" } });
}

export default function WebPhone() {
  return null;
}
