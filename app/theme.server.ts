import { createCookie } from "@remix-run/node";

export type Theme = "light" | "dark";
const themeCookie = createCookie("theme", { path: "/", sameSite: "lax", maxAge: 60 * 60 * 24 * 365 });

/** The theme lives in a cookie so the server renders the right one: no flash of the wrong theme. */
export async function readTheme(request: Request): Promise<Theme> {
  const value = await themeCookie.parse(request.headers.get("Cookie"));
  return value === "dark" ? "dark" : "light";
}

export const themeHeader = (theme: Theme) => themeCookie.serialize(theme);
