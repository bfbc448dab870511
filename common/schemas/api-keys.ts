// Run by the server (core's input) and the browser (the integrations page's form checks the same schema).
import * as z from "zod";

/** What an integration's API key may do (issue 44). */
export const API_KEY_SCOPES = {
  read: "Чтение",
  write: "Запись клиентов и статусов",
  admin: "Администрирование",
} as const;
export type ApiKeyScope = keyof typeof API_KEY_SCOPES;
export const API_KEY_SCOPE_NAMES = Object.keys(API_KEY_SCOPES) as [ApiKeyScope, ...ApiKeyScope[]];

export const API_KEY_NAME_MISSING = "Укажите название ключа";
export const API_KEY_SCOPES_MISSING = "Выберите хотя бы одно право";

export const apiKeyInputSchema = z.object({
  name: z
    .string({ error: API_KEY_NAME_MISSING })
    .trim()
    .min(1, { error: API_KEY_NAME_MISSING })
    .max(100, { error: "Слишком длинное название (не более 100 символов)" })
    .meta({ description: "Название: чей это ключ (CRM, бот)", examples: ["amoCRM"] }),
  scopes: z
    .array(z.enum(API_KEY_SCOPE_NAMES, { error: "Неизвестное право" }), { error: API_KEY_SCOPES_MISSING })
    .min(1, { error: API_KEY_SCOPES_MISSING })
    .describe("Права: read (чтение), write (клиенты и статусы), admin (всё)"),
});
