// Run by the server (core's login, the /auth and /auth/recovery actions) and the browser (the login page checks
// the same schema before anything is sent).
import * as z from "zod";
import { requiredText } from "../validation";

/** SPEC §5 login messages. */
export const LOGIN_NEEDED = "Укажите логин";
const PASSWORD_NEEDED = "Укажите пароль";

/** SPEC §5 login: its messages, in the order the form checks them (the first one shows). */
export const loginSchema = z.object({
  login: requiredText(LOGIN_NEEDED, 100),
  password: z.string({ error: PASSWORD_NEEDED }).min(1, { error: PASSWORD_NEEDED }).max(200, { error: PASSWORD_NEEDED }),
  accessKey: requiredText("Укажите ключ доступа", 100),
});
export type LoginInput = z.infer<typeof loginSchema>;

/** The recovery page: a login to name (any length: the answer only repeats it). */
export const recoverySchema = z.object({
  login: z.string({ error: LOGIN_NEEDED }).trim().min(1, { error: LOGIN_NEEDED }),
});
