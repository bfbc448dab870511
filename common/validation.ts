// Run by the server (core's input) and the browser (a page form checks the same schema before it is sent).
import * as z from "zod";
// The Russian locale alone: "zod/locales" would bring all 64 into the browser bundle.
import ru from "zod/v4/locales/ru.js";

// zod's own messages (a wrong type, a too long value) in Russian too: they reach the user as `{ error, message }`
// from the API and next to a field on a page.
z.config(ru());
// In the browser zod must not compile its parsers with `new Function`: the pages' CSP has no 'unsafe-eval', and
// even zod's probe for it is a reported violation (the XSS e2e counts every one).
if (typeof document !== "undefined") z.config({ jitless: true });

/** A positive integer id from a path or form ("12"), with a Russian message. */
export const idSchema = z.coerce
  .number({ error: "Неверный идентификатор" })
  .int({ error: "Неверный идентификатор" })
  .positive({ error: "Неверный идентификатор" })
  .max(2147483647, { error: "Неверный идентификатор" });

/** A bigint id (contacts, calls: up to 2^53 here), with its own Russian message. */
export const bigIdSchema = (message: string) =>
  z.coerce.number({ error: message }).int({ error: message }).positive({ error: message }).max(Number.MAX_SAFE_INTEGER, { error: message });
export const contactIdSchema = bigIdSchema("Неверный идентификатор клиента");

/** A required, trimmed text with its own message for missing and blank. */
export const requiredText = (message: string, max = 1000) =>
  z
    .string({ error: message })
    .trim()
    .min(1, { error: message })
    .max(max, { error: `Слишком длинное значение (не более ${max} символов)` });

/** The fields of a form that only names a row (a delete, a switch): its id. */
export const idFields = z.object({ id: idSchema });
