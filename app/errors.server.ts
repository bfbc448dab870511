import { data } from "@remix-run/node";
import { isAppError, unauthorized } from "#server/core/errors";

import { isDatabaseUnavailable } from "#server/core/db-errors";
import type { AppLoadContext } from "@remix-run/node";

export { isAppError, isDatabaseUnavailable };

export const DATABASE_UNAVAILABLE = "База данных временно недоступна";

/**
 * Rethrows a database outage as a 503 the browser understands: a document gets the plain 503 page below
 * (entry.server sees `databaseUnavailable`), a data request of in-app navigation a 503 the root error boundary
 * shows in Russian, instead of a generic error. Any other error goes on as it was.
 */
export function rethrowDatabaseOutage(error: unknown, context: AppLoadContext): never {
  if (!isDatabaseUnavailable(error)) throw error;
  noteDatabaseOutage(context);
  throw data({ message: DATABASE_UNAVAILABLE }, { status: 503, headers: { "Retry-After": "5" } });
}

/**
 * The lead panel's press (served outside Remix's handler, decision 068) when the database cannot be reached, in its
 * statement or before it (rethrowDatabaseOutage): a plain 503, which the page shows as the root error boundary's
 * Russian 503, as it shows a loader's; it was the handler's 500 «Unexpected Server Error». Any other error goes on.
 */
export function pressOutageAnswer(error: unknown, context: AppLoadContext): Response {
  if (!context.databaseUnavailable) {
    if (!isDatabaseUnavailable(error)) throw error;
    noteDatabaseOutage(context);
  }
  return new Response(DATABASE_UNAVAILABLE, {
    status: 503,
    headers: { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "5", "Cache-Control": "no-store" },
  });
}

function noteDatabaseOutage(context: AppLoadContext) {
  context.databaseUnavailable = true;
  context.deps.metrics.databaseUnavailable();
  context.log?.warn("database unavailable");
}

/**
 * The page a browser gets while the database cannot be reached: a 503 in Russian that asks to retry, instead of
 * the error boundary's 500. Plain HTML without scripts or styles: nothing else of the app may work meanwhile.
 */
export function databaseUnavailablePage(): Response {
  const html = `<!DOCTYPE html>
<html lang="ru"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>База данных недоступна — Лиды</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; text-align: center">
<h1>${DATABASE_UNAVAILABLE}</h1>
<p>Повторите через несколько секунд: обновите страницу.</p>
<p><a href="/">На главную</a></p>
</body></html>`;
  return new Response(html, {
    status: 503,
    headers: { "Content-Type": "text/html; charset=utf-8", "Retry-After": "5", "Cache-Control": "no-store" },
  });
}

export interface ActionError {
  error: { code: string; message: string };
}

/**
 * The Remix side of AppError: an action answers with the core's status and Russian message, which the page
 * shows as a banner (JS off) or a toast (JS on). Anything else is a real failure and goes to the error boundary.
 */
export function actionError(error: unknown) {
  if (isAppError(error)) {
    return data<ActionError>({ error: { code: error.code, message: error.message } }, { status: error.status });
  }
  throw error;
}

/** The same for a JSON resource route (fetch, sendBeacon): `{ error, message }` with the core's status. */
export function resourceError(error: unknown): Response {
  if (isAppError(error)) return Response.json({ error: error.code, message: error.message }, { status: error.status });
  throw error;
}

/** A JSON resource's answer to a visitor without a session: core's 401, as the API gives it. */
export const notSignedIn = (): Response => resourceError(unauthorized());

/**
 * A loader's read that a hand-edited address can make the core refuse (?userId=abc): the result, or the core's
 * Russian message for the page to show in its place. Anything else is a real failure and is thrown.
 */
export async function orAppMessage<T>(work: Promise<T>): Promise<{ value: T; message: null } | { value: null; message: string }> {
  try {
    return { value: await work, message: null };
  } catch (error) {
    if (!isAppError(error)) throw error;
    return { value: null, message: error.message };
  }
}
