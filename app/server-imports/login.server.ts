// The login route's (auth._index) server-only imports (README.md here).
export { data, redirect } from "@remix-run/node";
export { getUser, login, startSessionCookieHeader } from "../auth.server";
export { actionError } from "../errors.server";
export { readFormBody } from "../forms.server";
export { checkLogin } from "../lib/login-check";
export { flashHeader } from "../toast.server";
