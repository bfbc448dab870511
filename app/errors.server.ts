import { data } from "@remix-run/node";
import { isAppError } from "../server/core/errors";

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
