// The login page's browser check (SPEC §5), a chunk of its own with zod and conform: loaded after the page is
// interactive (app/lib/lazy-module.ts, decision 088). The action checks the same schema.
import { loginSchema } from "../../common/schemas/auth";
import { checkForm } from "./form-check";

export const checkLogin = (form: FormData) => checkForm(form, loginSchema);
