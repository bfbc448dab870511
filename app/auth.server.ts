import { createCookie, redirect, type AppLoadContext } from "@remix-run/node";
import type { User } from "../db/schema";
import type { Actor } from "#server/core/actor";
import { forbidden } from "#server/core/errors";
import { SESSION_COOKIE } from "#server/http/cookies";
import "./context.server";
import { rethrowDatabaseOutage } from "./errors.server";

/**
 * The session cookie: HttpOnly (no script reads the credential), SameSite=Lax (no cross-site post carries it),
 * Path=/. Secure over HTTPS like every cookie of ours (server/http/secure-cookies.ts).
 */
function sessionCookie(context: AppLoadContext) {
  return createCookie(SESSION_COOKIE, {
    path: "/",
    httpOnly: true,
    sameSite: "lax",
    maxAge: context.deps.config.sessionDays * 24 * 60 * 60,
  });
}

export async function sessionCookieHeader(context: AppLoadContext, token: string) {
  return sessionCookie(context).serialize(token);
}

/**
 * After a successful login: a Set-Cookie with the new session (a fresh id from the session store, never the value
 * the browser brought), and the session the browser carried before is ended (no session fixation, no stale
 * session left behind on a shared computer).
 */
export async function startSessionCookieHeader(request: Request, context: AppLoadContext, token: string) {
  const previous = await readSessionToken(request, context);
  if (previous && previous !== token) await context.deps.sessions.invalidate(previous);
  return sessionCookieHeader(context, token);
}

export async function clearSessionCookieHeader(context: AppLoadContext) {
  return sessionCookie(context).serialize("", { maxAge: 0 });
}

export async function readSessionToken(request: Request, context: AppLoadContext): Promise<string | null> {
  const token = await sessionCookie(context).parse(request.headers.get("Cookie"));
  return typeof token === "string" && token ? token : null;
}

/** The logged-in user, or null. */
export async function getUser(request: Request, context: AppLoadContext): Promise<User | null> {
  const token = await readSessionToken(request, context);
  if (!token) return null;
  // Every page's first database call: an outage here answers 503 for the page and for in-app navigation alike.
  return context.deps.sessions.validate(token).catch((error) => rethrowDatabaseOutage(error, context));
}

/** Guards read top to bottom: no session → /auth (with the cookie cleared). */
export async function requireUser(request: Request, context: AppLoadContext): Promise<User> {
  const user = await getUser(request, context);
  if (!user) throw await loginAgain(context);
  return user;
}

/** Where a request without a live session goes: /auth, with the cookie cleared. */
export async function loginAgain(context: AppLoadContext): Promise<Response> {
  return redirect("/auth", { headers: { "Set-Cookie": await clearSessionCookieHeader(context) } });
}

/** Admin pages: a manager gets a 403 page, never the admin's data. */
export async function requireAdminUser(request: Request, context: AppLoadContext): Promise<User> {
  const user = await requireUser(request, context);
  if (!user.isAdmin) {
    const error = forbidden();
    throw new Response(error.message, { status: 403, statusText: "Forbidden" });
  }
  return user;
}

/** The acting user; with his session token when the action must spare that session (see Actor.session). */
export const actorOf = (user: User, session?: string | null): Actor => ({
  id: user.id,
  login: user.login,
  isAdmin: user.isAdmin,
  session: session ?? undefined,
});

// Server code reaches route modules only through *.server.ts files (the browser bundle empties them).
export { login } from "#server/core/auth/login";
export { logoutUser } from "#server/core/users/users";
export { presentSessionUser } from "#server/core/users/present";
export { listScriptsForUser } from "#server/core/scripts/visible";
