import * as z from "zod";
import { safeLocalPath } from "#server/http/paths";

/** Redirect targets that come from the client (a form's redirectTo or returnTo) go through this, never straight to redirect(). */
export { safeLocalPath };

/** A form's redirectTo / returnTo: any value is read (a missing or hostile one is `fallback`), never refused. */
export const localPathField = (fallback = "/") =>
  z
    .unknown()
    .optional()
    .transform((target) => safeLocalPath(target, fallback));
