// The root route's server-only imports (README.md here: one empty module in the browser, inside root's chunk).
import "../context.server";

export { data } from "@remix-run/node";
export { readTheme } from "../theme.server";
export { readFlash } from "../toast.server";
export { stylesheetChoice } from "../stylesheet.server";
