import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { readFormBody } from "../forms.server";
import { safeLocalPath } from "../redirects.server";
import { themeHeader } from "../theme.server";

/** Light or dark, remembered in a cookie; works as a plain form post. */
export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await readFormBody(request);
  const theme = form.get("theme") === "dark" ? "dark" : "light";
  return redirect(safeLocalPath(form.get("redirectTo")), { headers: { "Set-Cookie": await themeHeader(theme) } });
}
