import { createCookie, redirect } from "@remix-run/node";

export type ToastType = "default" | "success" | "info" | "warning" | "error";
export interface Flash {
  type: ToastType;
  message: string;
}

/** A one-time message that survives a redirect: a banner before hydration, a toast after it. */
const flashCookie = createCookie("flash", { path: "/", httpOnly: true, sameSite: "lax", maxAge: 60 });

export async function flashHeader(flash: Flash): Promise<string> {
  return flashCookie.serialize(flash);
}

export async function redirectWithToast(url: string, flash: Flash, init: ResponseInit = {}) {
  const headers = new Headers(init.headers);
  headers.append("Set-Cookie", await flashHeader(flash));
  return redirect(url, { ...init, headers });
}

/** Reads the flash (if any) and the header that clears it. */
export async function readFlash(request: Request): Promise<{ flash: Flash | null; clear: string | null }> {
  const value = await flashCookie.parse(request.headers.get("Cookie"));
  if (!value || typeof value !== "object" || typeof value.message !== "string") return { flash: null, clear: null };
  return { flash: value as Flash, clear: await flashCookie.serialize("", { maxAge: 0 }) };
}
