import type { ActionFunctionArgs } from "@remix-run/node";
import { redirect } from "@remix-run/node";
import { themeHeader } from "../theme.server";

/** Light or dark, remembered in a cookie; works as a plain form post. */
export async function loader() {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  const form = await request.formData();
  const theme = form.get("theme") === "dark" ? "dark" : "light";
  const target = String(form.get("redirectTo") ?? "/");
  return redirect(localPath(target), { headers: { "Set-Cookie": await themeHeader(theme) } });
}

/**
 * Only our own paths: never an open redirect. Resolved the way a browser resolves a Location, so "/\evil.example"
 * or "/<tab>/evil.example" (which browsers read as //evil.example) fall back to "/".
 */
function localPath(target: string): string {
  const base = "http://local.invalid";
  try {
    const url = new URL(target, base);
    if (!target.startsWith("/") || url.origin !== base) return "/";
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return "/";
  }
}
