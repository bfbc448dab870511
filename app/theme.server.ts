import { createCookie } from "@remix-run/node";
import * as z from "zod";
import { localPathField } from "./redirects.server";

export type Theme = "light" | "dark";
const themeCookie = createCookie("theme", { path: "/", sameSite: "lax", maxAge: 60 * 60 * 24 * 365 });

/** The theme lives in a cookie so the server renders the right one: no flash of the wrong theme. */
export async function readTheme(request: Request): Promise<Theme> {
  const value = await themeCookie.parse(request.headers.get("Cookie"));
  return value === "dark" ? "dark" : "light";
}

export const themeHeader = (theme: Theme) => themeCookie.serialize(theme);

/** The header's theme switch (a plain form post): anything but dark is light; the page it came from, if ours. */
export const themeForm = z.object({
  theme: z.enum(["light", "dark"]).catch("light"),
  redirectTo: localPathField(),
});
