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

/**
 * A whole number written in digits, for the ids a path, a query string or a form field sends as text. Nothing else
 * is read as a number: z.coerce took `true` for 1 (the first user) and "" or null for 0 (issue 43). A count or an
 * amount in a JSON body is a number and nothing else (`z.number`); only ids, which an API client copies from a URL,
 * may come as text.
 */
export const digitsOrNumber = (message: string, min: number, max: number) =>
  z
    .union(
      [
        z.number({ error: message }),
        z
          .string({ error: message })
          .trim()
          .regex(/^\d{1,16}$/, { error: message })
          .transform(Number),
      ],
      {
        error: message,
      },
    )
    .pipe(z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }));

/** A positive integer id from a path, a form or a JSON body ("12" or 12), with a Russian message. */
export const idSchema = digitsOrNumber("Неверный идентификатор", 1, 2147483647);

/** A bigint id (contacts, calls: up to 2^53 here), with its own Russian message. */
export const bigIdSchema = (message: string) => digitsOrNumber(message, 1, Number.MAX_SAFE_INTEGER);
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
