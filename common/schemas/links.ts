// Run by the server (core's links, the API) and the browser (the /leadTemplate link form checks the same schema).
import * as z from "zod";
import { requiredText } from "../validation";

/** SPEC §5 warnings for an empty name and an empty URL. */
export const LINK_NAME_REQUIRED = "Заполните имя ссылки";
export const LINK_URL_REQUIRED = "Заполните URL ссылки";

/** Only web addresses: a link is opened by managers, so javascript: and data: never get in. */
const urlSchema = requiredText(LINK_URL_REQUIRED, 2000).refine(
  (value) => {
    try {
      const url = new URL(value);
      return url.protocol === "http:" || url.protocol === "https:";
    } catch {
      return false;
    }
  },
  { error: "Ссылка должна быть адресом вида https://…" },
);

export const linkSchema = z.object({
  name: requiredText(LINK_NAME_REQUIRED, 200),
  link: urlSchema,
  isActive: z.boolean({ error: "isActive: ожидается true или false" }).optional(),
});
