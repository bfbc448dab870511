// Run by the server (core's input) and the browser (the webhooks page's form checks the same schema).
import * as z from "zod";

/** The events a webhook may receive (issue 44), with what the admin page calls them. */
export const WEBHOOK_EVENTS = {
  "status.pressed": "Нажат статус",
  "report.sent": "Отправлен отчёт",
  "call.ended": "Звонок завершён",
  "recording.ready": "Запись готова",
  "callback.due": "Наступило время перезвона",
  "callback.missed": "Перезвон пропущен",
  "client.final_status": "Клиент получил итоговый статус",
  "client.do_not_call": "Номер клиента в списке «Не звонить»",
  "base.imported": "База загружена",
} as const;

export type WebhookEvent = keyof typeof WEBHOOK_EVENTS;
export const WEBHOOK_EVENT_TYPES = Object.keys(WEBHOOK_EVENTS) as [WebhookEvent, ...WebhookEvent[]];

export const WEBHOOK_URL_INVALID = "Укажите адрес, начинающийся с http:// или https://";
export const WEBHOOK_EVENTS_MISSING = "Выберите хотя бы одно событие";

/** A webhook as the admin gives it: its address, its events, whether it is on. */
export const webhookInputSchema = z.object({
  url: z
    .string({ error: WEBHOOK_URL_INVALID })
    .trim()
    .max(2000, { error: "Слишком длинный адрес (не более 2000 символов)" })
    .refine((v) => /^https?:\/\/[^\s/]+/i.test(v) && URL.canParse(v), { error: WEBHOOK_URL_INVALID })
    .describe("Адрес, на который отправляются события (POST, JSON)"),
  events: z
    .array(z.enum(WEBHOOK_EVENT_TYPES, { error: "Неизвестное событие" }), { error: WEBHOOK_EVENTS_MISSING })
    .min(1, { error: WEBHOOK_EVENTS_MISSING })
    .describe("События, которые он получает"),
  enabled: z.boolean({ error: "Неверное значение «Включён»" }).default(true).describe("Включён ли он"),
});
export type WebhookInput = z.output<typeof webhookInputSchema>;
