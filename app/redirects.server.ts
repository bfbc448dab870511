/** Redirect targets that come from the client (a form's redirectTo or returnTo) go through this, never straight to redirect(). */
export { safeLocalPath } from "../server/http/paths";
