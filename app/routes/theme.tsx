import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { readFields, readFormBody } from "../forms.server";
import { themeForm, themeHeader } from "../theme.server";

/** Light or dark, remembered in a cookie; works as a plain form post. */
export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  const { theme, redirectTo } = readFields(await readFormBody(request), themeForm);
  return redirect(redirectTo, { headers: { "Set-Cookie": await themeHeader(theme) } });
}
